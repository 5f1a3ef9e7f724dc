// useStream from @langchain/langgraph-sdk/react in Chromium against Parlance's LangGraph dialect (/langgraph), the
// page (compat/pages/usestream, served by Vite) on another origin than Parlance. Cases: a reply, an approval
// approved and rejected, a reload mid-stream that rejoins the run (`reconnectOnMount`), the thread list (threads
// found by metadata) and switching threads; the same hook configured as Agent Chat UI configures it.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { launchChromium, servePage } from '../lib/browser.mjs'
import { openLangGraphPage, WAIT } from '../lib/chat-page.mjs'
import { CLIENTS } from '../lib/clients.mjs'
import { startParlance } from '../lib/parlance.mjs'

let parlance
let app
let browser

before(async () => {
  parlance = await startParlance()
  app = await servePage('usestream', {
    deps: ['react', 'react/jsx-runtime', 'react/jsx-dev-runtime', 'react-dom/client', '@langchain/langgraph-sdk', '@langchain/langgraph-sdk/react'],
  })
  browser = await launchChromium()
})

after(async () => {
  await browser?.close()
  await app?.close()
  await parlance?.close()
})

/** A fresh page of the app (`ui`: '' or 'agent-chat-ui'), on a new thread (or on `thread`). */
const open = (ui, thread) => openLangGraphPage(browser, app.port, parlance.url, { ...(ui ? { ui } : {}), ...(thread ? { thread } : {}) })

for (const [client, ui] of [
  [CLIENTS.useStream, ''],
  [CLIENTS.agentChatUi, 'agent-chat-ui'],
]) {
  describe(client.title, () => {
    test('chat: a message gets its streamed reply, after the human message', async () => {
      const p = await open(ui)
      try {
        await p.send('hello usestream')
        await p.reply(/^Echo: hello usestream$/)
        await p.idle()
        assert.deepEqual(await p.roles(), ['human: hello usestream', 'ai: Echo: hello usestream'])
        assert.deepEqual(p.errors, [])
      } finally {
        await p.close()
      }
    })

    test('approval: the interrupt shows the HITL request, Approve resumes the run and the tool runs', async () => {
      const p = await open(ui)
      try {
        await p.send('delete the notes')
        const interrupt = p.tab.locator('#interrupt[data-action="delete_file"]')
        await interrupt.waitFor({ timeout: WAIT })
        assert.equal(await interrupt.getAttribute('data-allowed'), 'approve reject')
        await p.tab.locator('#approve').click()
        await p.reply('Done: deleted notes/demo.txt.')
        await p.idle()
        assert.equal(await interrupt.count(), 0)
        // The tool's call and result are messages of the thread.
        assert.deepEqual((await p.roles()).slice(-3), ['ai: ', 'tool: deleted notes/demo.txt', 'ai: Done: deleted notes/demo.txt.'])
      } finally {
        await p.close()
      }
    })

    test('approval: Reject resumes the run with the reason, and the tool does not run', async () => {
      const p = await open(ui)
      try {
        await p.send('delete the notes')
        await p.tab.locator('#interrupt[data-action="delete_file"]').waitFor({ timeout: WAIT })
        await p.tab.locator('#reject').click()
        await p.reply('Not approved, so notes/demo.txt was not deleted. (not today)')
        await p.idle()
        assert.ok(!(await p.roles()).some((r) => r.startsWith('tool:')))
      } finally {
        await p.close()
      }
    })

    test('threads: the thread list finds the threads by graph_id, and opening one shows its history', async () => {
      const a = await open(ui)
      let first
      try {
        await a.send('first thread here')
        await a.reply('Echo: first thread here')
        first = await a.thread()
      } finally {
        await a.close()
      }
      const b = await open(ui)
      try {
        await b.send('second thread here')
        await b.reply('Echo: second thread here')
        await b.idle()
        const item = b.tab.locator(`#threads > li[data-thread="${first}"]`)
        await item.waitFor({ timeout: WAIT })
        assert.equal(await item.textContent(), 'first thread here')
        await item.locator('button').click()
        await b.reply('Echo: first thread here')
        assert.deepEqual(await b.roles(), ['human: first thread here', 'ai: Echo: first thread here'])
      } finally {
        await b.close()
      }
    })

    if (ui)
      test('edit, branch and regenerate: from the checkpoints useStream reads in the thread history (getMessagesMetadata)', async () => {
        const p = await open(ui)
        const li = (role, text) => p.tab.locator(`#messages > li[data-role="${role}"]`, { has: p.tab.locator('.text', { hasText: text }) })
        try {
          await p.send('one')
          await p.reply('Echo: one')
          await p.idle()
          await p.send('two')
          await p.reply('Echo: two')
          await p.idle()
          // Edit "two": a new human message from the checkpoint before it; the old one is a branch of its own.
          await p.tab.locator('#input').fill('two, edited')
          await li('human', /^two$/).locator('.edit').click()
          await p.reply('Echo: two, edited')
          await p.idle()
          assert.deepEqual(await p.roles(), ['human: one', 'ai: Echo: one', 'human: two, edited', 'ai: Echo: two, edited'])
          const edited = li('human', 'two, edited')
          await p.tab.waitForFunction((el) => el.dataset.branches === '2', await edited.elementHandle(), { timeout: WAIT })
          // Agent Chat UI's BranchSwitcher: back to the first branch, which still holds "two" and its answer.
          await edited.locator('.previous-branch').click()
          await p.reply(/^Echo: two$/)
          assert.deepEqual(await p.roles(), ['human: one', 'ai: Echo: one', 'human: two', 'ai: Echo: two'])
          // Regenerate the first answer: the thread is cut back to "one", answered again.
          await li('ai', 'Echo: one').locator('.regenerate').click()
          await p.tab.waitForFunction(() => document.querySelectorAll('#messages > li').length === 2, null, { timeout: WAIT })
          await p.idle()
          assert.deepEqual(await p.roles(), ['human: one', 'ai: Echo: one'])
          assert.deepEqual(p.errors, [])
        } finally {
          await p.close()
        }
      })

    // Agent Chat UI's Stop only drops the stream: its runs go on (`on_disconnect: 'continue'`); with `reconnectOnMount`
    // useStream knows the run's id and cancels it.
    if (!ui)
      test('stop: the run is cancelled on the server, before its end', async () => {
        const p = await open(ui)
        try {
          await p.send('slow please')
          await p.reply(/\b2 /)
          const thread = await p.thread()
          await p.tab.locator('#stop').click()
          await p.idle()
          const url = `${parlance.url}/langgraph/threads/${thread}`
          let t
          for (let i = 0; i < 300 && (t = await (await fetch(url)).json()).status === 'busy'; i++) await new Promise((r) => setTimeout(r, 50))
          assert.equal(t.status, 'idle')
          const said = t.values.messages.filter((m) => m.type === 'ai').map((m) => m.content)
          assert.ok(!said.join('').includes('50'), `cancelled before 50: ${JSON.stringify(said)}`)
        } finally {
          await p.close()
        }
      })

    // Agent Chat UI does not rejoin a run after a reload (no `reconnectOnMount`): it shows the thread's state.
    if (!ui)
      test('reload mid-stream: the reloaded page rejoins the run and shows it to its end, nothing repeated or missing', async () => {
        const p = await open('')
        try {
          // "slow" streams 1 to 50, one number every 100 ms.
          await p.send('slow please')
          await p.reply(/\b3 /)
          const thread = await p.thread()
          // The reloaded page joins the run it kept the id of (GET …/runs/<run>/stream), not just the thread's state.
          const joined = p.tab.waitForRequest((r) => r.method() === 'GET' && /\/langgraph\/threads\/[^/]+\/runs\/[^/]+\/stream/.test(r.url()), {
            timeout: WAIT,
          })
          await p.tab.reload()
          await joined
          await p.tab.locator('#send').waitFor({ timeout: WAIT })
          assert.equal(await p.tab.locator('#thread').textContent(), thread)
          await p.reply(/\b50 $/)
          await p.idle()
          const numbers = Array.from({ length: 50 }, (_, i) => `${i + 1} `).join('')
          assert.deepEqual(await p.roles(), ['human: slow please', `ai: ${numbers}`])
        } finally {
          await p.close()
        }
      })
  })
}
