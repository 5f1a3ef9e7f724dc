import {
  checkMessageLength,
  ConversationModel,
  stringOf,
  type Command,
  type OnBusy,
  type EventBody,
  type Principal,
  type SessionId,
  type StoredEvent,
} from '../core/index.js'
import type { CommitListener, ForkOrigin, SessionRecord, SessionWrite, StoreConflict } from '../store/index.js'
import { nameRequest } from '../telemetry/index.js'
import type { ForwardOutcome } from './cluster.js'
import type { SessionDeps, SessionOptions } from './deps.js'
import { confirmsDelivery } from './messaging.js'
import { Replica } from './replica.js'
import { modelOf, STATE_SNAPSHOT_EVENTS, stateWrite } from './state-snapshot.js'
import type { Role } from './role.js'
import type { AbortCode } from './run.js'
import { Subscription, whenUncongested, type EncodeCache, type Subscriber } from './subscription.js'
import { Writer } from './writer.js'

/**
 * One conversation: its ordered event log (seq 1, 2, 3…), the JSON state and message history (a fold over the
 * events), and the subscribers it fans events out to. Events are appended to the store first and fanned out
 * only once committed. What it does with commands depends on its role, one object swapped on promotion and
 * demotion: the `Writer` (this node runs the agent and commits; always so on a single node) or, in cluster
 * mode, a `Replica` (another node writes; this one follows its events and forwards commands).
 */
export class Session implements CommitListener {
  readonly id: SessionId
  readonly owner: Principal
  readonly createdAt: number
  /** The session this one was forked from, and at which seq; null when it was not forked. */
  readonly forkedFrom: ForkOrigin | null
  agentName: string
  model: ConversationModel
  private seq: number
  private committed: number
  private role: Role
  private readonly subs = new Set<Subscription>()

  constructor(
    readonly deps: SessionDeps,
    record: SessionRecord,
    opts: SessionOptions = {},
  ) {
    this.id = record.id
    this.owner = record.owner
    this.createdAt = record.createdAt
    this.forkedFrom = record.forkedFrom ?? null
    this.agentName = record.agent
    this.seq = this.committed = record.lastSeq
    this.model = modelOf(record)
    const writer = opts.writer ?? true
    const active = record.activeRunId
    this.role = writer ? new Writer(this) : new Replica(this, active ? { id: active, startSeq: opts.runStartSeq ?? record.lastSeq + 1 } : null)
    // A writer loading a record with an active run: that run's process is gone.
    if (writer && active) this.closeInterruptedRun(active, opts.closing ?? [], opts.interruptedMessage)
    if (writer) this.resumeQueue()
  }

  /** Messages queued before a restart (or before this node took the session over) start their runs. */
  private resumeQueue(): void {
    if (this.model.queue.length === 0) return
    // After the caller has the session (the manager indexes it before anything runs).
    setImmediate(() => {
      if (this.role instanceof Writer) this.role.next()
    })
  }

  /**
   * The process running `runId` stopped (a restart; in cluster mode, a node that died): its coroutine is
   * gone, so close what it left open (found by the manager in the log) and end it for the clients.
   */
  private closeInterruptedRun(runId: string, closing: readonly EventBody[], message = 'the server stopped while this run was active'): void {
    for (const body of closing) this.appendNow(runId, body)
    this.appendNow(runId, { type: 'run.error', code: 'interrupted', message })
  }

  /** True while this node writes the session (see the class comment). */
  get writer(): boolean {
    return this.role.kind === 'writer'
  }

  /** The replica role while another node writes the session (cluster mode), else null. */
  get replica(): Replica | null {
    return this.role instanceof Replica ? this.role : null
  }

  /** Highest seq assigned so far. */
  get lastSeq(): number {
    return this.seq
  }

  /** Highest seq committed (and fanned out). */
  get committedSeq(): number {
    return this.committed
  }

  /** The active run's id, if any (on a replica: the run active on the writer). */
  get activeRunId(): string | null {
    return this.role.activeRunId
  }

  /** seq of the active run's first event (for clients that attach mid-run without a seq). */
  get activeRunStartSeq(): number | null {
    return this.role.activeRunStartSeq
  }

  /**
   * The policy input asking `asked` meets now: null when no run is active; else `asked`, else the active run's
   * agent's, else the server's, else 'interrupt'. A binding that does work before its command (an edit forks the
   * old branch) asks first, so a `reject` leaves nothing behind.
   */
  busyPolicy(asked?: OnBusy): OnBusy | null {
    if (this.activeRunId === null) return null
    return asked ?? this.deps.agent(this.agentName)?.onBusy ?? this.deps.onBusy ?? 'interrupt'
  }

  /** Does an approval or client tool call `id` wait in this session (its run's state, or on a replica the log)? */
  waitsFor(id: string): boolean {
    return this.role.waitsFor(id)
  }

  /** Writer with no run and everything committed: its lease may be given up. */
  get quiet(): boolean {
    return this.role.kind === 'writer' && this.role.run === null && this.committed === this.seq
  }

  /** The `codecKey` of each attached subscriber (which dialects are watching; read-only use). */
  subscriberKeys(): string[] {
    const keys: string[] = []
    for (const s of this.subs) if (!s.closed) keys.push(s.subscriber.codecKey)
    return keys
  }

  /** Number of attached subscribers. */
  get subscriberCount(): number {
    return this.subs.size
  }

  /** No run, no subscriber and nothing waiting for the store: the session may be unloaded from memory. */
  get idle(): boolean {
    return this.role.run === null && this.subs.size === 0 && this.committed === this.seq
  }

  /**
   * Attaches a subscriber that receives every committed event with seq > afterSeq:
   * the missed ones from the store, then live ones, with no gap and no duplicate.
   */
  subscribe(subscriber: Subscriber, afterSeq: number = this.committed): Subscription {
    const from = Math.max(0, Math.min(afterSeq, this.committed))
    // In a cluster the writer may be another node: it learns that a subscriber here confirms delivery.
    const confirming = this.deps.confirming && confirmsDelivery(subscriber) ? this.deps.confirming : null
    const sub = new Subscription(this.id, subscriber, from, (s) => {
      if (this.subs.delete(s)) confirming?.(this.id, -1)
    })
    this.subs.add(sub)
    confirming?.(this.id, 1)
    if (from < this.committed) {
      void sub
        .replay((id, after, limit) => this.deps.store.read(id, after, limit), this.committed, this.deps.limits.replayPageSize, this.deps.limits)
        .catch(() => sub.close())
    }
    return sub
  }

  /**
   * Carries out a client command. Throws a ParlanceError the caller answers in its dialect. On a writer
   * this is synchronous; on a cluster replica it returns the promise of the writer's outcome, so callers
   * `await` it either way.
   */
  handle(cmd: Command): Promise<ForwardOutcome | undefined> | undefined {
    try {
      // The user-message limit every dialect shares, checked here (writer or replica, before anything is recorded or
      // any run starts) so none can skip it: a message, or the description of a triggering context update (HUMA's input).
      const input = cmd.type === 'user.message' ? cmd.content : cmd.type === 'context.update' && cmd.triggering ? cmd.description : null
      if (input !== null) {
        const tooLong = checkMessageLength(input, this.deps.limits.maxUserMessageChars, cmd.type === 'user.message' ? 'content' : 'description')
        if (tooLong) throw tooLong
      }
      return this.role.handle(cmd)
    } finally {
      // The request span carrying this command (if a tracing SDK records it) learns its session and agent.
      nameRequest(this.id, this.agentName, cmd.type)
    }
  }

  /** Stops the active run, if any: pending client tools are cancelled, approvals withdrawn, the run ends with `code`. */
  stop(code: AbortCode, message: string): void {
    this.role.stop(code, message)
  }

  /**
   * Appends an event for `runId` (seq and ts assigned here). Returns a promise
   * when the store is backed up and the producer should wait for it.
   */
  append(runId: string, body: EventBody): Promise<void> | undefined {
    this.model.apply(body, this.deps.limits.maxStateBytes) // first: a bad state patch throws before a seq is spent
    const e = body as StoredEvent
    e.sessionId = this.id
    e.runId = runId
    e.seq = ++this.seq
    e.ts = Date.now()
    if (this.deps.store.append(this, e)) return this.deps.store.drained(this)
    // Flow control: every 256 events, make the agent wait if every subscriber is congested.
    if ((this.seq & 255) === 0 && this.subs.size > 0) return whenUncongested(this.subs, this.deps.limits)
    return undefined
  }

  /** Appends without waiting for flow control (commands and run teardown: short, bounded bursts). */
  appendNow(runId: string, body: EventBody): void {
    void this.append(runId, body)
  }

  /**
   * True when a subscriber that confirms message delivery is attached (the messaging addon then waits for it):
   * here, or, in a cluster, on another node following the session (its confirmations are forwarded here).
   */
  confirmsDelivery(): boolean | Promise<boolean> {
    for (const s of this.subs) if (!s.closed && confirmsDelivery(s.subscriber)) return true
    return this.deps.confirmingElsewhere?.(this.id).catch(() => false) ?? false
  }

  // CommitListener
  record(): SessionWrite {
    const dirty = this.model.takeDirty()
    const keeps = this.deps.store.backend.keepsEvents
    const state = stateWrite(this.model, this.seq, keeps ? Math.min(STATE_SNAPSHOT_EVENTS, Math.floor(keeps / 2)) : STATE_SNAPSHOT_EVENTS)
    return {
      id: this.id,
      agent: this.agentName,
      owner: this.owner,
      createdAt: this.createdAt,
      updatedAt: Date.now(),
      lastSeq: this.seq,
      activeRunId: this.activeRunId,
      ...state,
      messages: dirty.messages ? this.model.messages : undefined,
      messagesKept: dirty.messages ? dirty.messagesKept : undefined,
      queue: dirty.queue ? this.model.queue : undefined,
    }
  }

  onCommitted(events: StoredEvent[]): void {
    this.committed = events[events.length - 1]!.seq
    this.deps.hooks.committed?.(events.length, events)
    this.fanOut(events)
  }

  /**
   * The store refused these events: another node writes this session now (our lease expired, e.g. during
   * a long pause). They were never stored or sent. The local run stops without writing, the uncommitted
   * tail is forgotten and the manager resynchronises the session from the store, as a replica.
   */
  onRejected(_events: StoredEvent[], _err: StoreConflict): void {
    this.lostWrite()
  }

  /** This node no longer writes the session (a refused commit, a lease renewal that found another holder). */
  lostWrite(): void {
    if (this.role.kind !== 'writer') return
    const writer = this.role
    this.role = new Replica(this, null)
    writer.leave()
    this.seq = this.committed
    this.deps.rejected?.(this)
  }

  /** Replica: committed events the writer made, applied here; delivered to the subscribers. */
  advance(events: StoredEvent[]): void {
    this.seq = this.committed = events[events.length - 1]!.seq
    this.fanOut(events)
  }

  /**
   * Commits of this session's events have failed for `failingForMs` (they are retried; none is lost): the run
   * stops with 'unavailable' (recorded, so delivered once the store recovers), and every subscriber hears it
   * now, in its dialect, from an event outside the log.
   */
  onStalled(err: unknown, failingForMs: number): void {
    const runId = this.role.run?.id
    if (!runId) return
    const message = `the store has failed to commit for ${(failingForMs / 1000).toFixed(1)} s (${err instanceof Error ? err.message : stringOf(err)}): the run was stopped. Nothing already stored is lost; the run's end is recorded once the store recovers`
    this.role.stop('unavailable', message)
    const notice: StoredEvent = { type: 'run.error', code: 'unavailable', message, sessionId: this.id, runId, seq: this.committed, ts: Date.now() }
    for (const s of this.subs) s.notify(notice)
  }

  private fanOut(events: StoredEvent[]): void {
    if (this.subs.size === 0) return
    const cache: EncodeCache | undefined = this.subs.size > 1 ? new Map() : undefined
    for (const s of this.subs) s.push(events, cache)
  }

  // Cluster: role changes (the replica's own operations are on `replica`)

  /**
   * Becomes the writer (the lease was taken; call after `catchUp`). A run the replica saw active has no
   * coroutine anywhere now (its node died or lost the lease): it is closed with `closing` and ended as
   * interrupted with `message`.
   */
  promote(closing: readonly EventBody[], message: string): void {
    const replica = this.replica
    if (!replica) return
    this.role = new Writer(this)
    replica.leave()
    if (replica.remote) this.closeInterruptedRun(replica.remote.id, closing, message)
    this.resumeQueue()
  }

  /** Gives up writing (the lease is being released); only when `quiet`. */
  demote(): boolean {
    if (!this.quiet) return false
    this.role.leave()
    this.role = new Replica(this, null)
    return true
  }

  /** Closes every subscription (the connections stay open). */
  detachAll(): void {
    for (const s of [...this.subs]) s.close()
  }
}
