import type { SessionId, StoredEvent } from '../core/index.js'
import { StoreConflict } from './conflict.js'
import type { SessionWrite, StoreBackend } from './types.js'

/** A writer of events: told when its events are durable, asked for its record at commit time. */
export interface CommitListener {
  /** Called once the events are committed, in seq order; this is when they may be sent (write-before-send). */
  onCommitted(events: StoredEvent[]): void
  /** The session record to write in the same transaction as the listener's events. */
  record(): SessionWrite
  /**
   * The store refused these events because another node writes the session now (cluster mode). They are
   * dropped, never delivered; the listener must resynchronise from the store.
   */
  onRejected?(events: StoredEvent[], err: StoreConflict): void
  /**
   * Commits of this listener's events have failed for `stallMs` (they are still retried, none is dropped):
   * the listener should stop producing and tell its clients now, outside the log. Once per failing streak.
   */
  onStalled?(err: unknown, failingForMs: number): void
}

/** Options of the shared group-commit writer. */
export interface EventStoreOptions {
  /**
   * Pending events of one listener (session) at which it is asked to wait. Per listener, so that thousands of
   * sessions each producing a burst (a 20-chunk answer) commit it whole and their clients get it in one write,
   * instead of every session being held after one event by a bound the others filled. It also bounds what one
   * session puts in one tick: an agent that emits without awaiting anything else (a long answer already in
   * memory) waits here every this many events, until they are committed and delivered, and the event loop runs
   * other clients' I/O in between; at 2,048, one tick of a long MCP answer took up to 181 ms of CPU (2,048
   * progress notifications through the MCP SDK). @default 256
   */
  highWaterEvents?: number
  /** Pending events of all listeners at which every producer is asked to wait (memory bound). @default 32768 */
  totalHighWaterEvents?: number
  /**
   * Group-commit window (ms): a commit starts at least this long after the previous one started, so when ticks
   * carry a few events each (many sessions streaming paced tokens) their events share one commit instead of
   * paying one transaction per tick. A commit after a quiet spell starts at once (no added latency for a lone
   * client), and `commitWindowEvents` pending events start it early. 0 commits every tick.
   * @default the backend's `commitWindowMs`, else 0
   */
  commitWindowMs?: number
  /** Pending events that start a commit without waiting for the rest of the window. @default 256 */
  commitWindowEvents?: number
  /** Commits failing this long in a row (ms) make the store stalled: listeners with events waiting are told (`onStalled`). 0: never. @default 10000 */
  stallMs?: number
  /** Called after each commit with its size and duration (ms), for metrics. */
  onCommit?: (events: number, ms: number) => void
  /** Called when a commit fails; the batch is kept and retried with backoff, nothing is dropped. */
  onError?: (err: unknown, attempt: number) => void
  /** Called when a listener's `onCommitted` throws; the other listeners and later commits carry on. */
  onListenerError?: (err: unknown) => void
}

/**
 * Group commit shared by every backend: events appended during one event-loop
 * tick — or, under load, during one commit window (`commitWindowMs`) — from any
 * number of sessions, are written in one backend commit, and each session hears
 * about its own events only after that commit succeeded (write-before-send).
 * Commits are strictly sequential, so per-session order is the append order.
 */
export class EventStore {
  private batch = new Map<CommitListener, StoredEvent[]>()
  private batchSize = 0
  private readonly dirty = new Set<CommitListener>()
  private scheduled = false
  private inFlight: Promise<void> | null = null
  private attempt = 0
  /** Since when commits have been failing (consecutive failures, ms epoch), and the last error; null while they succeed. */
  private failingSince: { since: number; error: string } | null = null
  private waiters: Array<{ owner: CommitListener | undefined; resolve: () => void }> = []
  private idle: Array<() => void> = []
  /** Records of a failed commit, merged into the retry (a record omits `state`/`messages`/`queue` it already reported). */
  private failedRecords = new Map<CommitListener, SessionWrite>()
  /** The backoff timer of a retry; it keeps the process alive only while someone waits on `flush`/`drained`. */
  private retryTimer: NodeJS.Timeout | null = null
  private readonly highWater: number
  private readonly totalHighWater: number
  private readonly windowMs: number
  private readonly windowEvents: number
  /** When the last commit started (performance.now()), for the commit window. */
  private lastStart = -Infinity
  private readonly stallMs: number
  /** Listeners were told of the current failing streak. */
  private stallReported = false
  /** The window timer of the scheduled commit, while it waits out the window. */
  private windowTimer: NodeJS.Timeout | null = null

  constructor(
    readonly backend: StoreBackend,
    private readonly options: EventStoreOptions = {},
  ) {
    this.highWater = options.highWaterEvents ?? 256
    this.totalHighWater = Math.max(this.highWater, options.totalHighWaterEvents ?? 32_768)
    this.windowMs = options.commitWindowMs ?? backend.commitWindowMs ?? 0
    this.windowEvents = options.commitWindowEvents ?? 256
    this.stallMs = options.stallMs ?? 10_000
  }

  /**
   * Queues one event; returns true when the caller should `await drained(owner)` before producing more.
   *
   * When the pending events of all listeners reach the total mark and no commit is in flight, that commit
   * starts now, inside this call, instead of at the end of the tick, and producers go on: in a burst of
   * thousands of sessions answering at once, waiting instead split every answer after the first ~1,300 across
   * commits (journaled, then written again) and held every last chunk back (10,000 × `count 20`: last chunk
   * p50 1.07–1.34 s → 0.50–0.64 s; the first chunk p99 rose from 0.56–0.80 to 0.95–1.09 s, as answers now
   * go out whole, in arrival order, like the raw server's). With a commit in flight, everyone still waits.
   */
  append(owner: CommitListener, event: StoredEvent): boolean {
    let list = this.batch.get(owner)
    if (list) list.push(event)
    else this.batch.set(owner, (list = [event]))
    this.batchSize++
    if (this.batchSize >= this.totalHighWater && !this.inFlight) {
      this.commitNext()
      return list.length >= this.highWater
    }
    if (this.windowTimer !== null && this.batchSize >= this.windowEvents) this.commitNow()
    else this.schedule()
    return list.length >= this.highWater || this.batchSize >= this.totalHighWater
  }

  /** Marks a listener's record as changed without new events. */
  touch(owner: CommitListener): void {
    this.dirty.add(owner)
    this.schedule()
  }

  /** Resolves once `owner`'s pending events (and all pending events) are below their high-water marks. */
  drained(owner?: CommitListener): Promise<void> {
    if (this.batchSize < this.totalHighWater && !this.ownerFull(owner)) return Promise.resolve()
    this.retryTimer?.ref()
    return new Promise((resolve) => this.waiters.push({ owner, resolve }))
  }

  /** Resolves once everything appended so far is committed (a commit waiting out its window starts now). */
  flush(): Promise<void> {
    if (!this.inFlight && !this.scheduled && this.batchSize === 0 && this.dirty.size === 0) return Promise.resolve()
    if (this.windowTimer !== null) this.commitNow()
    this.retryTimer?.ref()
    return new Promise((resolve) => this.idle.push(resolve))
  }

  /** Pages through a session's committed events after `afterSeq`. */
  read(sessionId: SessionId, afterSeq: number, limit: number): Promise<StoredEvent[]> {
    return this.backend.readEvents(sessionId, afterSeq, limit)
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight) return
    this.scheduled = true
    const wait = this.lastStart + this.windowMs - performance.now()
    if (wait > 0 && this.batchSize < this.windowEvents) this.windowTimer = setTimeout(this.commitNext, wait)
    else setImmediate(this.commitNext)
  }

  /** Enough events wait: the scheduled commit starts now instead of at the end of its window. */
  private commitNow(): void {
    clearTimeout(this.windowTimer!)
    this.windowTimer = null
    setImmediate(this.commitNext)
  }

  /**
   * Commits have failed this many times in a row (each retried, in order, nothing lost) since `since`, the last
   * with `error`; null while they succeed. /healthz reports the store degraded while this is set.
   */
  get failing(): { attempts: number; since: number; error: string } | null {
    return this.failingSince && { attempts: this.attempt, ...this.failingSince }
  }

  /** Commits have been failing for `stallMs` or more: new runs should be refused rather than pile up. */
  get stalled(): boolean {
    return this.stallMs > 0 && this.failingSince !== null && Date.now() - this.failingSince.since >= this.stallMs
  }

  private readonly commitNext = (): void => {
    if (!this.scheduled && this.inFlight) return // a stale wake-up: the commit it was for already started
    this.scheduled = false
    this.retryTimer = null
    if (this.windowTimer !== null) clearTimeout(this.windowTimer)
    this.windowTimer = null
    if (this.batchSize === 0 && this.dirty.size === 0) return this.settle()
    const batch = this.batch
    this.batch = new Map()
    this.batchSize = 0
    const owners = new Set<CommitListener>(this.dirty)
    this.dirty.clear()
    const events: StoredEvent[] = []
    for (const [owner, list] of batch) {
      owners.add(owner)
      for (const e of list) events.push(e)
    }
    const failedRecords = this.failedRecords
    this.failedRecords = new Map()
    const records = new Map<CommitListener, SessionWrite>()
    for (const o of owners) {
      const r = o.record()
      const failed = failedRecords.get(o)
      records.set(
        o,
        failed
          ? {
              ...r,
              // A snapshot goes with its seq: the failed one (immutable JSON) unless this record has its own.
              ...(r.stateJson !== undefined || r.state !== undefined || (failed.stateJson === undefined && failed.state === undefined)
                ? {}
                : { state: failed.state, stateJson: failed.stateJson, stateSeq: failed.stateSeq }),
              messages: r.messages !== undefined ? r.messages : failed.messages,
              // What the failed write would have kept is all the store has kept.
              messagesKept:
                failed.messages === undefined
                  ? r.messagesKept
                  : Math.min(failed.messagesKept ?? 0, r.messages !== undefined ? (r.messagesKept ?? 0) : Infinity),
              queue: r.queue !== undefined ? r.queue : failed.queue,
            }
          : r,
      )
    }
    const sessions = [...records.values()]
    const started = performance.now()
    this.lastStart = started
    this.inFlight = this.backend.commit({ events, sessions }).then(
      () => {
        this.attempt = 0
        this.failingSince = null
        this.stallReported = false
        this.options.onCommit?.(events.length, performance.now() - started)
        this.inFlight = null
        // Start (or schedule, within the window) the next commit before delivering this one: a backend that
        // writes off-thread (Redis) then writes batch N+1 while this thread encodes and sends batch N.
        if (this.batchSize > 0 || this.dirty.size > 0) {
          if (performance.now() - started >= this.windowMs || this.batchSize >= this.windowEvents) this.commitNext()
          else this.schedule()
        }
        for (const [owner, list] of batch) {
          try {
            owner.onCommitted(list)
          } catch (err) {
            this.options.onListenerError?.(err)
          }
        }
        this.afterCommit(0)
      },
      (err: unknown) => {
        if (err instanceof StoreConflict && [...records.values()].some((r) => err.sessionIds.includes(r.id))) {
          return this.dropConflicting(err, batch, records)
        }
        this.attempt++
        this.failingSince = { since: this.failingSince?.since ?? Date.now(), error: err instanceof Error ? err.message : String(err) }
        this.options.onError?.(err, this.attempt)
        this.requeue(batch, owners)
        this.failedRecords = records
        this.inFlight = null
        this.afterCommit(Math.min(5000, 50 * 2 ** this.attempt))
        // After the retry is scheduled: what listeners append now waits for it (no retry without backoff).
        if (this.stalled && !this.stallReported) this.reportStall(err)
      },
    )
  }

  /**
   * A unit refused for sessions this node no longer writes: those sessions' events and records are dropped
   * (their listeners told), and the rest goes back in front of the queue and is committed at once.
   */
  private dropConflicting(err: StoreConflict, batch: Map<CommitListener, StoredEvent[]>, records: Map<CommitListener, SessionWrite>): void {
    const refused = new Set<string>(err.sessionIds)
    const rejected: Array<[CommitListener, StoredEvent[]]> = []
    const owners = new Set<CommitListener>()
    for (const [owner, r] of records) {
      if (!refused.has(r.id)) {
        owners.add(owner)
        continue
      }
      const list = batch.get(owner)
      batch.delete(owner)
      // Events appended since belong to the refused writer too: drop them with the rest.
      const later = this.batch.get(owner)
      if (later) {
        this.batch.delete(owner)
        this.batchSize -= later.length
      }
      this.dirty.delete(owner)
      rejected.push([owner, [...(list ?? []), ...(later ?? [])]])
      records.delete(owner)
    }
    this.requeue(batch, owners)
    this.failedRecords = records
    this.inFlight = null
    for (const [owner, list] of rejected) {
      try {
        owner.onRejected?.(list, err)
      } catch (e) {
        this.options.onListenerError?.(e)
      }
    }
    this.afterCommit(0)
  }

  /** Tells every listener with events or a record waiting that commits keep failing (once per failing streak). */
  private reportStall(err: unknown): void {
    this.stallReported = true
    const failingForMs = Date.now() - this.failingSince!.since
    for (const owner of new Set([...this.batch.keys(), ...this.dirty])) {
      try {
        owner.onStalled?.(err, failingForMs)
      } catch (e) {
        this.options.onListenerError?.(e)
      }
    }
  }

  /** Puts a failed batch back in front of anything appended meanwhile. */
  private requeue(failed: Map<CommitListener, StoredEvent[]>, owners: Set<CommitListener>): void {
    const merged = new Map<CommitListener, StoredEvent[]>()
    let size = 0
    for (const [owner, list] of failed) {
      merged.set(owner, list)
      size += list.length
    }
    for (const [owner, list] of this.batch) {
      const prev = merged.get(owner)
      if (prev) for (const e of list) prev.push(e)
      else merged.set(owner, list)
      size += list.length
    }
    this.batch = merged
    this.batchSize = size
    for (const o of owners) this.dirty.add(o)
  }

  /** `owner` has its high-water mark of events pending. */
  private ownerFull(owner: CommitListener | undefined): boolean {
    return owner !== undefined && (this.batch.get(owner)?.length ?? 0) >= this.highWater
  }

  /**
   * After a commit (which took the pending events of every owner waiting before it started), producers go on
   * unless all pending events are too many, or their own still are (a failed commit put them back).
   */
  private wakeProducers(): void {
    if (this.batchSize >= this.totalHighWater || this.waiters.length === 0) return
    const w = this.waiters
    this.waiters = []
    for (const x of w) {
      if (this.ownerFull(x.owner)) this.waiters.push(x)
      else x.resolve()
    }
  }

  private afterCommit(delayMs: number): void {
    this.wakeProducers()
    if (this.inFlight || this.scheduled) return // the next commit is already under way; it settles
    if (this.batchSize > 0 || this.dirty.size > 0) {
      this.scheduled = true
      if (delayMs > 0) {
        this.retryTimer = setTimeout(this.commitNext, delayMs)
        if (this.idle.length === 0 && this.waiters.length === 0) this.retryTimer.unref()
      } else setImmediate(this.commitNext)
    } else this.settle()
  }

  private settle(): void {
    if (this.idle.length === 0) return
    const w = this.idle
    this.idle = []
    for (const resolve of w) resolve()
  }
}
