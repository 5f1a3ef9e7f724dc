// useChat in Chromium, the page (compat/pages/usechat, served by Vite) on another origin than Parlance:
// @ai-sdk/react 3 with ai 6, and @ai-sdk/react 4 with ai 7. Cases: a reply, a server tool, an approval (the tool
// part asks; Approve sends the answer automatically), a reload mid-stream that resumes (`resume: true`), stop.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { launchChromium, servePage } from '../lib/browser.mjs'
import { openChat, WAIT } from '../lib/chat-page.mjs'
import { CLIENTS } from '../lib/clients.mjs'
import { startParlance } from '../lib/parlance.mjs'

let parlance
let app
let browser

before(async () => {
  parlance = await startParlance()
  app = await servePage('usechat', {
    deps: ['react', 'react/jsx-runtime', 'react/jsx-dev-runtime', 'react-dom/client', 'ai-react3', 'ai-react4', 'ai', 'ai7'],
  })
  browser = await launchChromium()
})

after(async () => {
  await browser?.close()
  await app?.close()
  await parlance?.close()
})

/** A fresh page of the app with @ai-sdk/react `v`, on its own chat (or on `chat`, to open one again). */
async function open(v, chat = `chat-${randomUUID()}`) {
  // The page is on localhost:A, Parlance on 127.0.0.1:B: another origin (loopback pages are allowed by default).
  const url = `http://localhost:${app.port}/?v=${v}&chat=${chat}&server=${encodeURIComponent(parlance.url)}`
  const p = await openChat(browser, url, { assistant: '#messages > li[data-role="assistant"] .text' })
  return { ...p, chat, assistant: p.said, status: () => p.tab.locator('#status').textContent() }
}

for (const [client, v] of [
  [CLIENTS.useChat3, '3'],
  [CLIENTS.useChat4, '4'],
]) {
  describe(client.title, () => {
    test('chat: a message gets its streamed reply', async () => {
      const p = await open(v)
      try {
        await p.send('hello usechat')
        await p.reply(/^Echo: hello usechat$/)
      } finally {
        await p.close()
      }
    })

    test('server tool: the tool part completes and the agent answers from it', async () => {
      const p = await open(v)
      try {
        await p.send('weather in Paris')
        await p.reply(/The weather in Paris is cloudy at 18 °C\./)
        await p.tab.locator('li[data-tool="get_weather"][data-state="output-available"]').waitFor({ timeout: WAIT })
      } finally {
        await p.close()
      }
    })

    test('approval: the tool part asks, Approve answers, the tool runs', async () => {
      const p = await open(v)
      try {
        await p.send('delete the notes')
        await p.tab.locator('li[data-tool="delete_file"][data-state="approval-requested"]').waitFor({ timeout: WAIT })
        await p.tab.locator('#approve').click()
        await p.reply(/Done: deleted notes\/demo\.txt\./)
      } finally {
        await p.close()
      }
    })

    test('reload mid-stream: the reloaded page resumes the stream to its end', async () => {
      const p = await open(v)
      try {
        // "slow" streams 1 to 50, one number every 100 ms.
        await p.send('slow please')
        await p.reply(/\b3 /)
        await p.tab.reload()
        await p.tab.locator('#send').waitFor({ timeout: WAIT })
        await p.reply(/\b50 $/)
        assert.match((await p.assistant()).join(''), /^1 2 3 .* 49 50 $/)
      } finally {
        await p.close()
      }
    })

    test('stop: the stream stops before its end', async () => {
      const p = await open(v)
      try {
        await p.send('slow please')
        await p.reply(/\b2 /)
        await p.tab.locator('#stop').click()
        await p.tab.locator('#status', { hasText: 'ready' }).waitFor({ timeout: WAIT })
        const text = (await p.assistant()).join('')
        assert.ok(!text.includes('50'), `stopped before 50: ${text}`)
      } finally {
        await p.close()
      }
    })
  })
}
