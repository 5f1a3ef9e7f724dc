import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import WebSocket from 'ws'
import { startServer } from './harness.js'

const wsUrl = (url: string) => `${url.replace(/^http/, 'ws')}/ws`

async function open(url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  const ws = new WebSocket(wsUrl(url), options)
  await once(ws, 'open')
  return ws
}

test('WebSocket pings are spread over the heartbeat interval, each socket pinged once per interval', async (t) => {
  // 1 s interval: 10 slots of 100 ms. Sockets opened together join the slots in turn, so their pings arrive at
  // ten different ticks, not all in one (which, with 10,000 sockets, stalled the server ~150 ms per interval).
  const s = await startServer({ heartbeatIntervalMs: 1_000 })
  t.after(() => s.close())
  const sockets = await Promise.all(Array.from({ length: 20 }, () => open(s.url)))
  t.after(() => sockets.forEach((ws) => ws.terminate()))
  const pings = sockets.map(() => [] as number[])
  const start = performance.now()
  sockets.forEach((ws, i) => ws.on('ping', () => pings[i]!.push(performance.now() - start)))
  await new Promise((r) => setTimeout(r, 2_600))
  for (const [i, p] of pings.entries()) assert.ok(p.length >= 2 && p.length <= 3, `socket ${i}: ${p.length} pings in 2.6 s with a 1 s interval (${p.map((x) => x.toFixed(0)).join(', ')} ms)`)
  const firsts = pings.map((p) => p[0]!)
  const span = Math.max(...firsts) - Math.min(...firsts)
  assert.ok(span >= 400, `first pings of 20 sockets opened together span ${span.toFixed(0)} ms; spread over the 1 s interval they span ~900`)
  assert.ok(sockets.every((ws) => ws.readyState === WebSocket.OPEN), 'sockets that answer pings stay open')
})

test('a WebSocket peer that stops answering pings is dropped; the others stay', async (t) => {
  const s = await startServer({ heartbeatIntervalMs: 300 })
  t.after(() => s.close())
  const deaf = await open(s.url, { autoPong: false })
  const live = await open(s.url)
  t.after(() => live.terminate())
  const [code] = (await once(deaf, 'close')) as [number]
  assert.equal(code, 1006, 'terminated without a close frame, as a dead peer is')
  assert.equal(live.readyState, WebSocket.OPEN)
  // The live socket is still served after the dead one was dropped.
  const completed = new Promise<void>((resolve) => live.on('message', (data: Buffer) => data.toString().includes('"status":"completed"') && resolve()))
  live.send(JSON.stringify({ type: 'user_message', content: 'count 2', session_id: 'hb-live' }))
  await completed
})
