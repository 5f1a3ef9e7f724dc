// Token usage in the inspector (issue 36), in real Chromium: the session replay shows the tokens a session used and
// each model call's. Heavy tier (a Vite build and a browser); the usage itself: usage.test.ts.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildInspector, launchChromium } from './support/chromium.js'
import { setup } from './usage-support.js'

test("the inspector's session replay shows the tokens the session used, and each model call's", async (t) => {
  const inspector = await buildInspector('parlance-usage-inspector-')
  t.after(() => inspector.release())
  const { s } = await setup(t, inspector.dir)
  const c = await s.hai({ sessionId: 'usage-view' })
  c.say('ponder hello')
  await c.untilCompleted()
  c.say('weather please')
  await c.untilCompleted()

  const browser = await launchChromium()
  t.after(() => browser.close())
  const page = await browser.newPage()
  page.setDefaultTimeout(15_000)
  await page.goto(`${s.url}/?dialect=hai#session=usage-view`)
  await page.locator('#replay[data-session="usage-view"][data-count]').waitFor()
  assert.equal((await page.locator('#replay-usage').textContent())?.trim(), 'Tokens: 120 in (6 cached), 21 out (3 reasoning) over 3 model calls')
  const calls = await page.locator('#replay-transcript li[data-type="usage"]').allTextContents()
  assert.deepEqual(calls, [
    'tokens: 20 in (2 cached), 7 out (3 reasoning) (fake-1)',
    'tokens: 40 in (2 cached), 7 out (fake-1)',
    'tokens: 60 in (2 cached), 7 out (fake-1)',
  ])
})
