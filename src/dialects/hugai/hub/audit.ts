import { ParlanceError, type Json } from '../../../core/index.js'
import type { SessionManager } from '../../../session/index.js'

/** The audit log lives in a session of its own, so it is as durable as the store (SQLite survives restarts). */
export const AUDIT_SESSION = 'hugai-audit'
const SYSTEM = 'system:hugai'

/** One audit entry, as stored in a `custom` event named `audit`. */
export interface AuditEntry {
  action: string
  actor: string
  target?: string
  details: Json
  timestamp: string
}

/** Append-only audit log over the event store. */
export class Audit {
  /** Records and queries run in arrival order, so a query sees every entry recorded before it was asked. */
  private chain: Promise<unknown> = Promise.resolve()
  private closed = false

  constructor(private readonly sessions: SessionManager) {}

  /**
   * The server is stopping: entries already asked for are stored (resolves once they are), later ones are refused.
   * A write after that would reach a store about to close: its commit would fail and be retried for ever, and the
   * `flush` waiting on it would keep the process alive (a task failed by a connection closing at shutdown records
   * its `agent-response` after the hub closed).
   */
  close(): Promise<void> {
    this.closed = true
    return this.chain.then(() => {})
  }

  private inOrder<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn)
    this.chain = next.catch(() => {})
    return next
  }

  /** Appends one entry (the timestamp defaults to now); resolves once it is stored. */
  record(entry: Omit<AuditEntry, 'timestamp'> & { timestamp?: string }): Promise<{ recorded: true; seq: number }> {
    if (this.closed) return Promise.reject(new ParlanceError('unavailable', 'the server is shutting down: audit entry not recorded'))
    return this.inOrder(() => this.append(entry))
  }

  /** Entries matching every given filter, oldest first. */
  query(f: { actor?: string; action?: string; from?: string; to?: string; limit?: number } = {}): Promise<Array<AuditEntry & { seq: number }>> {
    return this.inOrder(() => this.read(f))
  }

  private async append(entry: Omit<AuditEntry, 'timestamp'> & { timestamp?: string }): Promise<{ recorded: true; seq: number }> {
    const session = await this.sessions.open(AUDIT_SESSION, SYSTEM)
    const value = {
      action: entry.action,
      actor: entry.actor,
      ...(entry.target !== undefined ? { target: entry.target } : {}),
      details: entry.details,
      timestamp: entry.timestamp ?? new Date().toISOString(),
    }
    await session.handle({ type: 'custom.record', sessionId: AUDIT_SESSION, name: 'audit', value })
    const seq = session.lastSeq
    // Durable before answering: the entry is in the store (SQLite: on disk) when the caller hears "recorded".
    await this.sessions.store.flush()
    return { recorded: true, seq }
  }

  /** Entries matching every given filter (`from`/`to`: ISO-8601 bounds on `timestamp`), oldest first. */
  private async read(f: {
    actor?: string
    action?: string
    from?: string
    to?: string
    limit?: number
  }): Promise<Array<AuditEntry & { seq: number }>> {
    await this.sessions.store.flush()
    const from = f.from ? Date.parse(f.from) : -Infinity
    const to = f.to ? Date.parse(f.to) : Infinity
    const limit = f.limit ?? 1000
    const out: Array<AuditEntry & { seq: number }> = []
    for (let after = 0; out.length < limit;) {
      const page = await this.sessions.store.read(AUDIT_SESSION, after, 5000)
      if (page.length === 0) break
      after = page[page.length - 1]!.seq
      for (const e of page) {
        if (e.type !== 'custom' || e.name !== 'audit') continue
        const a = e.value as unknown as AuditEntry
        const t = Date.parse(a.timestamp)
        if ((f.actor && a.actor !== f.actor) || (f.action && a.action !== f.action) || t < from || t > to) continue
        out.push({ ...a, seq: e.seq })
        if (out.length >= limit) break
      }
    }
    return out
  }
}
