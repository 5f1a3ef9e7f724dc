import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import WebSocket from 'ws'
import { startServer } from './harness.js'
import { waitFor } from './support/wait.js'

const wsUrl = (url: string) => `${url.replace(/^http/, 'ws')}/ws`

async function open(url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  const ws = new WebSocket(wsUrl(url), options)
  await once(ws, 'open')
  return ws
}

test('WebSocket pings are spread over the heartbeat interval, each socket pinged once per interval (an injected clock)', async (t) => {
  // 1 s interval: 10 slots, one ticked every 100 ms. Sockets opened one after another join the slots in turn, so
  // each tick pings one slot's sockets and not all of them at once (which, with 10,000 sockets, stalled the
  // server ~150 ms per interval: bench/heartbeat.ts measures that stall). The heartbeat's timer is driven here by
  // node:test's mock clock, tick by tick, so nothing depends on how fast this machine is.
  t.mock.timers.enable({ apis: ['setInterval'] })
  const s = await startServer({ heartbeatIntervalMs: 1_000 })
  t.after(() => s.close())
  const sockets: WebSocket[] = []
  for (let i = 0; i < 20; i++) sockets.push(await open(s.url))
  t.after(() => sockets.forEach((ws) => ws.terminate()))
  const pings = sockets.map(() => 0)
  sockets.forEach((ws, i) => ws.on('ping', () => pings[i]!++))
  // Socket i sits in slot i % 10: tick k pings slot k % 10, both of its sockets and no other.
  const expected = (ticks: number) => sockets.map((_, i) => Math.floor(ticks / 10) + (i % 10 < ticks % 10 ? 1 : 0))
  for (let k = 1; k <= 20; k++) {
    t.mock.timers.tick(100)
    const want = expected(k)
    await waitFor(() => pings.every((n, i) => n >= want[i]!), { what: `the pings of tick ${k}` })
    assert.deepEqual(pings, want, `after tick ${k}: each slot pinged in its turn, one slot per tick`)
  }
  assert.ok(
    sockets.every((ws) => ws.readyState === WebSocket.OPEN),
    'sockets that answer pings stay open',
  )
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
  const completed = new Promise<void>((resolve) =>
    live.on('message', (data: Buffer) => data.toString().includes('"status":"completed"') && resolve()),
  )
  live.send(JSON.stringify({ type: 'user_message', content: 'count 2', session_id: 'hb-live' }))
  await completed
})
