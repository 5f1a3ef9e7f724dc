import { Redis, type RedisOptions } from 'ioredis'
import type { Principal, SessionId, StoredEvent } from '../../core/index.js'
import { ParlanceError } from '../../core/index.js'
import { StoreConflict } from '../conflict.js'
import type { CommitUnit, SessionRecord, SessionSummary, StoreBackend, SessionWrite } from '../types.js'
import { redisKeys, type RedisKeys } from './keys.js'

export { redisKeys }

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
  /** Cluster mode: the lease time to live, for a lease this node takes back on commit (see the script). @default 5000 */
  leaseMs?: number
  /** Extra ioredis options (timeouts, TLS, …). */
  redis?: RedisOptions
}

/**
 * One commit unit as one Lua script, so it is atomic like a SQLite transaction: every check (lease, seq
 * continuity) runs before any write. KEYS: the sessions index, the leases index, then per session its record,
 * log and lease (and, with a record, its owner's set). ARGV: nodeId ('' = no fencing), maxlen, leaseMs, group
 * count, then per session: id, event count, has-record flag, its event channel, the events as (seq, json)
 * pairs, the record's 10 fields. Events travel as the JSON the server produced; the script never decodes them.
 */
const COMMIT_LUA = `
local node = ARGV[1]
local maxlen = tonumber(ARGV[2])
local leaseMs = tonumber(ARGV[3])
local ngroups = tonumber(ARGV[4])
local groups = {}
local i = 5
local k = 3
for g = 1, ngroups do
  local grp = { sid = ARGV[i], nev = tonumber(ARGV[i + 1]), chan = ARGV[i + 3], ev = i + 4, meta = KEYS[k], log = KEYS[k + 1], lease = KEYS[k + 2] }
  local hasRec = ARGV[i + 2]
  i = i + 4 + grp.nev * 2
  k = k + 3
  if hasRec == '1' then grp.rec = i; i = i + 10; grp.owner = KEYS[k]; k = k + 1 end
  groups[g] = grp
end
local fenced = {}
local retake = {}
for _, grp in ipairs(groups) do
  local cur = false
  if node ~= '' then cur = redis.call('GET', grp.lease) end
  local last = tonumber(redis.call('HGET', grp.meta, 'logSeq') or '0')
  if node ~= '' and cur and cur ~= node then
    fenced[#fenced + 1] = grp.sid
  elseif grp.nev > 0 and tonumber(ARGV[grp.ev]) ~= last + 1 then
    -- In a cluster, someone else wrote the session meanwhile: the writer must resynchronise, not retry.
    if node == '' then return redis.error_reply('SEQ seq gap in ' .. grp.sid .. ': ' .. last .. ' then ' .. ARGV[grp.ev]) end
    fenced[#fenced + 1] = grp.sid
  elseif node ~= '' and not cur then
    -- Our lease expired (a Redis outage longer than it) and nobody took it: the log shows nobody wrote
    -- since, so this node goes on writing and takes the lease back.
    if grp.nev == 0 and grp.rec and tonumber(ARGV[grp.rec + 4]) ~= last then
      fenced[#fenced + 1] = grp.sid
    else
      retake[#retake + 1] = grp
    end
  end
end
if #fenced > 0 then return redis.error_reply('FENCED ' .. table.concat(fenced, ' ')) end
if #retake > 0 then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  for _, grp in ipairs(retake) do
    redis.call('SET', grp.lease, node, 'PX', leaseMs)
    redis.call('ZADD', KEYS[2], now + leaseMs, grp.sid)
  end
end
for _, grp in ipairs(groups) do
  if grp.nev > 0 then
    local parts = {}
    for n = 0, grp.nev - 1 do
      local at = grp.ev + n * 2
      if maxlen > 0 then
        redis.call('XADD', grp.log, 'MAXLEN', '~', maxlen, ARGV[at] .. '-0', 'e', ARGV[at + 1])
      else
        redis.call('XADD', grp.log, ARGV[at] .. '-0', 'e', ARGV[at + 1])
      end
      parts[n + 1] = ARGV[at + 1]
    end
    redis.call('HSET', grp.meta, 'logSeq', ARGV[grp.ev + (grp.nev - 1) * 2])
    if node ~= '' then redis.call('PUBLISH', grp.chan, '[' .. table.concat(parts, ',') .. ']') end
  end
  if grp.rec then
    local r = grp.rec
    if redis.call('HEXISTS', grp.meta, 'owner') == 0 then
      redis.call('HSET', grp.meta, 'owner', ARGV[r + 1], 'createdAt', ARGV[r + 2], 'state', '{}', 'messages', '[]')
      redis.call('SADD', grp.owner, grp.sid)
    end
    redis.call('HSET', grp.meta, 'agent', ARGV[r], 'updatedAt', ARGV[r + 3], 'lastSeq', ARGV[r + 4], 'activeRunId', ARGV[r + 5])
    if ARGV[r + 6] == '1' then redis.call('HSET', grp.meta, 'state', ARGV[r + 7]) end
    if ARGV[r + 8] == '1' then redis.call('HSET', grp.meta, 'messages', ARGV[r + 9]) end
    redis.call('ZADD', KEYS[1], ARGV[r + 3], grp.sid)
  end
end
return ngroups
`

interface CommitCommand {
  parlanceCommit(...args: Array<string | number>): Promise<number>
}

/** Creates the Redis connection the store and coordinator use: bounded retries per command, reconnect forever. */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, {
    // A command waits through a short outage (the offline queue), then fails clearly instead of hanging;
    // the connection itself keeps reconnecting with backoff.
    maxRetriesPerRequest: 3,
    retryStrategy: (times) => Math.min(2000, 50 * 2 ** Math.min(times, 6)),
    lazyConnect: false,
    ...options,
  })
}

/**
 * Redis backend (ioredis). Each session's log is a Redis Stream whose entry ids are the Parlance seqs
 * (`<seq>-0`), so replay is one `XRANGE` from `afterSeq + 1`; its record is a hash; a sorted set orders
 * sessions by update time and a set per owner counts them. A commit unit is one pipelined Lua call.
 */
export { StoreConflict }

export function createRedisStore(options: RedisStoreOptions = {}): StoreBackend & { readonly redis: Redis; readonly prefix: string } {
  const prefix = options.prefix ?? 'parlance:'
  const keys = redisKeys(prefix)
  const redis = connectRedis(options.url ?? 'redis://127.0.0.1:6379', options.redis)
  redis.on('error', () => {}) // reported by ping() and failed commands; ioredis reconnects by itself
  // The key count varies per unit, so it is passed first on each call (numberOfKeys undefined).
  redis.defineCommand('parlanceCommit', { lua: COMMIT_LUA })
  const commitCmd = redis as unknown as CommitCommand
  const maxlen = options.maxEventsPerSession ?? 0
  const nodeId = options.nodeId ?? ''
  const leaseMs = options.leaseMs ?? 5000
  let closed = false

  return {
    kind: 'redis',
    redis,
    prefix,
    async commit(unit: CommitUnit) {
      if (closed) throw new Error('redis store is closed')
      const args = unitArgs(unit, keys)
      if (args.groups === 0) return
      try {
        await commitCmd.parlanceCommit(args.keys.length, ...args.keys, nodeId, maxlen, leaseMs, args.groups, ...args.argv)
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err)
        if (message.startsWith('FENCED ')) throw new StoreConflict(message.slice(7).split(' '))
        if (message.startsWith('SEQ ')) throw new Error(message.slice(4), { cause: err })
        throw err
      }
    },
    async readEvents(sessionId, afterSeq, limit) {
      if (limit <= 0) return []
      const entries = (await unreachable(redis.xrange(keys.log(sessionId), `${afterSeq + 1}-0`, '+', 'COUNT', limit))) as Array<[string, string[]]>
      const out = new Array<StoredEvent>(entries.length)
      for (let i = 0; i < entries.length; i++) out[i] = JSON.parse(entries[i]![1][1]!) as StoredEvent
      return out
    },
    async getSession(id) {
      const h = await unreachable(redis.hgetall(keys.meta(id)))
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
        messages: JSON.parse(h.messages ?? '[]') as SessionRecord['messages'],
      } satisfies SessionRecord
    },
    async listSessions(limit) {
      if (limit <= 0) return []
      const ids = (await unreachable(redis.zrevrange(keys.sessions, 0, limit - 1))) as SessionId[]
      if (ids.length === 0) return []
      const p = redis.pipeline()
      for (const id of ids) p.hmget(keys.meta(id), 'agent', 'owner', 'lastSeq', 'updatedAt', 'activeRunId')
      const rows = (await p.exec()) ?? []
      const out: SessionSummary[] = []
      ids.forEach((id, i) => {
        const [err, v] = rows[i] ?? [null, null]
        const f = (err ? null : v) as Array<string | null> | null
        if (!f || f[1] === null) return
        out.push({ id, agent: f[0] ?? '', owner: f[1] as Principal, lastSeq: Number(f[2] ?? 0), updatedAt: Number(f[3] ?? 0), activeRunId: f[4] ? f[4] : null })
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

/** The script's keys and arguments for a unit: events grouped per session (checked consecutive here), then records. */
function unitArgs(unit: CommitUnit, k: RedisKeys): { groups: number; keys: string[]; argv: Array<string | number> } {
  const bySession = new Map<SessionId, { events: StoredEvent[]; record?: SessionWrite }>()
  for (const e of unit.events) {
    let g = bySession.get(e.sessionId)
    if (!g) bySession.set(e.sessionId, (g = { events: [] }))
    const prev = g.events[g.events.length - 1]
    if (prev && e.seq !== prev.seq + 1) throw new Error(`seq gap in ${e.sessionId}: ${prev.seq} then ${e.seq}`)
    g.events.push(e)
  }
  for (const r of unit.sessions) {
    const g = bySession.get(r.id)
    if (g) g.record = r
    else bySession.set(r.id, { events: [], record: r })
  }
  const argv: Array<string | number> = []
  const keys = [k.sessions, k.leases]
  for (const [id, g] of bySession) {
    keys.push(k.meta(id), k.log(id), k.lease(id))
    if (g.record) keys.push(k.owner(g.record.owner))
    argv.push(id, g.events.length, g.record ? '1' : '0', k.channel(id))
    for (const e of g.events) argv.push(e.seq, JSON.stringify(e))
    const r = g.record
    if (r) {
      argv.push(
        r.agent,
        r.owner,
        r.createdAt,
        r.updatedAt,
        r.lastSeq,
        r.activeRunId ?? '',
        r.state !== undefined ? '1' : '0',
        r.state !== undefined ? JSON.stringify(r.state) : '',
        r.messages !== undefined ? '1' : '0',
        r.messages !== undefined ? JSON.stringify(r.messages) : '',
      )
    }
  }
  return { groups: bySession.size, keys, argv }
}

/** A Redis command that failed for want of a connection, as the clear error clients get. */
export function unreachable<T>(p: Promise<T>): Promise<T> {
  return p.catch((err: unknown) => {
    if (err instanceof ParlanceError) throw err
    const why = err instanceof Error ? err.message : String(err)
    throw new ParlanceError('unavailable', `the session store (Redis) is unreachable: ${why}; retry shortly`, undefined, { cause: err })
  })
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  )
}
