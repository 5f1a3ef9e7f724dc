// Tokens out of URLs in a real browser (issue 46): Chromium's WebSocket cannot set headers, so it offers the
// token as the parlance.bearer subprotocol; the server reads it, answers the non-secret `parlance.bearer` (a
// browser fails a handshake whose answer names a protocol it did not offer, or none when it offered some), and
// refuses a wrong token with close 4401.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearerProtocols } from '../../src/client/socket.js'
import { launchChromium } from '../support/chromium.js'
import { startServer } from '../harness.js'

interface Outcome {
  protocol?: string
  first?: string
  closed?: number
  error?: boolean
}

test('Chromium: a WebSocket authenticated by the parlance.bearer subprotocol streams a reply; a wrong token is closed 4401', async (t) => {
  const s = await startServer({ auth: { token: 'br0wser token' } })
  t.after(() => s.close())
  const browser = await launchChromium()
  t.after(() => browser.close())
  const page = await browser.newPage()
  await page.goto(`${s.url}/healthz`) // a page on the server's own (loopback) origin
  const open = (protocols: string[]) =>
    page.evaluate(
      ({ url, protocols }) =>
        new Promise<Outcome>((resolve) => {
          const ws = new WebSocket(url, protocols)
          const out: Outcome = {}
          ws.onopen = () => {
            out.protocol = ws.protocol
            ws.send(JSON.stringify({ type: 'user_message', content: 'hello', session_id: `b-${Date.now()}` }))
          }
          ws.onmessage = (ev) => {
            out.first = String(ev.data)
            ws.close()
          }
          ws.onerror = () => (out.error = true)
          ws.onclose = (ev) => resolve({ ...out, closed: ev.code })
        }),
      { url: `${s.url.replace('http', 'ws')}/ws`, protocols },
    )
  const ok = await open(bearerProtocols('br0wser token'))
  assert.equal(ok.protocol, 'parlance.bearer', JSON.stringify(ok))
  assert.match(ok.first ?? '', /"type":"(assistant_message_chunk|status)"/)
  const wrong = await open(bearerProtocols('wrong'))
  assert.equal(wrong.closed, 4401, JSON.stringify(wrong))
})
