import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { createRedisStore, StoreConflict, redisKeys } from '../src/store/redis/store.js'
import { ev, rec, runStoreContract } from './store-contract.js'
import { dropPrefix, REDIS_URL, testPrefix } from './support/redis.js'

/** Every test uses its own key prefix under this one, and everything under it is deleted at the end. */
const root = testPrefix()
let n = 0
const prefix = (): string => `${root}${++n}:`
after(() => dropPrefix(root))

runStoreContract('redis', () => Promise.resolve(createRedisStore({ url: REDIS_URL, prefix: prefix() })))

test('redis store: the log is a Redis Stream whose entry ids are the seqs, trimmed when asked', async () => {
  const p = prefix()
  const store = createRedisStore({ url: REDIS_URL, prefix: p, maxEventsPerSession: 100 })
  try {
    const events = Array.from({ length: 1000 }, (_, i) => ev('s1', i + 1))
    await store.commit({ events, sessions: [rec('s1', { lastSeq: 1000 })] })
    const first = (await store.redis.xrange(redisKeys(p).log('s1'), '-', '+', 'COUNT', 1)) as Array<[string, string[]]>
    const len = await store.redis.xlen(redisKeys(p).log('s1'))
    assert.ok(len >= 100 && len < 1000, `trimmed to about 100 (${len})`)
    assert.match(first[0]![0], /^\d+-0$/)
    const tail = await store.readEvents('s1', 995, 10)
    assert.deepEqual(
      tail.map((e) => e.seq),
      [996, 997, 998, 999, 1000],
    )
  } finally {
    await store.close()
  }
})

test('redis store: in cluster mode a commit is refused whole unless this node holds each session lease', async () => {
  const p = prefix()
  const keys = redisKeys(p)
  const store = createRedisStore({ url: REDIS_URL, prefix: p, nodeId: 'node-a' })
  try {
    await store.redis.set(keys.lease('s1'), 'node-a', 'PX', 10_000)
    await store.redis.set(keys.lease('s2'), 'node-b', 'PX', 10_000)
    await assert.rejects(
      store.commit({ events: [ev('s1', 1), ev('s2', 1)], sessions: [rec('s1', { lastSeq: 1 }), rec('s2', { lastSeq: 1 })] }),
      (err: unknown) => err instanceof StoreConflict && err.sessionIds.join() === 's2',
    )
    assert.deepEqual(await store.readEvents('s1', 0, 10), [], 'nothing of the refused unit was written')
    await store.commit({ events: [ev('s1', 1)], sessions: [rec('s1', { lastSeq: 1 })] })
    assert.equal((await store.readEvents('s1', 0, 10)).length, 1)
  } finally {
    await store.close()
  }
})

test('redis store: ping is false and commits fail clearly while Redis is unreachable', async () => {
  const store = createRedisStore({ url: 'redis://127.0.0.1:1', prefix: prefix(), redis: { maxRetriesPerRequest: 0, retryStrategy: () => 200 } })
  try {
    assert.equal(await store.ping(), false)
    await assert.rejects(store.commit({ events: [ev('s1', 1)], sessions: [] }), /ECONNREFUSED|Connection is closed|MaxRetriesPerRequest/)
  } finally {
    await store.close()
  }
})

test('redis store: a history is a list a turn appends to; one an older version kept whole in the record is read, then written whole once', async () => {
  const p = prefix()
  const keys = redisKeys(p)
  const store = createRedisStore({ url: REDIS_URL, prefix: p })
  const m = (id: string) => ({ id, role: 'user' as const, content: `content of ${id}` })
  try {
    await store.commit({ events: [], sessions: [rec('s1', { messages: [m('a'), m('b')] })] })
    await store.commit({ events: [], sessions: [rec('s1', { messages: [m('a'), m('b'), m('c')], messagesKept: 2 })] })
    assert.deepEqual(
      await store.redis.lrange(keys.history('s1'), 0, -1),
      [m('a'), m('b'), m('c')].map((x) => JSON.stringify(x)),
    )
    // As an older version left s2: the history whole in the record's `messages` field, no list.
    await store.commit({ events: [], sessions: [rec('s2')] })
    await store.redis.hset(keys.meta('s2'), 'messages', JSON.stringify([m('x'), m('y')]))
    assert.deepEqual((await store.getSession('s2'))?.messages, [m('x'), m('y')])
    // A write that keeps those two finds no list to keep them in: the unit (s1's turn with it) is sent again
    // with s2's history whole; nothing is lost on either session.
    await store.commit({
      events: [ev('s1', 1)],
      sessions: [
        rec('s1', { lastSeq: 1, messages: [m('a'), m('b'), m('c'), m('d')], messagesKept: 3 }),
        rec('s2', { messages: [m('x'), m('y'), m('z')], messagesKept: 2 }),
      ],
    })
    assert.deepEqual((await store.getSession('s2'))?.messages, [m('x'), m('y'), m('z')])
    assert.equal(await store.redis.hget(keys.meta('s2'), 'messages'), '[]')
    assert.equal(await store.redis.llen(keys.history('s2')), 3)
    assert.deepEqual(
      (await store.getSession('s1'))?.messages.map((x) => x.id),
      ['a', 'b', 'c', 'd'],
    )
    assert.deepEqual(
      (await store.readEvents('s1', 0, 10)).map((e) => e.seq),
      [1],
      'the retried unit wrote its events once',
    )
  } finally {
    await store.close()
  }
})
