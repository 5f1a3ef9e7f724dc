import { ConversationModel, type Command, type EventBody, type Limits, type Principal, type SessionId, type StoredEvent } from '../core/index.js'
import type { AgentDefinition } from '../agent/index.js'
import type { CommitListener, EventStore, SessionRecord, SessionWrite, StoreConflict } from '../store/index.js'
import type { ForwardOutcome } from './cluster.js'
import { closeBursts, confirmsDelivery } from './messaging.js'
import { Replica } from './replica.js'
import type { Run } from './run.js'
import { Subscription, whenUncongested, type EncodeCache, type Subscriber } from './subscription.js'
import { Writer } from './writer.js'

/** Observers of session activity (metrics, the manager's run count). */
export interface SessionHooks {
  runStarted?(session: Session): void
  /** `outcome` is 'finished' or the run error's code. */
  runEnded?(session: Session, runId: string, outcome: string): void
  /** Events committed and fanned out. */
  committed?(count: number): void
}

/** What a session needs from its surroundings. */
export interface SessionDeps {
  store: EventStore
  agent(name: string): AgentDefinition | undefined
  limits: Limits
  hooks: SessionHooks
  /** May a new run start now (the server-wide concurrent-run limit)? @default always */
  admitRun?(): boolean
  /** Cluster mode: carries out a command on a replica (takes the lease, or forwards to the writer). */
  route?: (session: Session, cmd: Command) => Promise<ForwardOutcome | undefined>
  /** Cluster mode: the store refused this session's events (another node writes it now); resynchronise. */
  rejected?: (session: Session) => void
  /** Cluster mode: tells every node where a request id waits (null: it no longer does). */
  sharePending?: (id: string, sessionId: SessionId | null) => void
}

/** How a session starts out besides its record. */
export interface SessionOptions {
  /** Events closing what an interrupted run left open (see `closingEvents`). */
  closing?: readonly EventBody[]
  /**
   * Cluster mode: false loads the session as a replica that follows another node's writes. A writer
   * (the default, and always so on a single node) ends a run the record shows active as interrupted.
   */
  writer?: boolean
  /** Replica of a session with an active run elsewhere: the seq of that run's first event. */
  runStartSeq?: number
  /** The message of the run error recording an interrupted run. */
  interruptedMessage?: string
}

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
  agentName: string
  model: ConversationModel
  private seq: number
  private committed: number
  private role: Writer | Replica
  private readonly subs = new Set<Subscription>()

  constructor(
    readonly deps: SessionDeps,
    record: SessionRecord,
    opts: SessionOptions = {},
  ) {
    this.id = record.id
    this.owner = record.owner
    this.createdAt = record.createdAt
    this.agentName = record.agent
    this.seq = this.committed = record.lastSeq
    this.model = new ConversationModel(record.messages, record.state)
    const writer = opts.writer ?? true
    const active = record.activeRunId
    this.role = writer ? new Writer(this) : new Replica(this, active ? { id: active, startSeq: opts.runStartSeq ?? record.lastSeq + 1 } : null)
    if (writer && active) this.closeInterruptedRun(active, opts.closing ?? [], opts.interruptedMessage)
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
    return (this.role.kind !== 'writer' || this.role.run === null) && this.subs.size === 0 && this.committed === this.seq
  }

  /**
   * Attaches a subscriber that receives every committed event with seq > afterSeq:
   * the missed ones from the store, then live ones, with no gap and no duplicate.
   */
  subscribe(subscriber: Subscriber, afterSeq: number = this.committed): Subscription {
    const from = Math.max(0, Math.min(afterSeq, this.committed))
    const sub = new Subscription(this.id, subscriber, from, (s) => this.subs.delete(s))
    this.subs.add(sub)
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
    return this.role.handle(cmd)
  }

  /** Stops the active run, if any: pending client tools are cancelled, approvals withdrawn, the run ends with `code`. */
  stop(code: 'interrupted' | 'cancelled', message: string): void {
    if (this.role.kind === 'writer') this.role.stop(code, message)
  }

  /**
   * Appends an event for `runId` (seq and ts assigned here). Returns a promise
   * when the store is backed up and the producer should wait for it.
   */
  append(runId: string, body: EventBody): Promise<void> | undefined {
    this.model.apply(body) // first: a bad state patch throws before a seq is spent
    const e = body as StoredEvent
    e.sessionId = this.id
    e.runId = runId
    e.seq = ++this.seq
    e.ts = Date.now()
    if (this.deps.store.append(this, e)) return this.deps.store.drained()
    // Flow control: every 256 events, make the agent wait if every subscriber is congested.
    if ((this.seq & 255) === 0 && this.subs.size > 0) return whenUncongested(this.subs, this.deps.limits)
    return undefined
  }

  /** Appends without waiting for flow control (commands and run teardown: short, bounded bursts). */
  appendNow(runId: string, body: EventBody): void {
    void this.append(runId, body)
  }

  /** Ends a run once: closes its open messages, then run.finished or run.error. */
  end(run: Run, body: Extract<EventBody, { type: 'run.finished' | 'run.error' }>): void {
    if (run.ended) return
    run.ended = true
    closeBursts(run, (b) => this.appendNow(run.id, b), run.signal.reason)
    for (const messageId of run.openReasoning) this.appendNow(run.id, { type: 'reasoning.end', messageId })
    for (const messageId of run.openText) this.appendNow(run.id, { type: 'text.end', messageId })
    run.openText.clear()
    run.openReasoning.clear()
    this.appendNow(run.id, body)
    if (this.role.kind === 'writer') this.role.ended(run)
    this.deps.store.touch(this)
    this.runEnded(run.id, body.type === 'run.error' ? body.code : 'finished')
  }

  /** Reports a run's end to the hooks. */
  runEnded(runId: string, outcome: string): void {
    this.deps.hooks.runEnded?.(this, runId, outcome)
  }

  /** True when an attached subscriber confirms message delivery (the messaging addon then waits for it). */
  confirmsDelivery(): boolean {
    for (const s of this.subs) if (!s.closed && confirmsDelivery(s.subscriber)) return true
    return false
  }

  /** An approval / client tool call id starts or stops waiting: in cluster mode, every node is told where it waits. */
  notePending(id: string, waiting: boolean): void {
    this.deps.sharePending?.(id, waiting ? this.id : null)
  }

  // CommitListener
  record(): SessionWrite {
    const dirty = this.model.takeDirty()
    return {
      id: this.id,
      agent: this.agentName,
      owner: this.owner,
      createdAt: this.createdAt,
      updatedAt: Date.now(),
      lastSeq: this.seq,
      activeRunId: this.activeRunId,
      state: dirty.state ? this.model.state : undefined,
      messages: dirty.messages ? this.model.messages : undefined,
    }
  }

  onCommitted(events: StoredEvent[]): void {
    this.committed = events[events.length - 1]!.seq
    this.deps.hooks.committed?.(events.length)
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
    writer.abandon()
    this.seq = this.committed
    this.deps.rejected?.(this)
  }

  /** Replica: committed events the writer made, applied here; delivered to the subscribers. */
  advance(events: StoredEvent[]): void {
    this.seq = this.committed = events[events.length - 1]!.seq
    this.fanOut(events)
  }

  /** Replica: the model as the store's record has it. */
  resetModel(record: SessionRecord): void {
    this.model = new ConversationModel(record.messages, record.state)
  }

  private fanOut(events: StoredEvent[]): void {
    if (this.subs.size === 0) return
    const cache: EncodeCache | undefined = this.subs.size > 1 ? new Map() : undefined
    for (const s of this.subs) s.push(events, cache)
  }

  // Cluster: the replica role's operations, for the cluster node (no-ops on a writer)

  /** Replica: the run active on the writer, if any. */
  get remoteRunId(): string | null {
    return this.role.kind === 'replica' ? this.role.activeRunId : null
  }

  /** Replica: applies events the writer committed (in order; a gap is filled from the store). */
  follow(events: StoredEvent[]): void {
    if (this.role.kind === 'replica') this.role.follow(events)
  }

  /** Replica: resolves once events up to `seq` were applied here, or after `timeoutMs`, having caught up with the store. */
  caughtUp(seq: number, timeoutMs: number): Promise<void> {
    return this.role.kind === 'replica' ? this.role.caughtUp(seq, timeoutMs) : Promise.resolve()
  }

  /** Replica: catches up with everything committed in the store; resolves once applied. */
  catchUp(): Promise<void> {
    return this.role.kind === 'replica' ? this.role.catchUp() : Promise.resolve()
  }

  /** Replica: resets from the stored record (after this node's uncommitted writes were refused). */
  resync(record: SessionRecord): Promise<void> {
    return this.role.kind === 'replica' ? this.role.resync(record) : Promise.resolve()
  }

  /**
   * Becomes the writer (the lease was taken; call after `catchUp`). A run the replica saw active has no
   * coroutine anywhere now (its node died or lost the lease): it is closed with `closing` and ended as
   * interrupted with `message`.
   */
  promote(closing: readonly EventBody[], message: string): void {
    if (this.role.kind !== 'replica') return
    const replica = this.role
    this.role = new Writer(this)
    replica.retire()
    if (replica.run) this.closeInterruptedRun(replica.run.id, closing, message)
  }

  /** Replica loaded mid-run: learns what the writer's run waits for from that run's events so far. */
  primeRemote(runEvents: readonly StoredEvent[]): void {
    if (this.role.kind === 'replica') this.role.prime(runEvents)
  }

  /** Gives up writing (the lease is being released); only when `quiet`. */
  demote(): boolean {
    if (!this.quiet) return false
    this.role = new Replica(this, null)
    return true
  }

  /** Closes every subscription (the connections stay open). */
  detachAll(): void {
    for (const s of [...this.subs]) s.close()
  }
}
