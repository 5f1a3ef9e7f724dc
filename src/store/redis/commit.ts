import type { Redis } from 'ioredis'
import type { SessionId, StoredEvent } from '../../core/index.js'
import { StoreConflict } from '../conflict.js'
import type { CommitUnit, SessionWrite } from '../types.js'
import type { RedisKeys } from './keys.js'

/**
 * One commit unit as one Lua script, so it is atomic like a SQLite transaction: every check (lease, seq
 * continuity) runs before any write. KEYS: the sessions index, the leases index, then per session its record,
 * log and lease (and, with a record, its owner's set and its history). ARGV: nodeId ('' = no fencing), maxlen,
 * leaseMs, group count, then per session: id, event count, has-record flag, its event channel, the events as
 * (seq, json) pairs, the record's 16 fields, then the history's new messages (their count is field 11). Events
 * and messages travel as the JSON the server produced; the script never decodes them. A history write keeps the
 * first `kept` entries of the list and appends the rest; a list shorter than that (a session an older version
 * wrote, whose history is meta's `messages`) refuses the unit with HISTORY before anything is written, and the
 * unit is sent again writing those histories whole.
 * It is cross-slot (the global indexes, and every session of the unit): why it stays one script is in keys.ts.
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
  if hasRec == '1' then grp.rec = i; i = i + 16 + tonumber(ARGV[i + 10]); grp.owner = KEYS[k]; grp.hist = KEYS[k + 1]; k = k + 2 end
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
local behind = {}
for _, grp in ipairs(groups) do
  if grp.rec and ARGV[grp.rec + 8] == '1' then
    local kept = tonumber(ARGV[grp.rec + 9])
    if kept > 0 and redis.call('LLEN', grp.hist) < kept then behind[#behind + 1] = grp.sid end
  end
end
if #behind > 0 then return redis.error_reply('HISTORY ' .. table.concat(behind, ' ')) end
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
      redis.call('HSET', grp.meta, 'owner', ARGV[r + 1], 'createdAt', ARGV[r + 2], 'state', '{}', 'stateSeq', '0', 'messages', '[]')
      redis.call('SADD', grp.owner, grp.sid)
    end
    -- A record an older version wrote has no stateSeq: its state was current at its lastSeq (before this write).
    if redis.call('HEXISTS', grp.meta, 'stateSeq') == 0 then redis.call('HSET', grp.meta, 'stateSeq', redis.call('HGET', grp.meta, 'lastSeq') or '0') end
    redis.call('HSET', grp.meta, 'agent', ARGV[r], 'updatedAt', ARGV[r + 3], 'lastSeq', ARGV[r + 4], 'activeRunId', ARGV[r + 5])
    if ARGV[r + 6] == '1' then redis.call('HSET', grp.meta, 'state', ARGV[r + 7]) end
    if ARGV[r + 15] ~= '' then redis.call('HSET', grp.meta, 'stateSeq', ARGV[r + 15]) end
    if ARGV[r + 8] == '1' then
      local kept = tonumber(ARGV[r + 9])
      if kept == 0 then
        redis.call('DEL', grp.hist)
        redis.call('HSET', grp.meta, 'messages', '[]')
      else
        redis.call('LTRIM', grp.hist, 0, kept - 1)
      end
      for m = r + 16, r + 15 + tonumber(ARGV[r + 10]) do redis.call('RPUSH', grp.hist, ARGV[m]) end
    end
    if ARGV[r + 11] == '1' then redis.call('HSET', grp.meta, 'queue', ARGV[r + 12]) end
    if ARGV[r + 13] == '1' then redis.call('HSET', grp.meta, 'forkedFrom', ARGV[r + 14]) end
    redis.call('ZADD', KEYS[1], ARGV[r + 3], grp.sid)
  end
end
return ngroups
`

/** How the commit script fences and trims. */
export interface CommitOptions {
  /** This node's id, '' for a single writer (no lease fencing). */
  nodeId: string
  /** Approximate cap on each session's stream; 0 keeps every event. */
  maxEventsPerSession: number
  /** Lease time to live (ms), for a lease the script takes back. */
  leaseMs: number
}

interface CommitCommand {
  parlanceCommit(...args: Array<string | number>): Promise<number>
}

/**
 * Defines the commit script on `redis` and returns the function that writes one unit with it. The key count
 * varies with the unit, so it is declared on each call (ioredis passes the first argument as `numberOfKeys`):
 * 2 + 3 or 4 per session, never 0.
 */
export function defineCommit(redis: Redis, keys: RedisKeys, options: CommitOptions): (unit: CommitUnit) => Promise<void> {
  redis.defineCommand('parlanceCommit', { lua: COMMIT_LUA })
  const cmd = redis as unknown as CommitCommand
  const { nodeId, maxEventsPerSession, leaseMs } = options
  const send = async (unit: CommitUnit, whole: ReadonlySet<string>): Promise<void> => {
    const args = unitArgs(unit, keys, whole)
    if (args.groups === 0) return
    await cmd.parlanceCommit(args.keys.length, ...args.keys, nodeId, maxEventsPerSession, leaseMs, args.groups, ...args.argv)
  }
  return async (unit) => {
    try {
      try {
        await send(unit, NONE)
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err)
        // Histories an older version kept in meta (nothing was written): this time they are written whole.
        if (message.startsWith('HISTORY ')) await send(unit, new Set(message.slice(8).split(' ')))
        else throw err
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      if (message.startsWith('FENCED ')) throw new StoreConflict(message.slice(7).split(' '))
      if (message.startsWith('SEQ ')) throw new Error(message.slice(4), { cause: err })
      throw err
    }
  }
}

const NONE: ReadonlySet<string> = new Set()

/**
 * The script's keys and arguments for a unit: events grouped per session (checked consecutive here), then
 * records; the histories of the sessions in `whole` are written whole, whatever their write says it kept.
 */
function unitArgs(unit: CommitUnit, k: RedisKeys, whole: ReadonlySet<string>): { groups: number; keys: string[]; argv: Array<string | number> } {
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
    if (g.record) keys.push(k.owner(g.record.owner), k.history(id))
    argv.push(id, g.events.length, g.record ? '1' : '0', k.channel(id))
    for (const e of g.events) argv.push(e.seq, JSON.stringify(e))
    const r = g.record
    if (r) {
      const kept = r.messages === undefined || whole.has(id) ? 0 : Math.min(r.messagesKept ?? 0, r.messages.length)
      const state = r.stateJson ?? (r.state !== undefined ? JSON.stringify(r.state) : undefined)
      // With a state, its seq (absent: lastSeq); alone, a newer seq the stored state is still current at; '' leaves it.
      const stateSeq = state !== undefined ? (r.stateSeq ?? r.lastSeq) : (r.stateSeq ?? '')
      const added = r.messages === undefined ? 0 : r.messages.length - kept
      argv.push(
        r.agent,
        r.owner,
        r.createdAt,
        r.updatedAt,
        r.lastSeq,
        r.activeRunId ?? '',
        state !== undefined ? '1' : '0',
        state ?? '',
        r.messages !== undefined ? '1' : '0',
        kept,
        added,
        r.queue !== undefined ? '1' : '0',
        r.queue !== undefined ? JSON.stringify(r.queue) : '',
        r.forkedFrom !== undefined ? '1' : '0',
        r.forkedFrom !== undefined ? JSON.stringify(r.forkedFrom) : '',
        stateSeq,
      )
      for (let i = kept; i < kept + added; i++) argv.push(JSON.stringify(r.messages![i]))
    }
  }
  return { groups: bySession.size, keys, argv }
}
