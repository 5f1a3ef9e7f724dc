import type { HistoryMessage, Json, SessionId, StoredEvent } from '../core/index.js'
import type { CommitUnit, SessionRecord, SessionSummary, StoreBackend, StoredRecord } from './types.js'

/** A copy of `messages` that shares the first `kept` entries with what the store holds (copied once already). */
function keptAndNew(held: HistoryMessage[] | undefined, messages: readonly HistoryMessage[], kept: number): HistoryMessage[] {
  const k = Math.min(kept, held?.length ?? 0, messages.length)
  const out = k > 0 ? held!.slice(0, k) : []
  for (let i = k; i < messages.length; i++) out.push(structuredClone(messages[i]!))
  return out
}

/**
 * The reference backend: everything in process memory. Events are stored by
 * reference (they are immutable once committed); records are copied.
 */
export function createMemoryStore(): StoreBackend {
  const logs = new Map<SessionId, StoredEvent[]>()
  const sessions = new Map<SessionId, SessionRecord>()
  /** Sessions per owner, kept as records are created: counting by a scan cost every new session O(all sessions). */
  const owned = new Map<string, number>()
  const records = new Map<string, Map<string, Json>>()
  let closed = false

  return {
    kind: 'memory',
    async commit(unit: CommitUnit) {
      if (closed) throw new Error('memory store is closed')
      // All or nothing: check the whole unit before applying any of it.
      const next = new Map<SessionId, number>()
      for (const e of unit.events) {
        const log = logs.get(e.sessionId)
        const last = next.get(e.sessionId) ?? (log?.length ? log[log.length - 1]!.seq : 0)
        if (e.seq !== last + 1) throw new Error(`seq gap in ${e.sessionId}: ${last} then ${e.seq}`)
        next.set(e.sessionId, e.seq)
      }
      const records = unit.sessions.map((w) => ({
        w,
        state: w.stateJson !== undefined ? (JSON.parse(w.stateJson) as Json) : w.state !== undefined ? structuredClone(w.state) : undefined,
        messages: w.messages !== undefined ? keptAndNew(sessions.get(w.id)?.messages, w.messages, w.messagesKept ?? 0) : undefined,
        queue: w.queue !== undefined ? structuredClone(w.queue) : undefined,
      }))
      for (const e of unit.events) {
        let log = logs.get(e.sessionId)
        if (!log) logs.set(e.sessionId, (log = []))
        log.push(e)
      }
      for (const { w, state, messages, queue } of records) {
        const prev = sessions.get(w.id)
        if (!prev) owned.set(w.owner, (owned.get(w.owner) ?? 0) + 1)
        // Fields listed, not `{ ...w, … }`: spreading a record and overriding its fields took V8's slow path,
        // ~13 µs per record (most of this backend's cost per commit with many sessions streaming).
        sessions.set(w.id, {
          id: w.id,
          agent: w.agent,
          owner: prev?.owner ?? w.owner,
          createdAt: prev?.createdAt ?? w.createdAt,
          updatedAt: w.updatedAt,
          lastSeq: w.lastSeq,
          activeRunId: w.activeRunId,
          state: state !== undefined ? state : (prev?.state ?? {}),
          stateSeq: state !== undefined ? (w.stateSeq ?? w.lastSeq) : (w.stateSeq ?? prev?.stateSeq ?? 0),
          messages: messages !== undefined ? messages : (prev?.messages ?? []),
          queue: queue !== undefined ? queue : (prev?.queue ?? []),
          forkedFrom: prev ? prev.forkedFrom : (w.forkedFrom ?? null),
        })
      }
    },
    async readEvents(sessionId, afterSeq, limit) {
      const log = logs.get(sessionId)
      if (!log || log.length === 0) return []
      const start = Math.max(0, afterSeq - log[0]!.seq + 1)
      return log.slice(start, start + limit)
    },
    async getSession(id) {
      const r = sessions.get(id)
      return r && structuredClone(r)
    },
    async listSessions(limit) {
      const out: SessionSummary[] = []
      for (const r of sessions.values()) {
        out.push({
          id: r.id,
          agent: r.agent,
          owner: r.owner,
          lastSeq: r.lastSeq,
          updatedAt: r.updatedAt,
          activeRunId: r.activeRunId,
          ...(r.forkedFrom ? { forkedFrom: { ...r.forkedFrom } } : {}),
        })
      }
      return out.sort((a, b) => b.updatedAt - a.updatedAt).slice(0, limit)
    },
    async unfinished(limit) {
      const out: Array<{ id: SessionId; owner: string }> = []
      for (const r of sessions.values())
        if (out.length < limit && (r.activeRunId !== null || r.queue.length > 0)) out.push({ id: r.id, owner: r.owner })
      return out
    },
    async getRecord(scope, key) {
      const v = records.get(scope)?.get(key)
      return v === undefined ? undefined : structuredClone(v)
    },
    async putRecord(scope, key, value) {
      if (closed) throw new Error('memory store is closed')
      let m = records.get(scope)
      if (value !== undefined) {
        if (!m) records.set(scope, (m = new Map<string, Json>()))
        m.set(key, structuredClone(value))
      } else if (m?.delete(key) && m.size === 0) records.delete(scope)
    },
    async listRecords(scope, afterKey, limit) {
      const m = records.get(scope)
      if (!m || limit <= 0) return []
      const after = Buffer.from(afterKey)
      const keys = [...m.keys()].map((k) => ({ k, b: Buffer.from(k) })).filter((x) => Buffer.compare(x.b, after) > 0)
      keys.sort((x, y) => Buffer.compare(x.b, y.b))
      return keys.slice(0, limit).map(({ k }): StoredRecord => ({ key: k, value: structuredClone(m.get(k)!) }))
    },
    async countSessions(owner) {
      return owned.get(owner) ?? 0
    },
    async ping() {
      return !closed
    },
    async close() {
      closed = true
    },
  }
}
