// useStream of @langchain/react 1.x in Chromium against Parlance's LangGraph dialect (/langgraph): the hook speaks
// LangGraph's agent streaming protocol (POST /threads/{id}/commands, POST /threads/{id}/stream/events), not the run
// endpoints. The page (compat/pages/usestream-react, served by Vite) is on another origin than Parlance. Cases: a
// streamed reply, an approval approved and rejected through `respond`, a reload mid-stream that shows the run to
// its end, stop.
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
  app = await servePage('usestream-react', { deps: ['react', 'react/jsx-runtime', 'react/jsx-dev-runtime', 'react-dom/client', '@langchain/react'] })
  browser = await launchChromium()
})

after(async () => {
  await browser?.close()
  await app?.close()
  await parlance?.close()
})

const open = () => openLangGraphPage(browser, app.port, parlance.url)

const threadOf = async (id) => (await fetch(`${parlance.url}/langgraph/threads/${id}`)).json()

describe(CLIENTS.useStreamReact.title, () => {
  test('chat: a message gets its streamed reply over the protocol, after the human message', async () => {
    const p = await open()
    const commands = p.tab.waitForRequest((r) => r.method() === 'POST' && /\/langgraph\/threads\/[^/]+\/commands$/.test(r.url()), { timeout: WAIT })
    try {
      await p.send('hello react')
      assert.equal(JSON.parse((await commands).postData()).method, 'run.start')
      await p.reply(/^Echo: hello react$/)
      await p.idle()
      assert.deepEqual(await p.roles(), ['human: hello react', 'ai: Echo: hello react'])
      assert.deepEqual(p.errors, [])
    } finally {
      await p.close()
    }
  })

  test('approval: stream.interrupt shows the HITL request; respond(approve) resumes the run and the tool runs', async () => {
    const p = await open()
    try {
      await p.send('delete the notes')
      const interrupt = p.tab.locator('#interrupt[data-action="delete_file"]')
      await interrupt.waitFor({ timeout: WAIT })
      assert.equal(await interrupt.getAttribute('data-allowed'), 'approve reject')
      const respond = p.tab.waitForRequest((r) => /\/commands$/.test(r.url()) && JSON.parse(r.postData()).method === 'input.respond', {
        timeout: WAIT,
      })
      await p.tab.locator('#approve').click()
      await respond
      await p.reply('Done: deleted notes/demo.txt.')
      await p.idle()
      assert.equal(await interrupt.count(), 0)
      const t = await threadOf(await p.thread())
      assert.deepEqual(
        t.values.messages.filter((m) => m.type === 'tool').map((m) => m.content),
        ['deleted notes/demo.txt'],
      )
      assert.deepEqual(p.errors, [])
    } finally {
      await p.close()
    }
  })

  test('approval: respond(reject) resumes the run with the reason, and the tool does not run', async () => {
    const p = await open()
    try {
      await p.send('delete the notes')
      await p.tab.locator('#interrupt[data-action="delete_file"]').waitFor({ timeout: WAIT })
      await p.tab.locator('#reject').click()
      await p.reply('Not approved, so notes/demo.txt was not deleted. (not today)')
      await p.idle()
      const t = await threadOf(await p.thread())
      assert.ok(!t.values.messages.some((m) => m.type === 'tool'))
    } finally {
      await p.close()
    }
  })

  test('reload mid-stream: the reloaded page shows the run streaming on to its end, nothing repeated or missing', async () => {
    const p = await open()
    try {
      // "slow" streams 1 to 50, one number every 100 ms.
      await p.send('slow please')
      await p.reply(/\b3 /)
      const thread = await p.thread()
      const rejoined = p.tab.waitForRequest((r) => r.method() === 'POST' && /\/stream\/events$/.test(r.url()), { timeout: WAIT })
      await p.tab.reload()
      await rejoined
      await p.tab.locator('#send').waitFor({ timeout: WAIT })
      assert.equal(await p.tab.locator('#thread').textContent(), thread)
      await p.reply(/\b50 $/)
      const numbers = Array.from({ length: 50 }, (_, i) => `${i + 1} `).join('')
      assert.deepEqual(await p.roles(), ['human: slow please', `ai: ${numbers}`])
    } finally {
      await p.close()
    }
  })

  test('stop: the run is cancelled on the server, before its end', async () => {
    const p = await open()
    try {
      await p.send('slow please')
      await p.reply(/\b2 /)
      const thread = await p.thread()
      await p.tab.locator('#stop').click()
      await p.idle()
      let t
      for (let i = 0; i < 300 && (t = await threadOf(thread)).status === 'busy'; i++) await new Promise((r) => setTimeout(r, 50))
      assert.equal(t.status, 'idle')
      const said = t.values.messages.filter((m) => m.type === 'ai').map((m) => m.content)
      assert.ok(!said.join('').includes('50'), `cancelled before 50: ${JSON.stringify(said)}`)
    } finally {
      await p.close()
    }
  })
})
