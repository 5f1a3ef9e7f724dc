// A chat page of the suite (compat/pages/*) opened in a fresh tab, driven as a user does: the pages share their
// controls (#input, #send, #messages with one <li data-role> per message), so every front end's test types,
// sends and reads the same way. Page errors are kept for failure messages.

/** Bounds each wait in a page (a 3 MB bundle on a loaded 2-core machine). */
export const WAIT = 60_000

/**
 * Opens `url` in a new tab of `browser` and waits for its send button. `assistant` selects the assistant
 * messages' text elements.
 */
export async function openChat(browser, url, { assistant = '#messages > li[data-role="assistant"]' } = {}) {
  const tab = await browser.context.newPage()
  const errors = []
  tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
  tab.on('pageerror', (e) => errors.push(e.message))
  await tab.goto(url)
  await tab.locator('#send').waitFor({ timeout: WAIT })
  const said = () => tab.locator(assistant).allTextContents()
  return {
    tab,
    url,
    errors,
    said,
    async send(text) {
      await tab.locator('#input').fill(text)
      await tab.locator('#send').click()
    },
    /** Waits until an assistant message contains `match` (a string) or matches it (a RegExp). */
    async reply(match) {
      try {
        if (typeof match === 'string') await tab.locator(assistant, { hasText: match }).first().waitFor({ timeout: WAIT })
        else
          await tab.waitForFunction(
            ([sel, src, flags]) => [...document.querySelectorAll(sel)].some((e) => new RegExp(src, flags).test(e.textContent)),
            [assistant, match.source, match.flags],
            { timeout: WAIT },
          )
      } catch (err) {
        throw new Error(`no assistant message matching ${match}; seen: ${JSON.stringify(await said())}; page errors: ${errors.join(' | ')}`, {
          cause: err,
        })
      }
    },
    close: () => tab.close(),
  }
}

/**
 * A LangGraph chat page (compat/pages/usestream*): `openChat` on `http://localhost:<port>/?server=…&<params>` with
 * the assistant's messages as `li[data-role="ai"]`, plus the thread id the page shows, every message as
 * "role: text", and a wait for the hook to be idle. The page is on localhost, Parlance on 127.0.0.1: another origin.
 */
export async function openLangGraphPage(browser, port, parlanceUrl, params = {}) {
  const q = new URLSearchParams({ server: `${parlanceUrl}/langgraph`, ...params })
  const p = await openChat(browser, `http://localhost:${port}/?${q}`, { assistant: '#messages > li[data-role="ai"] .text' })
  const tab = p.tab
  return {
    ...p,
    /** The thread id the page shows (set once the first submit created the thread). */
    thread: async () => {
      await tab.waitForFunction(() => document.querySelector('#thread')?.textContent !== '', null, { timeout: WAIT })
      return tab.locator('#thread').textContent()
    },
    roles: () => tab.locator('#messages > li').evaluateAll((els) => els.map((e) => `${e.dataset.role}: ${e.querySelector('.text').textContent}`)),
    idle: () => tab.locator('#status', { hasText: 'ready' }).waitFor({ timeout: WAIT }),
  }
}
