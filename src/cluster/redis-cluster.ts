import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { Redis } from 'ioredis'
import { ERROR_CODES, ParlanceError, toParlanceError, type ErrorCode, type SessionId, type StoredEvent } from '../core/index.js'
import type { ClusterPort, ForwardedCommand, ForwardOutcome } from '../session/cluster.js'
import { unreachable } from '../store/redis/connection.js'
import { redisKeys } from '../store/redis/keys.js'

/** Options of the Redis cluster coordinator. */
export interface RedisClusterOptions {
  /** The command connection (the Redis store's); a second connection is made for pub/sub. */
  redis: Redis
  /** Key prefix, the store's. */
  prefix: string
  /** This node's id, unique in the cluster. @default `${hostname}-${pid}-${random}` */
  nodeId?: string
  /** Lease time to live (ms): how long a dead node's runs stay unclaimed. @default 5000 */
  leaseMs?: number
  /** How long a forwarded command waits for the writer's answer. @default 5000 */
  forwardTimeoutMs?: number
}

/** Redis TIME in ms, inside scripts, so every node scores leases on one clock. */
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`

// Every script gets the keys it touches in KEYS (names from store/redis/keys.ts); ARGV holds values only. A lease
// script touches the session's lease (and record) plus the global leases index, so only EXPIRED is single-slot
// (keys.ts says why that stays so, and what it means for Redis Cluster).

/** KEYS: the session's lease, the leases index. ARGV: node, ms, session id. Takes the lease if free (or already ours). */
const ACQUIRE = `${NOW}
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[3])
return 1`

/**
 * KEYS: the session's lease, the leases index. ARGV: node, ms, session id. Extends a lease still ours, and takes
 * back one that expired while nobody else took it (a Redis outage longer than the lease): 1; held by another
 * node: 0. (Had another node written meanwhile and let go, our next commit is refused by its seq check and we
 * resynchronise.)
 */
const RENEW = `${NOW}
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] or not cur then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[3])
  return 1
end
return 0`

/** KEYS: the session's lease, the leases index. ARGV: node, session id. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[2])
  return 1
end
return 0`

/** KEYS: the leases index. Up to 64 session ids whose lease expiry (by Redis's clock) has passed. */
const EXPIRED = `${NOW}
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 64)`

/**
 * KEYS: the leases index, the session's lease, its record. ARGV: node, ms, session id. A lease past its score:
 * still held → rescored (0); gone and the record shows an active run → the run's node died: claimed for this
 * node (1); gone otherwise → forgotten (0). Atomic per session, so two nodes never claim the same run.
 */
const CLAIM = `${NOW}
local ttl = redis.call('PTTL', KEYS[2])
if ttl > 0 then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
  return 0
end
local run = redis.call('HGET', KEYS[3], 'activeRunId')
if run and run ~= '' then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  return 1
end
redis.call('ZREM', KEYS[1], ARGV[3])
return 0`

/**
 * KEYS: the session's confirming hash. ARGV: node, +1 or -1. Counts the node's subscribers that confirm delivery;
 * a node at 0 is removed; the hash lives a day past its last change (what a crashed node leaves goes by itself).
 */
const CONFIRMING = `
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
if n <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
redis.call('EXPIRE', KEYS[1], 86400)
return n`

/** How long a node's liveness (a subscriber on its command channel) is taken as known (ms). */
const ALIVE_CACHE_MS = 1000

interface Scripts {
  parlanceConfirming(...args: Array<string | number>): Promise<number>
  parlanceAcquire(...args: Array<string | number>): Promise<number>
  parlanceRenew(...args: Array<string | number>): Promise<number>
  parlanceRelease(...args: Array<string | number>): Promise<number>
  parlanceExpired(...args: Array<string | number>): Promise<string[]>
  parlanceClaim(...args: Array<string | number>): Promise<number>
}

type Message =
  | { t: 'cmd'; rid: number; from: string; f: ForwardedCommand }
  | { t: 're'; rid: number; outcome?: ForwardOutcome; error?: { code: string; message: string; details?: Record<string, unknown> } }

/** The node that holds a lease did not answer: it stopped, and its lease will expire. */
function nodeUnreachable(nodeId: string, why: string): ParlanceError {
  return new ParlanceError(
    'unavailable',
    `the node writing this session (${nodeId}) ${why}; another node takes over once its lease expires — retry shortly`,
    {
      nodeId,
      unreachable: true,
    },
  )
}

/**
 * The cluster seam over Redis: leases are keys with a TTL (plus a sorted set of expiries, so orphaned runs
 * are found without scanning), committed events reach replicas on a channel per session (published by the
 * store's commit script, atomically with the write), and forwarded commands travel on a channel per node.
 */
export async function createRedisCluster(options: RedisClusterOptions): Promise<ClusterPort> {
  const { redis, prefix } = options
  const keys = redisKeys(prefix)
  const nodeId = options.nodeId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`
  const leaseMs = options.leaseMs ?? 5000
  const forwardTimeoutMs = options.forwardTimeoutMs ?? 5000
  for (const [name, lua, numberOfKeys] of [
    ['parlanceAcquire', ACQUIRE, 2],
    ['parlanceRenew', RENEW, 2],
    ['parlanceRelease', RELEASE, 2],
    ['parlanceExpired', EXPIRED, 1],
    ['parlanceClaim', CLAIM, 3],
    ['parlanceConfirming', CONFIRMING, 1],
  ] as const) {
    redis.defineCommand(name, { numberOfKeys, lua })
  }
  const scripts = redis as unknown as Scripts

  const sub = redis.duplicate()
  sub.on('error', () => {}) // ioredis reconnects and resubscribes by itself
  const watchers = new Map<string, (events: StoredEvent[]) => void>()
  const replies = new Map<number, { resolve: (o: ForwardOutcome) => void; reject: (e: unknown) => void; timer: NodeJS.Timeout }>()
  let onForward: ((f: ForwardedCommand) => Promise<ForwardOutcome>) | null = null
  let onReconnect: (() => void) | null = null
  let nextRid = 0
  let closed = false
  const aliveAt = new Map<string, { alive: boolean; at: number }>()
  /** Is `node` running? Its command channel has a subscriber while it does (cached briefly). */
  async function alive(node: string): Promise<boolean> {
    const hit = aliveAt.get(node)
    if (hit && Date.now() - hit.at < ALIVE_CACHE_MS) return hit.alive
    const [, count] = (await redis.call('PUBSUB', 'NUMSUB', keys.node(node))) as [string, number]
    const up = Number(count) > 0
    aliveAt.set(node, { alive: up, at: Date.now() })
    return up
  }
  const myChannel = keys.node(nodeId)

  const answer = (to: string, msg: Message) => void redis.publish(keys.node(to), JSON.stringify(msg)).catch(() => {})

  sub.on('message', (channel: string, text: string) => {
    if (channel === myChannel) {
      let msg: Message
      try {
        msg = JSON.parse(text) as Message
      } catch {
        return
      }
      if (msg.t === 're') {
        const r = replies.get(msg.rid)
        if (!r) return
        replies.delete(msg.rid)
        clearTimeout(r.timer)
        if (msg.error) {
          const code = (ERROR_CODES as readonly string[]).includes(msg.error.code) ? (msg.error.code as ErrorCode) : 'internal'
          r.reject(new ParlanceError(code, msg.error.message, msg.error.details))
        } else r.resolve(msg.outcome ?? { before: 0, seq: 0, runId: null })
        return
      }
      const { rid, from, f } = msg
      if (!onForward) return answer(from, { t: 're', rid, error: { code: 'unavailable', message: `node ${nodeId} is starting` } })
      onForward(f).then(
        (outcome) => answer(from, { t: 're', rid, outcome }),
        (err: unknown) => {
          const e = toParlanceError(err)
          answer(from, { t: 're', rid, error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } })
        },
      )
      return
    }
    const watcher = watchers.get(channel)
    if (!watcher) return
    try {
      watcher(JSON.parse(text) as StoredEvent[])
    } catch {
      // A malformed message: the replica fills the gap from the store on the next one.
    }
  })
  let readyOnce = false
  sub.on('ready', () => {
    if (readyOnce) onReconnect?.()
    readyOnce = true
  })
  await sub.subscribe(myChannel)

  return {
    nodeId,
    leaseMs,
    async acquire(id: SessionId) {
      return (await unreachable(scripts.parlanceAcquire(keys.lease(id), keys.leases, nodeId, leaseMs, id))) === 1
    },
    async holder(id: SessionId) {
      return unreachable(redis.get(keys.lease(id)))
    },
    async release(id: SessionId) {
      await scripts.parlanceRelease(keys.lease(id), keys.leases, nodeId, id)
    },
    async renew(ids: readonly SessionId[]) {
      // One script per session (its own keys), pipelined: one round trip for the lot.
      const lost: SessionId[] = []
      for (let i = 0; i < ids.length; i += 500) {
        const batch = ids.slice(i, i + 500)
        const p = redis.pipeline() as unknown as Scripts & { exec(): Promise<Array<[Error | null, unknown]> | null> }
        for (const id of batch) void p.parlanceRenew(keys.lease(id), keys.leases, nodeId, leaseMs, id)
        const res = (await unreachable(p.exec())) ?? []
        batch.forEach((id, j) => {
          const [err, kept] = res[j] ?? [new Error('no reply'), 0]
          if (err) throw err
          if (kept !== 1) lost.push(id)
        })
      }
      return lost
    },
    async claimOrphans() {
      const expired = (await unreachable(scripts.parlanceExpired(keys.leases))) as SessionId[]
      const claimed: SessionId[] = []
      for (const id of expired)
        if ((await unreachable(scripts.parlanceClaim(keys.leases, keys.lease(id), keys.meta(id), nodeId, leaseMs, id))) === 1) claimed.push(id)
      return claimed
    },
    async forward(to: string, f: ForwardedCommand) {
      if (closed) throw new ParlanceError('unavailable', 'this node is shutting down')
      const rid = ++nextRid
      const outcome = new Promise<ForwardOutcome>((resolve, reject) => {
        const timer = setTimeout(() => {
          replies.delete(rid)
          reject(nodeUnreachable(to, `did not answer within ${forwardTimeoutMs} ms`))
        }, forwardTimeoutMs)
        replies.set(rid, { resolve, reject, timer })
      })
      // The answer can arrive (on the subscriber connection) before the PUBLISH reply (on this one): a refusal then
      // rejects `outcome` before it is returned and awaited, which must not count as an unhandled rejection.
      outcome.catch(() => {})
      const forget = () => {
        const r = replies.get(rid)
        replies.delete(rid)
        if (r) clearTimeout(r.timer)
      }
      let receivers: number
      try {
        receivers = await unreachable(redis.publish(keys.node(to), JSON.stringify({ t: 'cmd', rid, from: nodeId, f } satisfies Message)))
      } catch (err) {
        forget()
        throw err
      }
      if (receivers === 0) {
        forget()
        throw nodeUnreachable(to, 'is not connected')
      }
      return outcome
    },
    onForward(handler) {
      onForward = handler
    },
    async watch(id: SessionId, onEvents) {
      const channel = keys.channel(id)
      watchers.set(channel, onEvents)
      await unreachable(sub.subscribe(channel))
    },
    unwatch(id: SessionId) {
      const channel = keys.channel(id)
      if (watchers.delete(channel)) void sub.unsubscribe(channel).catch(() => {})
    },
    sharePending(id: string, sessionId: SessionId | null) {
      // A day bounds what a crashed writer leaves behind; a stale entry only leads to a not_found answer.
      const op = sessionId === null ? redis.del(keys.pending(id)) : redis.set(keys.pending(id), sessionId, 'EX', 86_400)
      void op.catch(() => {})
    },
    async locatePending(id: string) {
      return await redis.get(keys.pending(id))
    },
    confirming(id: SessionId, delta: 1 | -1) {
      void scripts.parlanceConfirming(keys.confirming(id), nodeId, delta).catch(() => {})
    },
    async confirmingElsewhere(id: SessionId) {
      const counts = await redis.hgetall(keys.confirming(id))
      for (const [node, n] of Object.entries(counts)) if (node !== nodeId && Number(n) > 0 && (await alive(node))) return true
      return false
    },
    onReconnect(handler) {
      onReconnect = handler
    },
    async close() {
      if (closed) return
      closed = true
      for (const [, r] of replies) {
        clearTimeout(r.timer)
        r.reject(new ParlanceError('unavailable', 'this node is shutting down'))
      }
      replies.clear()
      await sub.quit().catch(() => sub.disconnect())
    },
  }
}
