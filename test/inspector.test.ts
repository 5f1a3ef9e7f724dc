// The inspector page in real Chromium (Debian's /usr/bin/chromium through playwright-core; never a downloaded
// browser): every demo behaviour through every dialect, the approval dialog by keyboard, the wire view, the
// sessions list with replay, the fork tree and "Fork here", the metrics strip, and accessible names on every control. The page is built fresh
// with Vite for this test run (test/support/chromium.ts), so a stale dist/ is never what is tested.
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { startServer, type TestServer } from './harness.js'
import { buildInspector, launchChromium, type BuiltInspector } from './support/chromium.js'

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'inspector')
const DIALECTS = ['hai', 'agui', 'huma', 'myagent', 'hugai', 'aisdk', 'mcp', 'a2a', 'openai', 'langgraph'] as const
/** Dialects that stream text; HUMA (typing, then whole messages), HugAI (the task's result) and MCP (the call's result) do not. */
const STREAMING = new Set(['hai', 'agui', 'myagent', 'aisdk', 'a2a', 'openai', 'langgraph'])
/** Dialects whose protocol carries no client tools (the agent hears so and goes on). */
const NO_CLIENT_TOOLS = new Set(['mcp'])
/** Dialects whose approval request carries no risk level (OpenAI's mcp_approval_request: tool and arguments only). */
const NO_RISK = new Set(['openai', 'langgraph'])
const WAIT = 15_000

let inspector: BuiltInspector | undefined
let server: TestServer
let browser: Browser

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  inspector = await buildInspector('parlance-inspector-')
  // HUMA shows typing before each whole message (15 ms per character by default): keep it short here.
  server = await startServer({ inspectorDir: inspector.dir, limits: { typingMsPerChar: 1 } })
  browser = await launchChromium()
})

after(async () => {
  await browser?.close()
  await server?.close()
  server?.removeData()
  inspector?.release()
})

/** Opens the inspector on `dialect` and waits until it is connected; page errors fail the test. */
async function openPage(dialect: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`))
  page.setDefaultTimeout(WAIT)
  await page.goto(`${server.url}/?dialect=${dialect}`)
  await page.locator('body[data-ready="true"]').waitFor()
  return { page, errors }
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message to the agent').fill(text)
  await page.getByRole('button', { name: 'Send', exact: true }).click()
}

/** Waits for a finished assistant message containing `text`. */
async function answer(page: Page, text: string): Promise<void> {
  await page.locator('#transcript li.msg.assistant[data-done="true"]', { hasText: text }).first().waitFor()
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
}

// Pages are independent (one conversation each), so a few run at once; every wait is for a condition.
describe('inspector in Chromium', { concurrency: 3 }, () => {
  for (const dialect of DIALECTS) {
    test(`${dialect}: echo streams, server tool shown, delete approved by keyboard, client tool answered, state tree updates, plan shows progress, failure shown`, async () => {
      const { page, errors } = await openPage(dialect)
      try {
        // 1. Basic round trip.
        await send(page, 'hello inspector')
        await answer(page, 'Echo: hello inspector')
        if (STREAMING.has(dialect)) {
          // Streamed: each chunk was appended as it arrived (the demo sends "Echo: …" in at least 3 chunks).
          const pieces = await page
            .locator('#transcript li.msg.assistant', { hasText: 'Echo: hello inspector' })
            .evaluate((li: { childNodes: { length: number } }) => li.childNodes.length)
          assert.ok(pieces >= 3, `${pieces} pieces`)
        }

        // 2. Server tool: the call with its arguments and its result.
        await send(page, 'weather in Paris')
        await answer(page, 'The weather in Paris is cloudy')
        const tool = page.locator('#transcript li.tool[data-tool="get_weather"][data-state="done"]')
        await tool.waitFor()
        assert.match((await tool.locator('.tool-args').textContent()) ?? '', /"city": "Paris"/)
        assert.match((await tool.locator('.tool-result').textContent()) ?? '', /"conditions": "cloudy"/)

        // 3. Approval: focus moves into the modal dialog; Tab to Approve, Space activates it.
        await send(page, 'delete the notes')
        const dialog = page.getByRole('dialog', { name: /Approve delete_file/ })
        await dialog.waitFor()
        if (!NO_RISK.has(dialect)) {
          assert.match((await page.locator('#approval-risk').textContent()) ?? '', /high risk/)
          assert.ok((await page.locator('#approval-risk').getAttribute('class'))?.includes('risk-high'))
        }
        assert.equal(await page.evaluate("document.activeElement?.closest('dialog#approval') !== null"), true, 'focus is inside the dialog')
        await shot(page, `${dialect}-approval`)
        await page.keyboard.press('Tab')
        assert.equal(await page.evaluate('document.activeElement?.id'), 'approval-approve')
        await page.keyboard.press('Space')
        await dialog.waitFor({ state: 'hidden' })
        await answer(page, 'Done: deleted notes/demo.txt')

        // 4. Client tool: the form answers it (MyAgent through HAI on the same session).
        if (!NO_CLIENT_TOOLS.has(dialect)) {
          await send(page, 'client')
          const form = page.getByRole('form', { name: 'Answer client tool get_client_info' })
          await form.waitFor()
          await form.getByLabel('Result of get_client_info (JSON)').fill('{"os":"inspector-test","dialect":"' + dialect + '"}')
          await form.getByRole('button', { name: 'Send result' }).click()
          await answer(page, 'inspector-test')
        }

        // 5. State: the tree shows counter 1 and highlights what the patch changed.
        await send(page, 'state')
        await page.locator('#state-tree[data-state=\'{"counter":1}\']').waitFor()
        await page.locator('#state-tree .json-node.changed[data-path="/counter"]').waitFor()

        // 6. Plan: the progress bar reaches 100 %.
        await send(page, 'plan')
        await page.locator('#progress[value="100"]').waitFor({ state: 'attached' })
        await answer(page, 'The plan is complete')

        // 7. A failing run shows its error.
        await send(page, 'fail')
        await page.locator('#transcript li.msg.error', { hasText: 'flaky_tool is out of order' }).waitFor()
        await shot(page, `${dialect}-conversation`)
        assert.deepEqual(errors, [])
      } finally {
        await page.close()
      }
    })
  }

  test('Escape rejects an approval (HAI) and the agent says so', async () => {
    const { page, errors } = await openPage('hai')
    try {
      await send(page, 'delete please')
      const dialog = page.getByRole('dialog', { name: /Approve delete_file/ })
      await dialog.waitFor()
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'hidden' })
      await answer(page, 'Not approved')
      assert.deepEqual(errors, [])
    } finally {
      await page.close()
    }
  })

  test('wire view pairs frames with canonical events, filters, and exports JSONL; sessions list replays from seq 0; metrics strip polls', async () => {
    const { page, errors } = await openPage('hai')
    try {
      await send(page, 'hello wire')
      await answer(page, 'Echo: hello wire')
      const sessionId = (await page.locator('#session-id').textContent())!.trim()
      // Frames both ways, canonical events with seqs.
      await page.locator('#wire-rows tr[data-dir="out"]').first().waitFor()
      await page.locator('#canonical-rows tr[data-type="run.finished"]').waitFor()
      // Selecting an inbound frame with a seq shows the canonical event with that seq beside it.
      const frame = page.locator('#wire-rows tr[data-dir="in"]:not([data-seq=""])').last()
      const seq = await frame.getAttribute('data-seq')
      await frame.click()
      assert.match((await page.locator('#detail-canonical').textContent()) ?? '', new RegExp(`"seq": ${seq}\\b`))
      assert.equal(await page.locator(`#canonical-rows tr.match[data-seq="${seq}"]`).count(), 1)
      // Keyboard: the table is one tab stop; arrow keys move the selection.
      await page.locator('#wire-rows tr').first().click()
      await page.keyboard.press('ArrowDown')
      assert.equal(await page.evaluate('document.activeElement?.dataset.n'), '2')
      assert.match((await page.locator('#detail-frame').textContent()) ?? '', /"type"/)
      // Filter: only frames mentioning user_message stay visible on the wire side.
      await page.getByLabel('Filter').fill('user_message')
      assert.equal(await page.locator('#wire-rows tr:not([hidden])').count(), 1) // filtering is synchronous on input
      await page.getByLabel('Filter').fill('')
      // Export.
      const download = page.waitForEvent('download')
      await page.getByRole('button', { name: 'Export JSONL' }).click()
      const file = await (await download).path()
      const lines = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { kind: string; dir?: string; event?: { type: string } })
      assert.ok(lines.some((l) => l.kind === 'wire' && l.dir === 'out'))
      assert.ok(lines.some((l) => l.kind === 'wire' && l.dir === 'in'))
      assert.ok(lines.some((l) => l.kind === 'canonical' && l.event?.type === 'text.delta'))

      // Sessions: this session is listed with its HAI connection; replay rebuilds it from seq 0.
      await page.getByRole('button', { name: 'Refresh' }).click()
      const row = page.locator(`#sessions-rows tr[data-session="${sessionId}"]`)
      await row.filter({ hasText: 'hai ×1' }).filter({ hasText: '(this chat)' }).waitFor()
      await row.getByRole('button', { name: `Replay session ${sessionId} from seq 0` }).click()
      await page.locator(`#replay[data-session="${sessionId}"]`).waitFor()
      await page.locator('#replay-transcript li.msg.assistant', { hasText: 'Echo: hello wire' }).waitFor()
      assert.equal(await page.locator('#replay-events li').first().getAttribute('data-seq'), '1')

      // Metrics strip.
      await page.locator('#metrics[data-polled="true"]').waitFor()
      assert.match((await page.locator('#m-connections').textContent()) ?? '', /^\d+$/)
      await shot(page, 'wire-sessions-metrics')
      assert.deepEqual(errors, [])
    } finally {
      await page.close()
    }
  })

  test('with auth on, the page loads without a token and works with ?access_token=', async () => {
    const guarded = await startServer({ inspectorDir: inspector!.dir, auth: { token: 's3cret' } })
    const page = await browser.newPage()
    page.setDefaultTimeout(WAIT)
    try {
      await page.goto(`${guarded.url}/?dialect=agui`)
      await page.getByRole('heading', { name: 'Parlance inspector' }).waitFor()
      await page.locator('#sessions-rows', { hasText: '401' }).waitFor() // the API refuses without the token
      await page.goto(`${guarded.url}/?dialect=agui&access_token=s3cret`)
      await page.locator('body[data-ready="true"]').waitFor()
      await send(page, 'hello token')
      await answer(page, 'Echo: hello token')
      await page.locator('#canonical-rows tr[data-type="run.finished"]').waitFor()
    } finally {
      await page.close()
      await guarded.close()
      guarded.removeData()
    }
  })

  test('fork tree: "Fork here" on an event opens a session holding exactly events 1..seq, listed under its parent; queued and rewound events read as words; fork errors are shown', async () => {
    // A server of its own (other tests' sessions would crowd the list) with auth on: the page's token must go with the fork.
    const own = await startServer({ inspectorDir: inspector!.dir, auth: { token: 'fork-token' } })
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    page.setDefaultTimeout(WAIT)
    try {
      // A conversation from a HAI client: an answer, a slow run with a message queued behind it (then cancelled,
      // so the queued one runs), and a regenerated answer.
      const c = await own.hai({ sessionId: 'fork-source', token: 'fork-token' })
      c.say('hello one')
      await c.untilCompleted()
      c.say('slow')
      await c.next('assistant_message_chunk')
      c.say('queued two', { onBusy: 'enqueue' })
      await c.next((m) => m.type === 'status' && 'queued' in m && m.queued !== undefined)
      c.cancel()
      await c.next((m) => m.type === 'assistant_message_chunk' && m.content.includes('Echo'))
      await c.untilCompleted()
      c.regenerate()
      await c.untilCompleted()
      const res = await fetch(`${own.url}/inspector/api/sessions/fork-source/events?limit=1000`, { headers: { authorization: 'Bearer fork-token' } })
      const original = ((await res.json()) as { events: Array<{ seq: number; type: string }> }).events
      const typeAt = (seq: number) => original.find((e) => e.seq === seq)?.type
      const queuedSeq = original.find((e) => e.type === 'message.queued')!.seq
      const k = original.find((e) => e.type === 'history.rewound')!.seq - 1 // the end of the queued message's run
      assert.equal(typeAt(k), 'run.finished')

      await page.goto(`${own.url}/?dialect=hai&access_token=fork-token`)
      await page.locator('body[data-ready="true"]').waitFor()
      await page.getByRole('button', { name: 'Replay session fork-source from seq 0' }).click()
      await page.locator(`#replay[data-session="fork-source"][data-count="${original.length}"]`).waitFor()
      assert.match(await page.evaluate('location.hash'), /^#session=fork-source$/)
      // Queued and rewound events in words, in the event list and in the conversation.
      assert.match((await page.locator('#replay-events li[data-type="message.queued"] .event-text').textContent()) ?? '', /queued: queued two/)
      assert.match(
        (await page.locator('#replay-events li[data-type="history.rewound"] .event-text').textContent()) ?? '',
        /history cut back to “queued two” \(regenerate\)/,
      )
      await page
        .locator('#replay-transcript li.msg.status[data-type="history.rewound"]', { hasText: 'history cut back to “queued two” (regenerate)' })
        .waitFor()
      assert.equal(await page.locator('#replay-origin').isHidden(), true, 'the source is no fork')

      // A refused fork is shown, not swallowed (the server's answer, faked here: a real one cannot be provoked from the page).
      await page.route('**/sessions/*/fork', (route) =>
        route.fulfill({
          status: 409,
          contentType: 'application/json',
          body: JSON.stringify({ error: { code: 'conflict', message: 'session taken already exists' } }),
        }),
      )
      await page.locator(`#replay-events li[data-seq="${k}"]`).getByRole('button', { name: 'Fork here' }).click()
      await page
        .getByRole('alert')
        .filter({ hasText: `Could not fork fork-source at seq ${k}: fork refused: 409 conflict: session taken already exists` })
        .waitFor()
      assert.equal(await page.locator('#replay').getAttribute('data-session'), 'fork-source')
      await page.unroute('**/sessions/*/fork')

      // Fork here: the new session opens with exactly events 1..k of the source.
      await page
        .locator(`#replay-events li[data-seq="${k}"]`)
        .getByRole('button', { name: `Fork here: a new session with events 1 to ${k} of fork-source` })
        .click()
      await page.locator(`#replay[data-count="${k}"]:not([data-session="fork-source"])`).waitFor()
      assert.equal(await page.locator('#fork-error').isHidden(), true)
      const forkId = (await page.locator('#replay').getAttribute('data-session'))!
      assert.match(await page.evaluate('location.hash'), new RegExp(`^#session=${forkId}$`))
      const seqsAndTypes = await page
        .locator('#replay-events li')
        .evaluateAll((lis: Array<{ getAttribute(name: string): string | null }>) =>
          lis.map((li) => [li.getAttribute('data-seq'), li.getAttribute('data-type')]),
        )
      assert.deepEqual(
        seqsAndTypes,
        original.filter((e) => e.seq <= k).map((e) => [String(e.seq), e.type]),
      )
      assert.ok(
        seqsAndTypes.some(([seq]) => seq === String(queuedSeq)),
        'the queued message is kept',
      )
      assert.equal((await page.locator('#replay-origin').textContent())?.trim(), `forked from fork-source at seq ${k}`)
      await page.locator('#replay-transcript li.msg.assistant', { hasText: 'Echo: queued two' }).waitFor()
      assert.equal(await page.locator('#replay-transcript li', { hasText: 'history cut back' }).count(), 0, 'the fork ends before the rewind')

      // The list draws it under its parent.
      const forkRow = page.locator(`#sessions-rows tr[data-session="${forkId}"]`)
      await forkRow.filter({ hasText: `forked at seq ${k}` }).waitFor()
      assert.equal(await forkRow.getAttribute('data-parent'), 'fork-source')
      assert.equal(await forkRow.getAttribute('data-depth'), '1')

      // A fork of the fork (at seq 2, inside a run: the fork closes that run, one event more) is listed one level
      // deeper, under it; the tree is in order.
      await page.locator('#replay-events li[data-seq="2"]').getByRole('button', { name: 'Fork here' }).click()
      await page.locator(`#replay[data-count="3"]:not([data-session="${forkId}"])`).waitFor()
      assert.equal(await page.locator('#replay-events li[data-seq="3"]').getAttribute('data-type'), 'run.error')
      const grandchild = (await page.locator('#replay').getAttribute('data-session'))!
      await page.locator(`#sessions-rows tr[data-session="${grandchild}"][data-parent="${forkId}"][data-depth="2"]`).waitFor()
      const order = await page
        .locator('#sessions-rows tr')
        .evaluateAll((trs: Array<{ getAttribute(name: string): string | null }>) => trs.map((tr) => tr.getAttribute('data-session')))
      assert.deepEqual(order, ['fork-source', forkId, grandchild])
      const indents = await page
        .locator('#sessions-rows tr td.session-cell')
        .evaluateAll((tds: Array<unknown>) =>
          tds.map((td) =>
            parseFloat((globalThis as unknown as { getComputedStyle(e: unknown): { paddingLeft: string } }).getComputedStyle(td).paddingLeft),
          ),
        )
      assert.ok(indents[0]! < indents[1]! && indents[1]! < indents[2]!, `indented: ${indents.join(', ')}`)
      await shot(page, 'fork-tree')

      // The link to the parent opens it, and the parent names its fork.
      await page.locator('#replay-origin a', { hasText: forkId }).click()
      await page.locator(`#replay[data-session="${forkId}"][data-count="${k}"]`).waitFor()
      await page.locator('#replay-forks a', { hasText: grandchild }).waitFor()
      await page.goBack()
      await page.locator(`#replay[data-session="${grandchild}"][data-count="3"]`).waitFor()
      assert.deepEqual(errors, [])
    } finally {
      await page.close()
      await own.close()
      own.removeData()
    }
  })

  test('every control has an accessible name', async () => {
    const { page } = await openPage('hai')
    try {
      await send(page, 'client')
      await page.getByRole('form', { name: 'Answer client tool get_client_info' }).waitFor()
      // In the page (a string: this file is type-checked without the DOM lib).
      const unnamed = await page.evaluate<string[]>(`(() => {
        const out = []
        for (const el of document.querySelectorAll('button, input, select, textarea, [tabindex], summary, progress')) {
          if (el.closest('[hidden]') || el.closest('dialog:not([open])')) continue
          const name = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || el.getAttribute('title') || el.labels?.length || (el.textContent ?? '').trim()
          if (!name) out.push(el.outerHTML.slice(0, 120))
        }
        return out
      })()`)
      assert.deepEqual(unnamed, [])
      // Chromium's own accessible-name computation agrees for the main controls.
      for (const name of ['HAI', 'AG-UI', 'HUMA', 'MyAgent', 'HugAI', 'AI SDK'])
        await page.getByRole('radio', { name: new RegExp(`^${name}`) }).waitFor()
      await page.getByRole('textbox', { name: 'Message to the agent' }).waitFor()
      await page.getByRole('button', { name: 'New session' }).waitFor()
      await page.getByRole('combobox', { name: 'Direction' }).waitFor()
    } finally {
      await page.close()
    }
  })
})
