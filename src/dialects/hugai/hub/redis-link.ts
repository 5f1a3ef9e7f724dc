import type { Redis } from 'ioredis'
import { ERROR_CODES, ParlanceError, toParlanceError, type ErrorCode } from '../../../core/index.js'
import { RpcFailure } from './peer.js'
import type { EarlyDecision, HubLink, LinkAnswer, LinkCall, LinkHandlers, RemoteAgent } from './link.js'
import type { RemoteInfo } from './registry.js'

/** What nodes send each other on their hub channels. */
type Wire =
  | { t: 'call'; rid: number; from: string; call: LinkCall }
  | { t: 're'; rid: number; answer: LinkAnswer }
  | { t: 'push'; peer: string; msg: object }
  | { t: 'gone'; from: string; peer: string }
  | { t: 'approvers'; from: string; principal: string; msg: object; skip: string[] }

/** How often a node with calls waiting on other nodes checks that those nodes still run (ms). */
const LIVENESS_MS = 500
/** How long a node's liveness answer is reused (ms). */
const ALIVE_CACHE_MS = 250
/** A task's location outlives no task: a day bounds what a crashed node leaves. */
const TASK_TTL_S = 86_400

/** KEYS: the hash. ARGV: field, expected value. Deletes the field only if it still holds that value. */
const DELETE_IF = `if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0`
/** KEYS: the hash. ARGV: field, expected value (or '' for none), new value. Sets the field only if it holds the expected value. */
const SET_IF = `local cur = redis.call('HGET', KEYS[1], ARGV[1]) or '' if cur == ARGV[2] then redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) return 1 end return 0`
/** KEYS: the hash. ARGV: field. Returns and removes the field (each early decision is applied once). */
const TAKE = `local v = redis.call('HGET', KEYS[1], ARGV[1]) if v then redis.call('HDEL', KEYS[1], ARGV[1]) end return v`

interface Scripts {
  hugaiDeleteIf(key: string, field: string, expected: string): Promise<number>
  hugaiSetIf(key: string, field: string, expected: string, value: string): Promise<number>
  hugaiTake(key: string, field: string): Promise<string | null>
}

/**
 * The hub's link over Redis: registered agents, open checkpoints and early decisions in hashes every node reads,
 * each task's node in a key, and calls, pushes and notices on a pub/sub channel per node (plus one for all).
 * A node is alive while its hub channel has a subscriber (PUBSUB NUMSUB): a node that stops, or loses Redis,
 * drops its subscription, and the others then skip its agents, fail the calls waiting on it and disconnect the
 * stand-ins of its peers.
 */
/** The hub's Redis names (`redisKeys(prefix).hugai`, src/store/redis/keys.ts, where every key is named). */
export interface HubKeys {
  agents: string
  checkpoints: string
  early: string
  task(taskId: string): string
  node(nodeId: string): string
  all: string
}

export function createRedisLink(redis: Redis, k: HubKeys, nodeId: string): HubLink {
  redis.defineCommand('hugaiDeleteIf', { numberOfKeys: 1, lua: DELETE_IF })
  redis.defineCommand('hugaiSetIf', { numberOfKeys: 1, lua: SET_IF })
  redis.defineCommand('hugaiTake', { numberOfKeys: 1, lua: TAKE })
  const scripts = redis as unknown as Scripts
  const sub = redis.duplicate()
  sub.on('error', () => {}) // ioredis reconnects and resubscribes by itself
  const mine = k.node(nodeId)
  let handlers: LinkHandlers | null = null
  let nextRid = 0
  let closed = false
  const waiting = new Map<number, { node: string; resolve: (v: unknown) => void; reject: (e: unknown) => void }>()
  const aliveCache = new Map<string, { alive: boolean; at: number }>()
  /** Nodes this one has peers' stand-ins for, or calls waiting on: watched for liveness. */
  const watched = new Set<string>()
  let livenessTimer: NodeJS.Timeout | null = null

  const send = (channel: string, msg: Wire) => redis.publish(channel, JSON.stringify(msg))
  // Once closed, this node is gone for the others (no subscriber: they fail what waits on it and drop its peers'
  // stand-ins): nothing more is sent, so an answer finished during shutdown does not race with that verdict.
  const fire = (channel: string, msg: Wire) => void (closed ? undefined : send(channel, msg).catch(() => {}))

  async function alive(node: string): Promise<boolean> {
    if (node === nodeId) return !closed
    const hit = aliveCache.get(node)
    if (hit && Date.now() - hit.at < ALIVE_CACHE_MS) return hit.alive
    const reply = (await redis.call('PUBSUB', 'NUMSUB', k.node(node))) as [string, number]
    const up = Number(reply[1]) > 0
    aliveCache.set(node, { alive: up, at: Date.now() })
    return up
  }

  function watch(node: string): void {
    watched.add(node)
    livenessTimer ??= setInterval(() => void checkWatched(), LIVENESS_MS)
    livenessTimer.unref()
  }

  async function checkWatched(): Promise<void> {
    for (const node of watched) {
      let up: boolean
      try {
        up = await alive(node)
      } catch {
        continue // Redis itself is unreachable: no verdict on the node
      }
      if (up) continue
      watched.delete(node)
      for (const [rid, w] of waiting) {
        if (w.node !== node) continue
        waiting.delete(rid)
        w.reject(new ParlanceError('unavailable', `node ${node} stopped before answering`, { node }))
      }
      handlers?.nodeDown(node)
    }
    if (watched.size === 0 && livenessTimer) {
      clearInterval(livenessTimer)
      livenessTimer = null
    }
  }

  function settle(rid: number, answer: LinkAnswer): void {
    const w = waiting.get(rid)
    if (!w) return
    waiting.delete(rid)
    if ('result' in answer) return w.resolve(answer.result)
    if ('rpc' in answer) return w.reject(new RpcFailure(answer.rpc))
    const code = (ERROR_CODES as readonly string[]).includes(answer.error.code) ? (answer.error.code as ErrorCode) : 'internal'
    w.reject(new ParlanceError(code, answer.error.message, answer.error.details))
  }

  function onCall(msg: Extract<Wire, { t: 'call' }>, h: LinkHandlers): void {
    watch(msg.from)
    const reply = (answer: LinkAnswer) => fire(k.node(msg.from), { t: 're', rid: msg.rid, answer })
    h.call(msg.from, msg.call).then(
      (result) => reply({ result: result ?? null }),
      (err: unknown) => {
        if (err instanceof RpcFailure) return reply({ rpc: err.rpc })
        const e = toParlanceError(err)
        reply({ error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } })
      },
    )
  }

  sub.on('message', (_channel: string, text: string) => {
    let msg: Wire
    try {
      msg = JSON.parse(text) as Wire
    } catch {
      return
    }
    const h = handlers
    if (!h) return
    if (msg.t === 're') settle(msg.rid, msg.answer)
    else if (msg.t === 'call') onCall(msg, h)
    else if (msg.t === 'push') h.push(msg.peer, msg.msg)
    else if (msg.t === 'gone' && msg.from !== nodeId) h.gone(msg.from, msg.peer)
    else if (msg.t === 'approvers' && msg.from !== nodeId) h.approvers(msg.principal, msg.msg, msg.skip)
  })

  async function liveHolder<T extends { node: string }>(raw: string | null): Promise<T | null> {
    if (raw === null) return null
    const v = JSON.parse(raw) as T
    return v.node !== nodeId && (await alive(v.node)) ? v : null
  }

  return {
    nodeId,
    async install(h) {
      handlers = h
      await sub.subscribe(mine, k.all)
    },
    async claimAgent(agentId: string, info: RemoteInfo) {
      const value = JSON.stringify({ node: nodeId, info })
      for (let attempt = 0; attempt < 3; attempt++) {
        const current = await redis.hget(k.agents, agentId)
        if (current !== null) {
          const held = JSON.parse(current) as { node: string }
          if (held.node !== nodeId && (await alive(held.node))) return held.node
        }
        if ((await scripts.hugaiSetIf(k.agents, agentId, current ?? '', value)) === 1) return null
      }
      throw new ParlanceError('conflict', `agent ${agentId} is being registered elsewhere at the same time; retry`, { agentId })
    },
    releaseAgent(agentId: string) {
      void redis
        .hget(k.agents, agentId)
        .then((raw) => (raw !== null && (JSON.parse(raw) as { node: string }).node === nodeId ? scripts.hugaiDeleteIf(k.agents, agentId, raw) : 0))
        .catch(() => {})
    },
    async remoteAgents() {
      const all = await redis.hgetall(k.agents)
      const out: RemoteAgent[] = []
      for (const [agentId, raw] of Object.entries(all)) {
        const v = await liveHolder<{ node: string; info: RemoteInfo }>(raw)
        if (v) out.push({ agentId, node: v.node, info: v.info })
      }
      return out
    },
    async findAgent(agentId: string) {
      const v = await liveHolder<{ node: string; info: RemoteInfo }>(await redis.hget(k.agents, agentId))
      return v && { agentId, node: v.node, info: v.info }
    },
    async placeTask(taskId: string) {
      await redis.set(k.task(taskId), nodeId, 'EX', TASK_TTL_S).catch(() => {})
    },
    forgetTask(taskId: string) {
      void redis.del(k.task(taskId)).catch(() => {})
    },
    async locateTask(taskId: string) {
      const node = await redis.get(k.task(taskId))
      return node !== null && node !== nodeId && (await alive(node)) ? node : null
    },
    async placeCheckpoint(id: string, name: string, owner: string) {
      await redis.hset(k.checkpoints, id, JSON.stringify({ node: nodeId, name, owner })).catch(() => {})
    },
    forgetCheckpoint(id: string) {
      void redis.hdel(k.checkpoints, id).catch(() => {})
    },
    async locateCheckpoint(named: string, owner: string) {
      const byId = await liveHolder<{ node: string }>(await redis.hget(k.checkpoints, named))
      if (byId) return byId.node
      // By name: the checkpoints open anywhere are few (each waits for a human); the oldest raised first.
      for (const raw of Object.values(await redis.hgetall(k.checkpoints))) {
        const v = JSON.parse(raw) as { node: string; name: string; owner: string }
        if (v.name === named && v.owner === owner && v.node !== nodeId && (await alive(v.node))) return v.node
      }
      return null
    },
    async keepEarly(key: string, d: EarlyDecision, max: number) {
      if ((await redis.hlen(k.early)) >= max) {
        // Full: the oldest goes first, as in one node's memory.
        const all = Object.entries(await redis.hgetall(k.early)).map(([f, v]) => [f, (JSON.parse(v) as EarlyDecision).at] as const)
        all.sort((a, b) => a[1] - b[1])
        const drop = all.slice(0, all.length - max + 1).map(([f]) => f)
        if (drop.length) await redis.hdel(k.early, ...drop)
      }
      await redis.hset(k.early, key, JSON.stringify({ ...d, feedback: d.feedback ?? null }))
    },
    async takeEarly(key: string) {
      const raw = await scripts.hugaiTake(k.early, key)
      if (raw === null) return null
      const d = JSON.parse(raw) as EarlyDecision & { feedback: string | null }
      return { ...d, feedback: d.feedback ?? undefined }
    },
    async returnEarly(key: string, d: EarlyDecision) {
      await redis.hsetnx(k.early, key, JSON.stringify({ ...d, feedback: d.feedback ?? null }))
    },
    async call(node: string, call: LinkCall) {
      if (closed) throw new ParlanceError('unavailable', 'this node is shutting down')
      const rid = ++nextRid
      const answered = new Promise<unknown>((resolve, reject) => waiting.set(rid, { node, resolve, reject }))
      // The answer can arrive (on the subscriber connection) before the PUBLISH reply (on this one): a refusal then
      // rejects `answered` before it is returned and awaited, which must not count as an unhandled rejection.
      answered.catch(() => {})
      watch(node)
      let receivers: number
      try {
        receivers = await send(k.node(node), { t: 'call', rid, from: nodeId, call })
      } catch (err) {
        waiting.delete(rid)
        throw new ParlanceError('unavailable', `cannot reach node ${node}: ${(err as Error).message}`, { node })
      }
      if (receivers === 0) {
        waiting.delete(rid)
        throw new ParlanceError('unavailable', `node ${node} is not running`, { node })
      }
      return answered
    },
    push(node: string, peerId: string, msg: object) {
      fire(k.node(node), { t: 'push', peer: peerId, msg })
    },
    gone(peerId: string) {
      fire(k.all, { t: 'gone', from: nodeId, peer: peerId })
    },
    approvers(principal: string, msg: object, skip: string[]) {
      fire(k.all, { t: 'approvers', from: nodeId, principal, msg, skip })
    },
    async close() {
      if (closed) return
      closed = true
      if (livenessTimer) clearInterval(livenessTimer)
      for (const [, w] of waiting) w.reject(new ParlanceError('unavailable', 'this node is shutting down'))
      waiting.clear()
      // Agents registered here leave with the node (their connections close with it anyway).
      const all = await redis.hgetall(k.agents).catch(() => ({}))
      for (const [agentId, raw] of Object.entries(all))
        if ((JSON.parse(raw) as { node: string }).node === nodeId) await scripts.hugaiDeleteIf(k.agents, agentId, raw).catch(() => 0)
      await sub.quit().catch(() => sub.disconnect())
    },
  }
}
