import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HumaClient, textOf } from '../src/client/index.js'
import { startServer } from './harness.js'

test('HAI: a burst over the connection rate limit is answered rate_limited, nothing runs for it, and the socket stays usable', async (t) => {
  const s = await startServer({ limits: { connectionRatePerSec: 5, connectionBurst: 2 } })
  t.after(() => s.close())
  const c = await s.hai()
  // Two unknown-type frames (cheap to answer, each admitted before it is even decoded), then a message over the limit.
  for (let i = 0; i < 2; i++) c.sendRaw({ type: 'nope' })
  c.say('must not run')
  const codes = [(await c.next('error')).error_code, (await c.next('error')).error_code, (await c.next('error')).error_code]
  assert.deepEqual(codes, ['unknown_type', 'unknown_type', 'rate_limited'])
  const limited = c.received.at(-1)!
  const retryAfterMs = Number((limited as { details?: { retryAfterMs?: number } }).details?.retryAfterMs)
  assert.ok(retryAfterMs > 0 && retryAfterMs <= 200, `retry hint ${retryAfterMs} ms at 5 frames/s`)
  // Time passing is what refills the bucket: waiting out the server's own hint (not a guess) is the behaviour
  // under test, and a slow machine only lets more time pass.
  // eslint-disable-next-line no-restricted-syntax -- a token refill is the passage of time itself
  await new Promise((r) => setTimeout(r, retryAfterMs + 5))
  c.say('still here')
  assert.equal(textOf(await c.untilCompleted()), 'Echo: still here')
  // Nothing ran for the refused message: the log holds the one message that was admitted, and its run alone.
  const log = await s.log(c.sessionId)
  assert.deepEqual(
    log.flatMap((e) => (e.type === 'message.user' ? [e.content] : [])),
    ['still here'],
  )
  assert.equal(log.filter((e) => e.type === 'run.started').length, 1, 'one run: the admitted message’s')
})

test("the principal's bucket is shared: a second connection does not buy a fresh burst", async (t) => {
  const s = await startServer({ limits: { connectionRatePerSec: 100, connectionBurst: 100, principalRatePerSec: 1, principalBurst: 2 } })
  t.after(() => s.close())
  const a = await s.hai()
  const b = await s.hai()
  a.sendRaw({ type: 'nope' })
  a.sendRaw({ type: 'nope' })
  await a.next('error')
  await a.next('error')
  b.sendRaw({ type: 'nope' })
  assert.equal((await b.next('error')).error_code, 'rate_limited')
})

test('HUMA: events over the rate limit get a RATE_LIMITED error and change nothing', async (t) => {
  const s = await startServer({ limits: { connectionRatePerSec: 1, connectionBurst: 1, typingMsPerChar: 0 } })
  t.after(() => s.close())
  const c = await HumaClient.connect({ url: s.url })
  t.after(() => c.close())
  c.socket.emit('message', { type: 'context-update', triggering: false, name: 'a', context: {}, description: 'first' })
  c.socket.emit('message', { type: 'context-update', triggering: false, name: 'b', context: {}, description: 'second' })
  const err = await c.nextError()
  assert.equal(err.code, 'RATE_LIMITED')
  const session = await s.server.sessions.open(c.sessionId, 'anonymous')
  await s.server.sessions.store.flush()
  const recorded = (await s.server.sessions.store.read(session.id, 0, 100)).filter((e) => e.type === 'context.update')
  assert.deepEqual(
    recorded.map((e) => (e.type === 'context.update' ? e.name : '')),
    ['a'],
  )
})

test('maxConcurrentRuns: input beyond the limit is unavailable until a run ends; interrupting your own run is always allowed', async (t) => {
  const s = await startServer({ limits: { maxConcurrentRuns: 1 } })
  t.after(() => s.close())
  const a = await s.hai()
  const b = await s.hai()
  a.say('slow')
  await a.next('assistant_message_chunk')
  b.say('hello')
  const err = await b.next('error')
  assert.equal(err.error_code, 'unavailable')
  assert.match(String(err.message), /limit of 1 agent runs/)
  // Replacing a's own run does not need a new slot.
  a.say('hello again')
  assert.equal((await a.next('error')).error_code, 'interrupted')
  await a.untilCompleted() // the interrupted run's end
  assert.match(textOf(await a.untilCompleted()), /Echo: hello again/)
  b.say('hello')
  await b.untilCompleted()
})

test('maxSessionsPerPrincipal: creating one more session than allowed is refused; existing ones keep working', async (t) => {
  const s = await startServer({ limits: { maxSessionsPerPrincipal: 2 } })
  t.after(() => s.close())
  const first = await s.hai({ sessionId: 'one' })
  first.say('hi')
  await first.untilCompleted()
  const second = await s.hai({ sessionId: 'two' })
  second.say('hi')
  await second.untilCompleted()
  await s.server.sessions.store.flush()
  const third = await s.hai({ sessionId: 'three' })
  third.say('hi')
  const err = await third.next('error')
  assert.equal(err.error_code, 'rate_limited')
  assert.match(String(err.message), /2 sessions/)
  first.say('again')
  await first.untilCompleted()
})
