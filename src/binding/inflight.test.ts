import assert from 'node:assert/strict'
import { test } from 'node:test'
import { InFlight } from './inflight.js'

test('settled: at once with nothing in flight; once the last frame ends; else at the timeout', async () => {
  const f = new InFlight()
  let done = false
  await f.settled(60_000) // nothing in flight: a long timeout must not hold it
  f.start()
  f.start()
  const waiting = f.settled(60_000).then(() => (done = true))
  f.end()
  await new Promise((r) => setImmediate(r))
  assert.equal(done, false, 'one frame is still in flight')
  f.end()
  await waiting
  assert.equal(f.count, 0)
  f.start()
  const started = Date.now()
  await f.settled(30) // a frame that never ends holds a close for the timeout only
  assert.ok(Date.now() - started >= 25)
  assert.equal(f.count, 1)
})
