import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, test } from 'node:test'
import { Redis } from 'ioredis'
import { createRedisCluster } from '../src/cluster/redis-cluster.js'
import type { StoredEvent } from '../src/core/index.js'
import { redisKeys } from '../src/store/redis/keys.js'
import { createRedisStore } from '../src/store/redis/store.js'
import { dropPrefix, REDIS_URL, redisUrlAs, testPrefix } from './support/redis.js'

const prefix = testPrefix()
const user = `parlance-test-${randomUUID().slice(0, 8)}`
const admin = new Redis(REDIS_URL)
after(async () => {
  await admin.call('ACL', 'DELUSER', user)
  await admin.quit()
  await dropPrefix(prefix)
})

const event = (sessionId: string, seq: number): StoredEvent => ({
  type: 'custom',
  name: 'n',
  value: seq,
  sessionId,
  runId: 'run_1',
  seq,
  ts: 1000 + seq,
})

test('redis: a user whose ACL allows only the prefix (keys and channels) runs the store and the cluster coordinator', async () => {
  const all = redisKeys(prefix).all
  await admin.call('ACL', 'SETUSER', user, 'reset', 'on', '>pw', `~${all}`, `&${all}`, '+@all')
  const url = redisUrlAs(user, 'pw')
  const store = createRedisStore({ url, prefix, nodeId: 'node-a', redis: { maxRetriesPerRequest: 0 } })
  const cluster = await createRedisCluster({ redis: store.redis, prefix, nodeId: 'node-a', leaseMs: 1000 })
  try {
    await assert.rejects(store.redis.get('elsewhere'), /NOPERM/, 'the user is held to the prefix')
    assert.equal(await cluster.acquire('s1'), true)
    assert.equal(await cluster.holder('s1'), 'node-a')
    const seen = new Promise<StoredEvent[]>((resolve) => void cluster.watch('s1', resolve))
    await store.commit({
      events: [event('s1', 1), event('s1', 2)],
      sessions: [{ id: 's1', agent: 'echo', owner: 'alice', createdAt: 1, updatedAt: 2, lastSeq: 2, activeRunId: 'run_1', state: {} }],
    })
    assert.deepEqual(
      (await seen).map((e) => e.seq),
      [1, 2],
      'published on the session channel',
    )
    assert.deepEqual(
      (await store.readEvents('s1', 0, 10)).map((e) => e.seq),
      [1, 2],
    )
    assert.equal((await store.getSession('s1'))?.activeRunId, 'run_1')
    assert.deepEqual(
      (await store.listSessions(10)).map((s) => s.id),
      ['s1'],
    )
    assert.equal(await store.countSessions('alice'), 1)
    assert.deepEqual(await cluster.renew(['s1']), [])
    cluster.sharePending('req_1', 's1')
    assert.equal(await cluster.locatePending('req_1'), 's1')
    assert.deepEqual(await cluster.claimOrphans(), [])
    await cluster.release('s1')
    assert.equal(await cluster.holder('s1'), null)
  } finally {
    await cluster.close()
    await store.close()
  }
})
