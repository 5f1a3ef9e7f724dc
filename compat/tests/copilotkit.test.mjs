// CopilotKit with Parlance as its AG-UI agent, as a user runs it: a React page (compat/pages/copilotkit, built
// with Vite) in Chromium, using @copilotkit/react-core's v1 hooks or its v2 hooks, talking to the CopilotKit
// runtime (its v2 API, in this process) whose agent is an HttpAgent (the @ag-ui/client CopilotKit pins) on
// Parlance's /agui. Each case opens a fresh page (a new thread) and works the UI: type, send, read the messages,
// click Approve or Reject on the card the interrupt hook renders.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { after, before, describe, test } from 'node:test'
import { CopilotRuntime } from '@copilotkit/runtime/v2'
import { createCopilotNodeListener } from '@copilotkit/runtime/v2/node'
import { launchChromium, servePage } from '../lib/browser.mjs'
import { openChat, WAIT } from '../lib/chat-page.mjs'
import { CLIENTS } from '../lib/clients.mjs'
import { startParlance } from '../lib/parlance.mjs'

// The HttpAgent of the @ag-ui/client the runtime itself depends on (0.0.59), not the suite's 1.0.
const runtimeAgUi = join(import.meta.dirname, '..', 'node_modules', '@copilotkit', 'runtime', 'node_modules', '@ag-ui', 'client', 'dist', 'index.mjs')
const { HttpAgent } = await import(pathToFileURL(runtimeAgUi).href)

let parlance
let app
let browser

before(async () => {
  parlance = await startParlance()
  const runtime = new CopilotRuntime({ agents: { default: new HttpAgent({ url: `${parlance.url}/agui` }) } })
  const listener = createCopilotNodeListener({ runtime, basePath: '/api/copilotkit', activateChannels: false })
  app = await servePage('copilotkit', {
    deps: ['react', 'react/jsx-runtime', 'react/jsx-dev-runtime', 'react-dom/client', '@copilotkit/react-core', '@copilotkit/react-core/v2', 'zod'],
    prefix: '/api/copilotkit',
    handler: listener,
  })
  browser = await launchChromium()
})

after(async () => {
  await browser?.close()
  await app?.close()
  await parlance?.close()
})

/** A fresh page of the app with `ui` hooks. */
async function open(ui) {
  const p = await openChat(browser, `http://127.0.0.1:${app.port}/?ui=${ui}`)
  return {
    ...p,
    async approvalShown() {
      await p.tab.locator('#approval').waitFor({ timeout: WAIT })
      return p.tab.locator('#approval-message').textContent()
    },
  }
}

for (const [client, ui] of [
  [CLIENTS.copilotV1, 'v1'],
  [CLIENTS.copilotV2, 'v2'],
]) {
  describe(client.title, () => {
    test('chat: a message gets its streamed reply', async () => {
      const p = await open(ui)
      try {
        await p.send('hello copilot')
        await p.reply('Echo: hello copilot')
      } finally {
        await p.close()
      }
    })

    test('approval shown, then approved: the tool runs and the chat goes on', async () => {
      const p = await open(ui)
      try {
        await p.send('delete the notes')
        assert.equal(await p.approvalShown(), 'You asked me to delete the demo notes file.')
        await p.tab.locator('#approve').click()
        await p.reply('Done: deleted notes/demo.txt.')
        await p.tab.locator('#approval').waitFor({ state: 'detached', timeout: WAIT })
        await p.send('hello after the approval')
        await p.reply('Echo: hello after the approval')
      } finally {
        await p.close()
      }
    })

    test('approval rejected: the tool does not run', async () => {
      const p = await open(ui)
      try {
        await p.send('delete the notes')
        await p.approvalShown()
        await p.tab.locator('#reject').click()
        await p.reply('Not approved, so notes/demo.txt was not deleted.')
        assert.ok(!(await p.said()).some((t) => t.startsWith('Done:')), 'nothing was deleted')
      } finally {
        await p.close()
      }
    })

    test('two approvals in one thread', async () => {
      const p = await open(ui)
      try {
        for (const i of [1, 2]) {
          await p.send(`delete the notes (${i})`)
          await p.approvalShown()
          await p.tab.locator('#approve').click()
          await p.tab.locator('#approval').waitFor({ state: 'detached', timeout: WAIT })
          await p.tab.waitForFunction(
            (n) =>
              [...document.querySelectorAll('#messages li[data-role="assistant"]')].filter((li) => li.textContent === 'Done: deleted notes/demo.txt.')
                .length >= n,
            i,
            { timeout: WAIT },
          )
        }
      } finally {
        await p.close()
      }
    })

    test("shared state: the agent's state reaches the page", async () => {
      const p = await open(ui)
      try {
        await p.send('state')
        await p.reply('State updated: counter is 1.')
        await p.tab.locator('#state', { hasText: '{"counter":1}' }).waitFor({ timeout: WAIT })
      } finally {
        await p.close()
      }
    })

    test('frontend tool: the agent calls it, the page runs it, the agent uses its result', async () => {
      const p = await open(ui)
      try {
        await p.send('client info please')
        await p.reply(`Client info: ${JSON.stringify({ app: 'copilotkit', ui })}`)
        assert.equal(await p.tab.locator('#tool-runs').textContent(), '1')
      } finally {
        await p.close()
      }
    })
  })
}
