import type { Redis, RedisOptions } from 'ioredis'
import type { Json, Principal, SessionId, StoredEvent } from '../../core/index.js'
import { StoreConflict } from '../conflict.js'
import { COSTLY_COMMIT_WINDOW_MS, type CommitUnit, type ForkOrigin, type SessionRecord, type SessionSummary, type StoreBackend } from '../types.js'
import { defineCommit } from './commit.js'
import { connectRedis, unreachable, withTimeout } from './connection.js'
import { redisKeys } from './keys.js'

export { connectRedis, redisKeys, StoreConflict, unreachable }
export type { RedisKeys } from './keys.js'

/** Options of the Redis backend. */
export interface RedisStoreOptions {
  /** `redis://host:port/db` (or `rediss://`). @default 'redis://127.0.0.1:6379' */
  url?: string
  /** Prefix of every key this store (and the cluster coordinator) touches. @default 'parlance:' */
  prefix?: string
  /**
   * Approximate cap on each session's stream (`XADD MAXLEN ~ n`); 0 keeps every event. Trimmed events can no
   * longer be replayed, so a client resuming from before the cap gets the events that are left.
   * @default 0
   */
  maxEventsPerSession?: number
  /**
   * Cluster mode: every session a commit touches must be leased to this node (see src/cluster), else the whole
   * commit is refused with a `StoreConflict` and nothing is written. Committed events are also published on
   * the session's channel for the other nodes. Unset: a single writer, no leases.
   */
  nodeId?: string
  /** Cluster mode: the lease time to live, for a lease this node takes back on commit (see commit.ts). @default 5000 */
  leaseMs?: number
  /** Extra ioredis options (timeouts, TLS, …). */
  redis?: RedisOptions
}

/**
 * Redis backend (ioredis). Each session's log is a Redis Stream whose entry ids are the Parlance seqs
 * (`<seq>-0`), so replay is one `XRANGE` from `afterSeq + 1`; its record is a hash; a sorted set orders
 * sessions by update time and a set per owner counts them. A commit unit is one Lua call (see commit.ts); key
 * names and which operations are single-slot: keys.ts.
 */
export function createRedisStore(options: RedisStoreOptions = {}): StoreBackend & { readonly redis: Redis; readonly prefix: string } {
  const prefix = options.prefix ?? 'parlance:'
  const keys = redisKeys(prefix)
  const redis = connectRedis(options.url ?? 'redis://127.0.0.1:6379', options.redis)
  redis.on('error', () => {}) // reported by ping() and failed commands; ioredis reconnects by itself
  const commitUnit = defineCommit(redis, keys, {
    nodeId: options.nodeId ?? '',
    maxEventsPerSession: options.maxEventsPerSession ?? 0,
    leaseMs: options.leaseMs ?? 5000,
  })
  let closed = false

  return {
    kind: 'redis',
    // A commit is a round trip: under load, ticks share one (see StoreBackend.commitWindowMs).
    commitWindowMs: COSTLY_COMMIT_WINDOW_MS,
    ...(options.maxEventsPerSession ? { keepsEvents: options.maxEventsPerSession } : {}),
    redis,
    prefix,
    async commit(unit: CommitUnit) {
      if (closed) throw new Error('redis store is closed')
      await commitUnit(unit)
    },
    async readEvents(sessionId, afterSeq, limit) {
      if (limit <= 0) return []
      const entries = (await unreachable(redis.xrange(keys.log(sessionId), `${afterSeq + 1}-0`, '+', 'COUNT', limit))) as Array<[string, string[]]>
      const out = new Array<StoredEvent>(entries.length)
      for (let i = 0; i < entries.length; i++) out[i] = JSON.parse(entries[i]![1][1]!) as StoredEvent
      return out
    },
    async getSession(id) {
      // One MULTI: the record and the history as one commit left them.
      const replies = await unreachable(redis.multi().hgetall(keys.meta(id)).lrange(keys.history(id), 0, -1).exec())
      if (!replies) throw new Error(`redis: reading session ${id} was aborted`)
      for (const [err] of replies) if (err) throw err
      const h = replies[0]![1] as Record<string, string>
      const list = replies[1]![1] as string[]
      if (h.owner === undefined) return undefined
      return {
        id,
        agent: h.agent ?? '',
        owner: h.owner as Principal,
        createdAt: Number(h.createdAt),
        updatedAt: Number(h.updatedAt),
        lastSeq: Number(h.lastSeq ?? 0),
        activeRunId: h.activeRunId ? h.activeRunId : null,
        state: JSON.parse(h.state ?? '{}') as SessionRecord['state'],
        // A record an older version wrote has no stateSeq: its state was written with every change.
        stateSeq: h.stateSeq !== undefined ? Number(h.stateSeq) : Number(h.lastSeq ?? 0),
        // The list; an older version kept the history whole in meta (its first write here moves it to the list).
        messages: JSON.parse(list.length ? `[${list.join(',')}]` : (h.messages ?? '[]')) as SessionRecord['messages'],
        queue: JSON.parse(h.queue ?? '[]') as SessionRecord['queue'],
        forkedFrom: h.forkedFrom ? (JSON.parse(h.forkedFrom) as ForkOrigin) : null,
      } satisfies SessionRecord
    },
    async listSessions(limit) {
      if (limit <= 0) return []
      const ids = (await unreachable(redis.zrevrange(keys.sessions, 0, limit - 1))) as SessionId[]
      if (ids.length === 0) return []
      const p = redis.pipeline()
      for (const id of ids) p.hmget(keys.meta(id), 'agent', 'owner', 'lastSeq', 'updatedAt', 'activeRunId', 'forkedFrom')
      const rows = (await p.exec()) ?? []
      const out: SessionSummary[] = []
      ids.forEach((id, i) => {
        const [err, v] = rows[i] ?? [null, null]
        const f = (err ? null : v) as Array<string | null> | null
        if (!f || f[1] === null) return
        out.push({
          id,
          agent: f[0] ?? '',
          owner: f[1] as Principal,
          lastSeq: Number(f[2] ?? 0),
          updatedAt: Number(f[3] ?? 0),
          activeRunId: f[4] ? f[4] : null,
          ...(f[5] ? { forkedFrom: JSON.parse(f[5]) as ForkOrigin } : {}),
        })
      })
      return out
    },
    async unfinished(limit) {
      // A scan of every record, a page at a time: used once, when a server starts (not per request).
      const out: Array<{ id: SessionId; owner: Principal }> = []
      const PAGE = 500
      for (let start = 0; out.length < limit; start += PAGE) {
        const ids = (await unreachable(redis.zrange(keys.sessions, start, start + PAGE - 1))) as SessionId[]
        if (ids.length === 0) break
        const p = redis.pipeline()
        for (const id of ids) p.hmget(keys.meta(id), 'owner', 'activeRunId', 'queue')
        const rows = (await p.exec()) ?? []
        ids.forEach((id, i) => {
          const [err, v] = rows[i] ?? [null, null]
          const f = (err ? null : v) as Array<string | null> | null
          if (!f || f[0] === null || out.length >= limit) return
          if (f[1] || (f[2] && f[2] !== '[]')) out.push({ id, owner: f[0] as Principal })
        })
        if (ids.length < PAGE) break
      }
      return out
    },
    async getRecord(scope, key) {
      const v = await unreachable(redis.hget(keys.records(scope), key))
      return v === null ? undefined : (JSON.parse(v) as Json)
    },
    async putRecord(scope, key, value) {
      const m = redis.multi()
      if (value === undefined) m.hdel(keys.records(scope), key).zrem(keys.recordKeys(scope), key)
      else m.hset(keys.records(scope), key, JSON.stringify(value)).zadd(keys.recordKeys(scope), 0, key)
      const replies = await unreachable(m.exec())
      for (const [err] of replies ?? []) if (err) throw err
    },
    async listRecords(scope, afterKey, limit) {
      if (limit <= 0) return []
      const found = await unreachable(redis.zrangebylex(keys.recordKeys(scope), afterKey ? `(${afterKey}` : '-', '+', 'LIMIT', 0, limit))
      if (found.length === 0) return []
      const values = await unreachable(redis.hmget(keys.records(scope), ...found))
      const out: Array<{ key: string; value: Json }> = []
      found.forEach((key, i) => {
        const v = values[i]
        if (v !== null && v !== undefined) out.push({ key, value: JSON.parse(v) as Json })
      })
      return out
    },
    async countSessions(owner) {
      return unreachable(redis.scard(keys.owner(owner)))
    },
    async ping() {
      if (closed) return false
      try {
        return (await withTimeout(redis.ping(), 1000)) === 'PONG'
      } catch {
        return false
      }
    },
    async close() {
      if (closed) return
      closed = true
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}
