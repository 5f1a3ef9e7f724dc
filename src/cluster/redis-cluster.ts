import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { Redis } from 'ioredis'
import { ERROR_CODES, ParlanceError, toParlanceError, type ErrorCode, type SessionId, type StoredEvent } from '../core/index.js'
import type { ClusterPort, ForwardedCommand, ForwardOutcome } from '../session/cluster.js'
import { redisKeys, unreachable } from '../store/redis.js'

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

/** ARGV: lease key, leases zset, node, ms, session id. Takes the lease if free (or already ours). */
const ACQUIRE = `${NOW}
local cur = redis.call('GET', ARGV[1])
if cur and cur ~= ARGV[3] then return 0 end
redis.call('SET', ARGV[1], ARGV[3], 'PX', ARGV[4])
redis.call('ZADD', ARGV[2], now + tonumber(ARGV[4]), ARGV[5])
return 1`

/**
 * ARGV: prefix, node, ms, ids… Extends the leases still ours, and takes back one that expired while nobody
 * else took it (a Redis outage longer than the lease); returns the ids held by another node. (Had another
 * node written meanwhile and let go, our next commit is refused by its seq check and we resynchronise.)
 */
const RENEW = `${NOW}
local lost = {}
for i = 4, #ARGV do
  local key = ARGV[1] .. 's:{' .. ARGV[i] .. '}:lease'
  local cur = redis.call('GET', key)
  if cur == ARGV[2] or not cur then
    redis.call('SET', key, ARGV[2], 'PX', ARGV[3])
    redis.call('ZADD', ARGV[1] .. 'leases', now + tonumber(ARGV[3]), ARGV[i])
  else
    lost[#lost + 1] = ARGV[i]
  end
end
return lost`

/** ARGV: lease key, leases zset, node, session id. */
const RELEASE = `
if redis.call('GET', ARGV[1]) == ARGV[3] then
  redis.call('DEL', ARGV[1])
  redis.call('ZREM', ARGV[2], ARGV[4])
  return 1
end
return 0`

/**
 * ARGV: prefix, node, ms. Leases past their score: still held → rescored; gone and the session's record
 * shows an active run → the run's node died: claimed for this node (returned); gone otherwise → forgotten.
 */
const CLAIM = `${NOW}
local zset = ARGV[1] .. 'leases'
local ids = redis.call('ZRANGEBYSCORE', zset, '-inf', now, 'LIMIT', 0, 64)
local out = {}
for _, sid in ipairs(ids) do
  local base = ARGV[1] .. 's:{' .. sid .. '}:'
  local ttl = redis.call('PTTL', base .. 'lease')
  if ttl > 0 then
    redis.call('ZADD', zset, now + ttl, sid)
  else
    local run = redis.call('HGET', base .. 'meta', 'activeRunId')
    if run and run ~= '' then
      redis.call('SET', base .. 'lease', ARGV[2], 'PX', ARGV[3])
      redis.call('ZADD', zset, now + tonumber(ARGV[3]), sid)
      out[#out + 1] = sid
    else
      redis.call('ZREM', zset, sid)
    end
  end
end
return out`

interface Scripts {
  parlanceAcquire(...args: Array<string | number>): Promise<number>
  parlanceRenew(...args: Array<string | number>): Promise<string[]>
  parlanceRelease(...args: Array<string | number>): Promise<number>
  parlanceClaim(...args: Array<string | number>): Promise<string[]>
}

type Message =
  | { t: 'cmd'; rid: number; from: string; f: ForwardedCommand }
  | { t: 're'; rid: number; outcome?: ForwardOutcome; error?: { code: string; message: string; details?: Record<string, unknown> } }

/** The node that holds a lease did not answer: it stopped, and its lease will expire. */
function nodeUnreachable(nodeId: string, why: string): ParlanceError {
  return new ParlanceError('unavailable', `the node writing this session (${nodeId}) ${why}; another node takes over once its lease expires — retry shortly`, {
    nodeId,
    unreachable: true,
  })
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
  for (const [name, lua] of [
    ['parlanceAcquire', ACQUIRE],
    ['parlanceRenew', RENEW],
    ['parlanceRelease', RELEASE],
    ['parlanceClaim', CLAIM],
  ] as const) {
    redis.defineCommand(name, { numberOfKeys: 0, lua })
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
        }
        else r.resolve(msg.outcome ?? { before: 0, seq: 0, runId: null })
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
      const lost: SessionId[] = []
      for (let i = 0; i < ids.length; i += 500) {
        lost.push(...((await scripts.parlanceRenew(prefix, nodeId, leaseMs, ...ids.slice(i, i + 500))) as SessionId[]))
      }
      return lost
    },
    async claimOrphans() {
      return (await unreachable(scripts.parlanceClaim(prefix, nodeId, leaseMs))) as SessionId[]
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
      return (await redis.get(keys.pending(id))) as SessionId | null
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
