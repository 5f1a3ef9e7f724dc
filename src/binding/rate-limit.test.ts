import assert from 'node:assert/strict'
import { test } from 'node:test'
import { RateLimiter } from './rate-limit.js'

const limits = { connectionRatePerSec: 10, connectionBurst: 3, principalRatePerSec: 100, principalBurst: 5 }

test('a connection gets its burst, then rate_limited with a retry hint, then tokens refill', async () => {
  const admit = new RateLimiter(limits).forConnection('alice')
  assert.deepEqual([admit(), admit(), admit()], [null, null, null])
  const err = admit()
  assert.equal(err?.code, 'rate_limited')
  assert.ok(Number(err?.details?.retryAfterMs) > 0 && Number(err?.details?.retryAfterMs) <= 100)
  await new Promise((r) => setTimeout(r, 120))
  assert.equal(admit(), null)
})

test("a principal's connections share one bucket; other principals are unaffected", () => {
  const rl = new RateLimiter(limits)
  const a1 = rl.forConnection('alice')
  const a2 = rl.forConnection('alice')
  const b = rl.forConnection('bob')
  const results = [a1(), a1(), a1(), a2(), a2(), a2()].map((e) => e?.code ?? 'ok')
  assert.deepEqual(results, ['ok', 'ok', 'ok', 'ok', 'ok', 'rate_limited'])
  assert.equal(b(), null)
})

test('rate 0 disables a bucket', () => {
  const admit = new RateLimiter({ connectionRatePerSec: 0, connectionBurst: 0, principalRatePerSec: 0, principalBurst: 0 }).forConnection('x')
  for (let i = 0; i < 1000; i++) assert.equal(admit(), null)
})
