// Issue 22, finding 6: on shutdown a live client streaming a run got only the close frame (1001); the
// interrupted error the README promises "in their dialect" was recorded after its subscription was detached,
// so it appeared only after reconnecting. Now the store is flushed (and the error delivered) before detaching.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startServer } from '../harness.js'

test('a HAI client streaming a run sees the interrupted error before the server closes its socket', async () => {
  const s = await startServer()
  const c = await s.hai({ sessionId: `shutdown-${Date.now()}`, resumeAfter: -1 })
  c.say('slow')
  await c.next('assistant_message_chunk')
  await s.close()
  const closed = await c.closed
  assert.equal(closed.code, 1001, 'closed as going away')
  const error = c.received.find((m) => m.type === 'error')
  assert.ok(error, `an error frame before the close; got ${c.received.map((m) => m.type).join(', ')}`)
  assert.equal(error.type === 'error' && error.error_code, 'interrupted')
  const last = c.received.at(-1)
  assert.ok(last?.type === 'status' && last.status === 'completed', 'the run ends for the client (status completed after the error)')
})
