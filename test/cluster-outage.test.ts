import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { Redis } from 'ioredis'
import { textOf } from '../src/client/index.js'
import { redisKeys } from '../src/store/redis/keys.js'
import { createRedisStore } from '../src/store/redis/store.js'
import { verifyHaiStream } from './hai-lifecycle.js'
import { startServer } from './harness.js'
import { dropPrefix, REDIS_ADDRESS, REDIS_URL, redisUrlThrough, testPrefix } from './support/redis.js'
import { tcpProxy } from './support/tcp-proxy.js'
import { waitFor } from './support/wait.js'

const prefix = testPrefix()
after(() => dropPrefix(prefix))

const health = async (url: string) => {
  const res = await fetch(`${url}/healthz`)
  return { status: res.status, body: (await res.json()) as { status: string; store: { ok: boolean } } }
}

test('Redis outage: clear errors, /healthz degraded, the server and its connections stay up; after it, everything resumes and nothing is lost', async (t) => {
  const proxy = await tcpProxy([REDIS_ADDRESS])
  t.after(() => proxy.close())
  const node = await startServer({ store: redisUrlThrough(proxy.port), cluster: { prefix, nodeId: 'solo', leaseMs: 1000 } })
  t.after(() => node.close())
  const c = await node.hai()
  c.say('hello')
  assert.equal(textOf(await c.untilCompleted()), 'Echo: hello')

  // A run streams while Redis goes away for longer than the lease: its events wait (write before send), are
  // committed once Redis is back, and reach the client in order — none lost, none twice.
  c.say('slow')
  await c.next('assistant_message_chunk')
  proxy.cut()
  const down = await health(node.url)
  assert.deepEqual([down.status, down.body.status, down.body.store.ok], [503, 'degraded', false])
  // A new session needs the store: a clear `unavailable` error, the connection stays open.
  const other = await node.hai()
  other.say('anyone there?')
  const err = await other.next('error', 20_000)
  assert.equal(err.error_code, 'unavailable')
  assert.match(err.message, /Redis\) is unreachable|store/i)
  // Longer than the lease: Redis itself (reached directly, not through the cut proxy) has let it expire.
  const redis = new Redis(REDIS_URL)
  t.after(() => redis.quit())
  await waitFor(async () => (await redis.exists(redisKeys(prefix).lease(c.sessionId))) === 0, {
    what: "the session's lease to expire in Redis",
    timeoutMs: 10_000,
  })
  proxy.restore()

  const rest = await c.untilCompleted(30_000)
  assert.ok(
    rest.some((m) => m.type === 'assistant_message_chunk'),
    'the stream went on after the outage',
  )
  assert.ok(!rest.some((m) => m.type === 'error'), `the run was not cut short: ${JSON.stringify(rest.filter((m) => m.type === 'error'))}`)
  verifyHaiStream(c.received)
  assert.equal((await health(node.url)).status, 200)
  // The log has no gap and holds exactly what the client got.
  const store = createRedisStore({ url: REDIS_URL, prefix })
  t.after(() => store.close())
  const stored = await store.readEvents(c.sessionId, 0, 100_000)
  assert.deepEqual(
    stored.map((e) => e.seq),
    Array.from({ length: stored.length }, (_, i) => i + 1),
  )
  const deltas = stored.flatMap((e) => (e.type === 'text.delta' ? [e.delta] : [])).join('')
  assert.equal(textOf(c.received), deltas, 'every stored chunk reached the client exactly once')
  // …and the session goes on; the client that got the error may simply retry.
  c.say('hello again')
  assert.equal(textOf(await c.untilCompleted()), 'Echo: hello again')
  other.say('anyone there?')
  assert.equal(textOf(await other.untilCompleted()), 'Echo: anyone there?')
})
