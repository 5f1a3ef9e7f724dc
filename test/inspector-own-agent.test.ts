// The inspector page serving your own agent (not the demo), in real Chromium (Debian's /usr/bin/chromium through
// playwright-core; never a downloaded browser): A2A, MCP and HugAI address the served agent (no /a2a/demo, no
// ask_demo), the demo's triggers are hidden, and the header says a run is waiting for approval while it is.
// The page is built fresh with Vite into a temp dir, as in inspector.test.ts.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { buildInspector, launchChromium, type BuiltInspector } from './support/chromium.js'
import { defineAgent } from '../src/index.js'
import { startServer, type TestServer } from './harness.js'

const WAIT = 15_000

const helper = defineAgent({
  name: 'helper',
  description: 'Answers and asks before it acts',
  async run(ctx) {
    if (ctx.input.text.includes('act')) {
      const ok = await ctx.approve({ tool: 'act', args: { what: ctx.input.text }, risk: 'low', reasoning: 'It acts' })
      await ctx.say(ok.approved ? 'helper acted' : 'helper did not act')
      return
    }
    await ctx.say(`helper heard: ${ctx.input.text}`)
  },
})

let inspector: BuiltInspector | undefined
let server: TestServer
let browser: Browser

before(async () => {
  inspector = await buildInspector('parlance-inspector-own-')
  server = await startServer({ agents: [helper], inspectorDir: inspector.dir })
  browser = await launchChromium()
})

after(async () => {
  await browser?.close()
  await server?.close()
  server?.removeData()
  inspector?.release()
})

/** Opens the page on `dialect`, recording every failed request and page error. */
async function openPage(dialect: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
  const problems: string[] = []
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`))
  page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`))
  page.setDefaultTimeout(WAIT)
  await page.goto(`${server.url}/?dialect=${dialect}`)
  await page.locator('body[data-ready="true"]').waitFor()
  return { page, problems }
}

async function say(page: Page, text: string, reply: string): Promise<void> {
  await page.getByLabel('Message to the agent').fill(text)
  await page.getByRole('button', { name: 'Send', exact: true }).click()
  await page.locator('#transcript li.msg.assistant[data-done="true"]', { hasText: reply }).first().waitFor()
}

for (const dialect of ['a2a', 'mcp', 'hugai']) {
  test(`${dialect}: the page talks to the served agent, with no request failing`, async () => {
    const { page, problems } = await openPage(dialect)
    try {
      assert.equal(await page.locator('body').getAttribute('data-agent'), 'helper')
      await say(page, 'hello there', 'helper heard: hello there')
      assert.match((await page.locator('label[for="dialect-a2a"] small').textContent()) ?? '', /^POST \/a2a\/helper /)
      if (dialect === 'mcp') assert.match((await page.locator('#dialect-notes').textContent()) ?? '', /the tool ask_helper /)
      // What the dialect carries, as the server lists it (its Capabilities).
      if (dialect === 'hugai')
        assert.match(
          (await page.locator('#dialect-capabilities').textContent()) ?? '',
          /^HugAI carries: JSON-RPC 2\.0 over WebSocket and HTTP POST · whole messages · approvals .* · no resume$/,
        )
      // The demo's triggers are not offered for another agent, nor its hints.
      assert.equal(await page.locator('.quick').isVisible(), false)
      assert.equal(await page.getByLabel('Message to the agent').getAttribute('placeholder'), 'Type a message to helper')
      assert.deepEqual(problems, [])
    } finally {
      await page.close()
    }
  })
}

test('the header says "waiting for approval" while one waits, then the run\'s outcome', async () => {
  for (const dialect of ['hai', 'aisdk']) {
    const { page, problems } = await openPage(dialect)
    try {
      await page.getByLabel('Message to the agent').fill('please act')
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      const dialog = page.getByRole('dialog', { name: /Approve act/ })
      await dialog.waitFor()
      await page.locator('#conn-status', { hasText: 'waiting for approval' }).waitFor()
      assert.doesNotMatch((await page.locator('#conn-status').textContent()) ?? '', /last run/, dialect)
      await dialog.getByRole('button', { name: 'Approve', exact: true }).click()
      await page.locator('#transcript li.msg.assistant[data-done="true"]', { hasText: 'helper acted' }).first().waitFor()
      // The run's outcome as the dialect says it (HAI 'completed', the AI SDK's finish reason), no longer waiting.
      await page.locator('#conn-status', { hasText: /last run: \w/ }).waitFor()
      assert.deepEqual(problems, [], dialect)
    } finally {
      await page.close()
    }
  }
})
