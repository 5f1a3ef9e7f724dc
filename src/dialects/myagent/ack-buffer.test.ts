import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AckBuffer, ParkedBuffers, restamp } from './ack-buffer.js'
import { view } from './encode.js'
import { signState, verifyState } from './signed-state.js'

test('AckBuffer: holds unacked events, replays exactly those after last_seq, knows what it no longer covers', () => {
  const b = new AckBuffer(3, 10)
  b.add(11, ['a'])
  b.add(12, []) // an event with no frame (message.user)
  b.add(13, ['b1', 'b2'])
  assert.deepEqual(b.after(10), ['a', 'b1', 'b2'])
  assert.deepEqual(b.after(12), ['b1', 'b2'])
  assert.deepEqual(b.after(13), [])
  assert.equal(b.after(9), null, 'before the buffer started')
  assert.equal(b.after(14), null, 'ahead of it')
  b.ack(11)
  assert.equal(b.size, 1)
  assert.equal(b.after(10), null, 'acked events are gone')
  assert.deepEqual(b.after(11), ['b1', 'b2'])
  b.add(14, ['c'])
  b.add(15, ['d'])
  b.add(16, ['e']) // over the bound: 13 dropped
  assert.equal(b.size, 3)
  assert.equal(b.after(12), null)
  assert.deepEqual(b.after(13), ['c', 'd', 'e'])
  assert.equal(b.lastSeq, 16)
})

test('restamp rewrites the base connection_id only', () => {
  const f = JSON.stringify({ session_id: 's', connection_id: 'conn_a', event: 'x', content: '"connection_id":"conn_a"', metadata: {} })
  const g = JSON.parse(restamp(f, 'conn_a', 'conn_b')) as { connection_id: string; content: string }
  assert.equal(g.connection_id, 'conn_b')
  assert.equal(g.content, '"connection_id":"conn_a"')
})

test('ParkedBuffers: taken once, by the owner only, gone after the window', async () => {
  const parked = new ParkedBuffers(40)
  const p = { principal: 'alice', connectionId: 'conn_a', buffer: new AckBuffer(10, 0), view: view('conn_a', 's') }
  parked.park('s', p)
  assert.equal(parked.take('s', 'mallory'), undefined)
  assert.equal(parked.take('s', 'alice')?.connectionId, 'conn_a')
  assert.equal(parked.take('s', 'alice'), undefined)
  parked.park('s', p)
  await new Promise((r) => setTimeout(r, 80))
  assert.equal(parked.take('s', 'alice'), undefined)
})

test('signed state: round trip; altered, foreign, expired or malformed exports are refused', () => {
  const secret = Buffer.from('k1')
  const now = Date.parse('2026-01-01T00:00:00Z')
  const token = signState(
    secret,
    { session_id: 's', agent: 'demo', last_seq: 5, state: { a: 1 }, history: [{ role: 'user', content: 'hi' }] as never },
    24 * 3600_000,
    now,
  )
  const s = verifyState(secret, token, now + 1000)
  assert.equal(s.session_id, 's')
  assert.equal(s.expires_at, '2026-01-02T00:00:00.000Z')
  assert.throws(() => verifyState(secret, token, now + 24 * 3600_000 + 1), /expired/)
  assert.throws(() => verifyState(Buffer.from('k2'), token, now), /bad signature/)
  const [body, sig] = token.split('.') as [string, string]
  const edited = Buffer.from(JSON.stringify({ ...s, last_seq: 99 })).toString('base64url')
  assert.throws(() => verifyState(secret, `${edited}.${sig}`, now), /bad signature/)
  assert.throws(() => verifyState(secret, `${body}.${sig}x`, now), /bad signature/)
  assert.throws(() => verifyState(secret, 'nodot', now), /malformed/)
  assert.throws(() => verifyState(secret, `${body}.${sig}.x`, now), /malformed/)
})
