import assert from 'node:assert/strict'
import { test } from 'node:test'
import { io, type Socket } from 'socket.io-client'
import type { HumaServerEvent } from '../src/client/index.js'
import { humaServer, watch } from './huma-support.js'
import { waitFor } from './support/wait.js'

// Fan-out: sockets of one session that share an encoding share its Socket.IO serialization too (each frame is
// encoded once per batch, as Socket.IO's adapter does for a broadcast); every socket still gets every frame,
// over WebSocket and over HTTP long-polling alike.

test('three sockets on one session (two WebSocket, one long-polling) receive the same frames, in order', async (t) => {
  const opened: Socket[] = []
  // First: a server-side close of a polling socket waits for its next poll.
  t.after(() => {
    for (const c of opened) c.close()
  })
  const s = await humaServer()
  t.after(() => s.close())
  const tab1 = await s.huma({ sessionId: 'fan' })
  const tab2 = await s.huma({ sessionId: 'fan' })
  const polled: HumaServerEvent[] = []
  const polling = io(s.url, { auth: { sessionId: 'fan' }, transports: ['polling'], reconnection: false, forceNew: true })
  opened.push(polling)
  polling.on('event', (e: HumaServerEvent) => polled.push(e))
  await new Promise<void>((resolve, reject) => {
    polling.once('session', () => resolve())
    polling.once('connect_error', reject)
  })
  assert.equal(polling.io.engine.transport.name, 'polling')
  const w = await watch(s, 'fan')
  tab1.contextUpdate('send a burst')
  for (const tab of [tab1, tab2]) {
    for (let i = 0; i < 3; i++) await tab.nextMessaging('message_sent')
    await tab.nextMessaging('typing_end')
  }
  assert.equal((await w.runEnd()).type, 'run.finished')
  const ended = (e: HumaServerEvent) => e.type === 'messaging' && e.event === 'typing_end'
  await waitFor(() => polled.some(ended), { what: 'typing_end over long-polling' })
  const upTo = (list: readonly HumaServerEvent[]) => list.slice(0, list.findIndex(ended) + 1)
  const expected = upTo(tab1.received)
  assert.ok(expected.filter((e) => e.type === 'messaging' && e.event === 'message_sent').length === 3)
  assert.deepEqual(upTo(tab2.received), expected)
  assert.deepEqual(upTo(polled), expected)
  polling.close()
  const session = await s.server.sessions.open('fan', 'anonymous')
  await waitFor(() => session.subscriberKeys().filter((k) => k.startsWith('huma:')).length === 2, { what: 'the polling socket detached' })
})
