// Issue 47: a node crashed during a rolling restart (found by `npm run bench -- rolling-restart`). It forwarded a
// client's message to the session's writer, which was draining and refused it at once; the refusal reached the
// forwarding node's subscriber connection before its command connection had the PUBLISH reply, so the promise of
// the answer was rejected while nothing awaited it yet: an unhandled rejection, and the process exited. HugAI's
// link between hubs calls other nodes the same way. Here the PUBLISH reply is held back until a macrotask after the
// answer arrived, which makes that order certain.
import assert from 'node:assert/strict'
import { after, test, type TestContext } from 'node:test'
import { Redis } from 'ioredis'
import { createRedisCluster } from '../../src/cluster/redis-cluster.js'
import { ParlanceError } from '../../src/core/index.js'
import { createRedisLink } from '../../src/dialects/hugai/hub/redis-link.js'
import type { LinkHandlers } from '../../src/dialects/hugai/hub/link.js'
import { dropPrefix, REDIS_URL, testPrefix } from '../support/redis.js'

const prefix = testPrefix()
after(() => dropPrefix(prefix))

/** Unhandled rejections while the test runs (none may happen). */
function unhandledDuring(t: TestContext): unknown[] {
  const seen: unknown[] = []
  const record = (reason: unknown) => seen.push(reason)
  process.on('unhandledRejection', record)
  t.after(() => process.off('unhandledRejection', record))
  return seen
}

/**
 * Two Redis connections for nodes a and b. `answerFirst()` (once a's coordinator made its subscriber through
 * duplicate()) holds each PUBLISH reply on a's connection until a macrotask after a's subscriber got an answer.
 */
function connections(t: TestContext) {
  const a = new Redis(REDIS_URL)
  const b = new Redis(REDIS_URL)
  t.after(() => Promise.all([a.quit(), b.quit()]))
  let subA: Redis | undefined
  const duplicate = a.duplicate.bind(a)
  a.duplicate = (...args: Parameters<Redis['duplicate']>) => (subA = duplicate(...args))
  const answerFirst = () => {
    let release = () => {}
    const released = new Promise<void>((resolve) => (release = resolve))
    // Registered after the coordinator's own listener, which has taken the answer by then.
    subA!.on('message', (_channel: string, text: string) => {
      if ((JSON.parse(text) as { t: string }).t === 're') setImmediate(release)
    })
    const publish = a.publish.bind(a)
    a.publish = async (...args: Parameters<Redis['publish']>) => {
      const receivers = await publish(...args)
      await released
      return receivers
    }
  }
  return { a, b, answerFirst }
}

/** One macrotask: an unhandled rejection is reported after the tick it happened in. */
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve))

test('cluster: a forwarded command refused before the PUBLISH reply arrives rejects the forward, and nothing else', async (t) => {
  const unhandled = unhandledDuring(t)
  const redis = connections(t)
  const a = await createRedisCluster({ redis: redis.a, prefix, nodeId: 'a', leaseMs: 1000 })
  const b = await createRedisCluster({ redis: redis.b, prefix, nodeId: 'b', leaseMs: 1000 })
  t.after(() => Promise.all([a.close(), b.close()]))
  // The writer refuses at once, as a draining node does.
  b.onForward(() => Promise.reject(new ParlanceError('unavailable', 'this server is draining for a restart', { draining: true })))
  redis.answerFirst()

  const forwarded = a.forward('b', { sessionId: 's1', principal: 'anonymous', command: { type: 'run.cancel', sessionId: 's1' }, hops: 1 })
  await assert.rejects(forwarded, (e: unknown) => e instanceof ParlanceError && e.code === 'unavailable' && /draining/.test(e.message))
  await nextMacrotask()
  assert.deepEqual(unhandled, [], 'no promise was rejected unhandled')
})

test('HugAI link: a call refused before the PUBLISH reply arrives rejects the call, and nothing else', async (t) => {
  const unhandled = unhandledDuring(t)
  const redis = connections(t)
  const keys = {
    agents: `${prefix}hub:agents`,
    checkpoints: `${prefix}hub:checkpoints`,
    early: `${prefix}hub:early`,
    task: (id: string) => `${prefix}hub:task:${id}`,
    node: (id: string) => `${prefix}hub:node:${id}`,
    all: `${prefix}hub:all`,
  }
  const handlers = (call: LinkHandlers['call']): LinkHandlers => ({ call, push() {}, gone() {}, nodeDown() {}, approvers() {} })
  const a = createRedisLink(redis.a, keys, 'a')
  const b = createRedisLink(redis.b, keys, 'b')
  t.after(() => Promise.all([a.close(), b.close()]))
  await a.install(handlers(() => Promise.resolve(null)))
  await b.install(handlers(() => Promise.reject(new ParlanceError('not_found', 'no task t1 here'))))
  redis.answerFirst()

  const peer = { id: 'p1', principal: 'anonymous', governanceLevel: 'supervised' as const, approver: false, push: false }
  const called = a.call('b', { peer, method: 'task/cancel', params: { taskId: 't1' } })
  await assert.rejects(called, (e: unknown) => e instanceof ParlanceError && e.code === 'not_found')
  await nextMacrotask()
  assert.deepEqual(unhandled, [], 'no promise was rejected unhandled')
})
