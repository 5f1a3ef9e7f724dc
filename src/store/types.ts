import type { HistoryMessage, Json, Principal, QueuedMessage, SessionId, StoredEvent } from '../core/index.js'

/** Where a forked session came from: its parent and the last of the parent's events it copied. */
export interface ForkOrigin {
  sessionId: SessionId
  atSeq: number
}

/** What a store keeps about a session besides its event log. */
export interface SessionRecord {
  id: SessionId
  agent: string
  owner: Principal
  /** ms since epoch */
  createdAt: number
  /** ms since epoch */
  updatedAt: number
  /** Highest committed seq. */
  lastSeq: number
  /** The run that was active at the last commit, if any (a restart turns it into a run error). */
  activeRunId: string | null
  /**
   * The shared state as the store keeps it: a snapshot that includes every event up to `stateSeq`. State events
   * after it are only in the log; `loadSession` folds them in (so its `state` is the state as of `lastSeq`).
   */
  state: Json
  /** The last event the stored `state` includes; absent: `lastSeq` (a store written before snapshots were). */
  stateSeq?: number
  messages: HistoryMessage[]
  /** Messages waiting for their run (the `enqueue` policy), oldest first. */
  queue: QueuedMessage[]
  /** Set on a session made by `forkSession`; null otherwise. */
  forkedFrom: ForkOrigin | null
}

/**
 * A session record as written: `state`, `messages` and `queue` are left out when unchanged (they can be large),
 * `forkedFrom` except when the session is created (it never changes). The state is written as a snapshot now and
 * then, not with every change (its changes are in the log): `state` or, from a session, `stateJson`.
 */
export type SessionWrite = Omit<SessionRecord, 'state' | 'stateSeq' | 'messages' | 'queue' | 'forkedFrom'> & {
  state?: Json
  /** The state as JSON text (what a session writes: serialized once, when the snapshot is taken); wins over `state`. */
  stateJson?: string
  /**
   * With `state`/`stateJson`: the last event it includes (absent: `lastSeq`). Alone: the stored state is still
   * the session's state as of this seq (no state event since it was written). Absent alone: unchanged.
   */
  stateSeq?: number
  messages?: HistoryMessage[]
  /**
   * With `messages`: how many of its leading entries the store already has, unchanged, from this session's
   * earlier writes. A backend may write only the rest (and drop what it held past them); absent: none.
   */
  messagesKept?: number
  queue?: QueuedMessage[]
  forkedFrom?: ForkOrigin
}

/** One atomic write: a batch of events (any sessions, seq order per session) and the session records they changed. */
export interface CommitUnit {
  events: readonly StoredEvent[]
  sessions: readonly SessionWrite[]
}

/** A short description of a session for listings. */
export interface SessionSummary {
  id: SessionId
  agent: string
  owner: Principal
  lastSeq: number
  updatedAt: number
  activeRunId: string | null
  /** Present on a forked session. */
  forkedFrom?: ForkOrigin
}

/** One entry of a scope's records (`StoreBackend.listRecords`). */
export interface StoredRecord {
  key: string
  value: Json
}

/** The commit window a backend asks for when each commit pays a round trip or an fsync (ms). */
export const COSTLY_COMMIT_WINDOW_MS = 2

/**
 * Storage only: seq assignment, per-tick batching and replay paging live in
 * shared code (`EventStore`), so a backend implements just these calls and
 * passes the shared contract suite.
 */
export interface StoreBackend {
  readonly kind: string
  /**
   * The group-commit window this backend wants when the server does not set one (ms; see EventStoreOptions
   * `commitWindowMs`): a backend whose every commit pays a fixed cost that dwarfs the events' (a network round
   * trip, an fsync) batches ticks; one whose commit is a cheap local append commits every tick. Absent: 0.
   */
  readonly commitWindowMs?: number
  /**
   * About how many of each session's latest events the log keeps (older ones are trimmed); absent: all. A session
   * writes its state snapshot well within it, so the events after the snapshot are always still there.
   */
  readonly keepsEvents?: number
  /** Writes the unit atomically (all or nothing). */
  commit(unit: CommitUnit): Promise<void>
  /** Events of a session with seq > afterSeq, ascending, at most `limit`. */
  readEvents(sessionId: SessionId, afterSeq: number, limit: number): Promise<StoredEvent[]>
  getSession(id: SessionId): Promise<SessionRecord | undefined>
  listSessions(limit: number): Promise<SessionSummary[]>
  /**
   * Sessions whose record shows an active run or queued messages, at most `limit`: what a process that stopped
   * left unfinished; a single-node server repairs and resumes them when it starts (a cluster's nodes take over
   * each other's sessions through leases instead). Every built-in backend has it; a backend without it leaves
   * repairs to the next open of each session.
   */
  unfinished?(limit: number): Promise<Array<{ id: SessionId; owner: Principal }>>
  /**
   * Small JSON values kept beside the logs, one per (scope, key): what a dialect must remember about its own ids
   * that no event carries (A2A: the session a task id names, a task's webhooks). Outside commit units: each
   * write is atomic on its own and durable when it resolves. Scopes and keys are non-empty strings.
   */
  getRecord(scope: string, key: string): Promise<Json | undefined>
  /** Writes the record (`value`), or deletes it (`undefined`; absent already: nothing happens). */
  putRecord(scope: string, key: string, value: Json | undefined): Promise<void>
  /** A scope's records with keys after `afterKey` ('' from the first), in key order (UTF-8 bytes), at most `limit`. */
  listRecords(scope: string, afterKey: string, limit: number): Promise<StoredRecord[]>
  /** Number of sessions `owner` owns (for the per-principal session limit). */
  countSessions(owner: Principal): Promise<number>
  /** Is the backend reachable (for /healthz)? */
  ping(): Promise<boolean>
  close(): Promise<void>
}
