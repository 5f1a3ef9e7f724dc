import { randomUUID } from 'node:crypto'
import {
  ConversationModel,
  isRunEnd,
  newId,
  ParlanceError,
  toParlanceError,
  type Command,
  type EventBody,
  type Json,
  type Limits,
  type Principal,
  type SessionId,
  type StoredEvent,
} from '../core/index.js'
import type { AgentDefinition, RunInput } from '../agent/index.js'
import type { CommitListener, EventStore, SessionRecord, SessionWrite, StoreConflict } from '../store/index.js'
import { closeBursts, confirmsDelivery, deliverAddonEvent } from './messaging.js'
import { createRunContext } from './run-context.js'
import { Run } from './run.js'
import { Subscription, whenUncongested, type Subscriber } from './subscription.js'
import type { ForwardOutcome } from './cluster.js'

/** Observers of session activity (metrics, the manager's pending-request index). */
export interface SessionHooks {
  runStarted?(session: Session): void
  /** `outcome` is 'finished' or the run error's code. */
  runEnded?(session: Session, runId: string, outcome: string): void
  /** A request id (approval or client tool call) now waits in `session`, or (null) no longer does. */
  pending?(id: string, session: Session | null): void
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
  route?(session: Session, cmd: Command): Promise<ForwardOutcome | undefined>
  /** Cluster mode: the store refused this session's events (another node writes it now); resynchronise. */
  rejected?(session: Session): void
  /** Cluster mode: tells every node where a request id waits (null: it no longer does). */
  sharePending?(id: string, sessionId: SessionId | null): void
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
 * One conversation: its ordered event log (seq 1, 2, 3…), the active run,
 * what the run waits for, the JSON state and message history (a fold over the
 * events), and the subscribers it fans events out to. Events are appended to
 * the store first and fanned out only once committed.
 */
export class Session implements CommitListener {
  readonly id: SessionId
  readonly owner: Principal
  readonly createdAt: number
  agentName: string
  model: ConversationModel
  /**
   * True while this node writes the session: it assigns seqs, runs agents and commits. Always true on a
   * single node; in cluster mode, while this node holds the session's lease (else it is a replica).
   */
  writer: boolean
  private seq: number
  private committedSeq: number
  private run: Run | null = null
  private readonly subs = new Set<Subscription>()
  /** Replica: the run active on the writer, as seen in its events. */
  private remoteRun: { id: string; startSeq: number } | null = null
  /** Replica: approval / client tool call ids waiting on the writer, as seen in its events. */
  private readonly remotePending = new Set<string>()
  /** Replica: callers of `caughtUp` waiting for a seq. */
  private readonly seqWaiters = new Set<() => void>()
  /** Replica: the chain that applies the writer's events in order. */
  private following: Promise<void> = Promise.resolve()

  constructor(
    private readonly deps: SessionDeps,
    record: SessionRecord,
    opts: SessionOptions = {},
  ) {
    this.id = record.id
    this.owner = record.owner
    this.createdAt = record.createdAt
    this.agentName = record.agent
    this.seq = this.committedSeq = record.lastSeq
    this.model = new ConversationModel(record.messages, record.state)
    this.writer = opts.writer ?? true
    if (record.activeRunId) {
      if (this.writer) this.closeInterruptedRun(record.activeRunId, opts.closing ?? [], opts.interruptedMessage)
      else this.remoteRun = { id: record.activeRunId, startSeq: opts.runStartSeq ?? record.lastSeq + 1 }
    }
  }

  /**
   * The process running `runId` stopped (a restart; in cluster mode, a node that died): its coroutine is
   * gone, so close what it left open (found by the manager in the log) and end it for the clients.
   */
  private closeInterruptedRun(runId: string, closing: readonly EventBody[], message = 'the server stopped while this run was active'): void {
    for (const body of closing) this.append(runId, body)
    this.append(runId, { type: 'run.error', code: 'interrupted', message })
  }

  /** Highest seq assigned so far. */
  get lastSeq(): number {
    return this.seq
  }

  /** The active run's id, if any (on a replica: the run active on the writer). */
  get activeRunId(): string | null {
    return this.run?.id ?? this.remoteRun?.id ?? null
  }

  /** seq of the active run's first event (for clients that attach mid-run without a seq). */
  get activeRunStartSeq(): number | null {
    return this.run?.startSeq ?? this.remoteRun?.startSeq ?? null
  }

  /** Writer with no run and everything committed: its lease may be given up. */
  get quiet(): boolean {
    return this.writer && this.run === null && this.committedSeq === this.seq
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
    return this.run === null && this.subs.size === 0 && this.committedSeq === this.seq
  }

  /**
   * Attaches a subscriber that receives every committed event with seq > afterSeq:
   * the missed ones from the store, then live ones, with no gap and no duplicate.
   */
  subscribe(subscriber: Subscriber, afterSeq: number = this.committedSeq): Subscription {
    const from = Math.max(0, Math.min(afterSeq, this.committedSeq))
    const sub = new Subscription(this.id, subscriber, from, (s) => this.subs.delete(s))
    this.subs.add(sub)
    if (from < this.committedSeq) {
      void sub
        .replay((id, after, limit) => this.deps.store.read(id, after, limit), this.committedSeq, this.deps.limits.replayPageSize, this.deps.limits)
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
    if (!this.writer) {
      if (!this.deps.route) throw new ParlanceError('internal', `session ${this.id} is a replica but no cluster routes its commands`)
      return this.deps.route(this, cmd)
    }
    switch (cmd.type) {
      case 'user.message':
        this.startRun(
          {
            kind: 'message',
            text: cmd.content,
            messageId: cmd.messageId ?? newId('msg'),
            metadata: cmd.metadata,
            clientTools: cmd.clientTools ?? [],
          },
          cmd.agent,
        )
        return
      case 'context.update':
        this.append(this.run?.id ?? '', {
          type: 'context.update',
          name: cmd.name,
          description: cmd.description,
          context: cmd.context,
          triggering: cmd.triggering,
        })
        if (cmd.triggering) {
          this.startRun({
            kind: 'context',
            text: cmd.description,
            name: cmd.name,
            context: cmd.context,
            messageId: newId('ctx'),
            clientTools: [],
          })
        }
        return
      case 'tool.result':
        if (this.run?.clientTools.resolve(cmd.toolCallId, cmd)) return
        if (cmd.triggering === false) {
          // Nobody waits for it (a canceled result after cancel-tool-call, a side-effect-only tool): record only.
          this.append(this.run?.id ?? '', { type: 'custom', name: 'tool.result.unsolicited', value: unsolicited(cmd) })
          return
        }
        throw new ParlanceError('not_found', `no pending client tool call ${cmd.toolCallId}`, { toolCallId: cmd.toolCallId })
      case 'addon.event': {
        const context = cmd.data.context
        if (typeof context === 'object' && context !== null && !Array.isArray(context)) {
          this.append(this.run?.id ?? '', {
            type: 'context.update',
            name: 'addon-tool-event',
            description: `context from addon tool call ${cmd.toolCallId}`,
            context: context as Record<string, unknown>,
            triggering: false,
          })
        }
        deliverAddonEvent(this.run, cmd)
        return
      }
      case 'approval.response':
        if (!this.run?.approvals.resolve(cmd.approvalId, { approved: cmd.approved, feedback: cmd.feedback, by: 'user' })) {
          throw new ParlanceError('not_found', `no pending approval ${cmd.approvalId}`, { approvalId: cmd.approvalId })
        }
        return
      case 'run.cancel':
        if (!this.run) throw new ParlanceError('not_found', 'no active run to cancel')
        this.stop('cancelled', cmd.reason ?? 'cancelled by the client')
        return
      case 'custom.record':
        this.append(this.run?.id ?? '', { type: 'custom', name: cmd.name, value: cmd.value })
        return
      case 'state.replace':
        this.append(this.run?.id ?? '', { type: 'state.snapshot', snapshot: cmd.state })
        return
      case 'history.replace':
        this.append(this.run?.id ?? '', { type: 'messages.snapshot', messages: cmd.messages })
        return
      case 'session.resume':
      case 'ack':
        return
    }
  }

  /** Stops the active run, if any: pending client tools are cancelled, approvals withdrawn, the run ends with `code`. */
  stop(code: 'interrupted' | 'cancelled', message: string): void {
    const run = this.run
    if (!run || run.ended) return
    for (const [toolCallId, meta] of run.clientTools.entries()) {
      this.append(run.id, { type: 'tool.cancel', toolCallId, toolName: meta.toolName, reason: message })
      this.deps.hooks.pending?.(toolCallId, null)
    }
    for (const [approvalId] of run.approvals.entries()) {
      this.append(run.id, { type: 'approval.resolved', approvalId, approved: false, by: 'cancel' })
      this.deps.hooks.pending?.(approvalId, null)
    }
    const reason = new ParlanceError(code, message)
    run.controller.abort(reason)
    run.approvals.rejectAll(reason)
    run.clientTools.rejectAll(reason)
    this.end(run, { type: 'run.error', code, message })
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

  /** Ends a run once: closes its open messages, then run.finished or run.error. */
  end(run: Run, body: Extract<EventBody, { type: 'run.finished' | 'run.error' }>): void {
    if (run.ended) return
    run.ended = true
    closeBursts(run, (b) => this.append(run.id, b), run.signal.reason)
    for (const messageId of run.openReasoning) this.append(run.id, { type: 'reasoning.end', messageId })
    for (const messageId of run.openText) this.append(run.id, { type: 'text.end', messageId })
    run.openText.clear()
    run.openReasoning.clear()
    this.append(run.id, body)
    if (this.run === run) this.run = null
    this.deps.store.touch(this)
    this.deps.hooks.runEnded?.(this, run.id, body.type === 'run.error' ? body.code : 'finished')
  }

  /** True when an attached subscriber confirms message delivery (the messaging addon then waits for it). */
  confirmsDelivery(): boolean {
    for (const s of this.subs) if (!s.closed && confirmsDelivery(s.subscriber)) return true
    return false
  }

  /** Registers an outstanding approval / client tool call id with the manager's index. */
  notePending(id: string, waiting: boolean): void {
    this.deps.hooks.pending?.(id, waiting ? this : null)
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
      activeRunId: this.run?.id ?? null,
      state: dirty.state ? this.model.state : undefined,
      messages: dirty.messages ? this.model.messages : undefined,
    }
  }

  onCommitted(events: StoredEvent[]): void {
    this.committedSeq = events[events.length - 1]!.seq
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
    if (!this.writer) return
    this.writer = false
    const run = this.run
    if (run && !run.ended) {
      run.ended = true
      const reason = new ParlanceError('interrupted', 'this session is now written by another node')
      for (const [id] of run.clientTools.entries()) this.deps.hooks.pending?.(id, null)
      for (const [id] of run.approvals.entries()) this.deps.hooks.pending?.(id, null)
      run.controller.abort(reason)
      run.approvals.rejectAll(reason)
      run.clientTools.rejectAll(reason)
      this.run = null
      this.deps.hooks.runEnded?.(this, run.id, 'interrupted')
    }
    this.seq = this.committedSeq
    this.deps.rejected?.(this)
  }

  private fanOut(events: StoredEvent[]): void {
    if (this.subs.size === 0) return
    const cache = this.subs.size > 1 ? new Map<string, unknown[]>() : undefined
    for (const s of this.subs) s.push(events, cache)
  }

  // Cluster replica

  /** Replica: the run active on the writer, if any. */
  get remoteRunId(): string | null {
    return this.remoteRun?.id ?? null
  }

  /** Replica: applies events the writer committed (in order; a gap is filled from the store). */
  follow(events: StoredEvent[]): void {
    this.following = this.following.then(() => this.followNow(events)).catch(() => {})
  }

  /**
   * Replica: resolves once events up to `seq` were applied here (they are on their way from the writer),
   * or after `timeoutMs`, having caught up with the store.
   */
  caughtUp(seq: number, timeoutMs: number): Promise<void> {
    if (this.committedSeq >= seq || this.writer) return Promise.resolve()
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.seqWaiters.delete(check)
        resolve()
      }
      const check = () => {
        if (this.committedSeq >= seq || this.writer) done()
      }
      const timer = setTimeout(() => void this.catchUp().then(done), timeoutMs)
      this.seqWaiters.add(check)
    })
  }

  /** Replica: catches up with everything committed in the store; resolves once applied. */
  catchUp(): Promise<void> {
    this.following = this.following.then(() => this.followNow([])).catch(() => {})
    return this.following
  }

  /**
   * Replica: resets the model from the stored record (after our own uncommitted writes were refused),
   * delivering to subscribers what they have not seen yet.
   */
  resync(record: SessionRecord): Promise<void> {
    this.following = this.following
      .then(async () => {
        while (this.committedSeq < record.lastSeq) {
          const page = await this.deps.store.read(this.id, this.committedSeq, Math.min(this.deps.limits.replayPageSize, record.lastSeq - this.committedSeq))
          if (page.length === 0) break
          this.seq = this.committedSeq = page[page.length - 1]!.seq
          this.fanOut(page)
        }
        this.model = new ConversationModel(record.messages, record.state)
        this.remoteRun = record.activeRunId ? { id: record.activeRunId, startSeq: this.remoteRun?.startSeq ?? record.lastSeq } : null
      })
      .catch(() => {})
    return this.following
  }

  /**
   * Becomes the writer (the lease was taken; call after `catchUp`). A run the replica saw active has no
   * coroutine anywhere now (its node died or lost the lease): it is closed with `closing` and ended as
   * interrupted with `message`.
   */
  promote(closing: readonly EventBody[], message: string): void {
    if (this.writer) return
    this.writer = true
    for (const id of this.remotePending) this.deps.hooks.pending?.(id, null)
    this.remotePending.clear()
    const orphan = this.remoteRun
    this.remoteRun = null
    if (orphan) this.closeInterruptedRun(orphan.id, closing, message)
    for (const check of [...this.seqWaiters]) check()
  }

  /**
   * Replica loaded mid-run: learns what the writer's run waits for (pending approvals and client tool calls)
   * from that run's events so far, so answers arriving here are recognised.
   */
  primeRemote(runEvents: readonly StoredEvent[]): void {
    if (this.writer) return
    for (const e of runEvents) if (!isRunEnd(e)) this.trackRemote(e)
  }

  /** Replica being unloaded: its entries in the node's pending index go (a reload relearns them from the log). */
  forgetRemote(): void {
    for (const id of this.remotePending) this.deps.hooks.pending?.(id, null)
    this.remotePending.clear()
  }

  /** Gives up writing (the lease is being released); only when `quiet`. */
  demote(): boolean {
    if (!this.quiet) return false
    this.writer = false
    return true
  }

  private async followNow(events: StoredEvent[]): Promise<void> {
    if (this.writer) return
    const firstLive = events.length ? events[0]!.seq : Infinity
    if (events.length && events[events.length - 1]!.seq <= this.committedSeq) return
    // What is missing before this batch (a lost message, a catch-up) comes from the store.
    while (this.committedSeq + 1 < firstLive) {
      const want = Math.min(this.deps.limits.replayPageSize, firstLive - 1 - this.committedSeq)
      const page = await this.deps.store.read(this.id, this.committedSeq, want)
      if (this.writer) return
      if (page.length === 0) break
      this.applyFollowed(page)
    }
    if (events.length === 0 || this.writer) return
    const fresh = events[0]!.seq > this.committedSeq ? events : events.filter((e) => e.seq > this.committedSeq)
    if (fresh.length && fresh[0]!.seq === this.committedSeq + 1) this.applyFollowed(fresh)
  }

  private applyFollowed(events: StoredEvent[]): void {
    for (const e of events) {
      try {
        this.model.apply(e)
      } catch {
        // The writer validated it; a model that disagrees must not stop the stream.
      }
      this.trackRemote(e)
    }
    this.seq = this.committedSeq = events[events.length - 1]!.seq
    this.fanOut(events)
    for (const check of [...this.seqWaiters]) check()
  }

  /** Replica bookkeeping of the writer's run and of what it waits for (the pending index of this node). */
  private trackRemote(e: StoredEvent): void {
    if (isRunEnd(e)) {
      this.remoteRun = null
      for (const id of this.remotePending) this.deps.hooks.pending?.(id, null)
      this.remotePending.clear()
      return
    }
    if (e.runId && this.remoteRun?.id !== e.runId) this.remoteRun = { id: e.runId, startSeq: e.seq }
    switch (e.type) {
      case 'run.started':
        this.agentName = e.agent
        return
      case 'approval.requested':
        this.remotePending.add(e.approvalId)
        this.deps.hooks.pending?.(e.approvalId, this)
        return
      case 'approval.resolved':
        this.remotePending.delete(e.approvalId)
        this.deps.hooks.pending?.(e.approvalId, null)
        return
      case 'tool.call':
        if (e.target === 'client') {
          this.remotePending.add(e.toolCallId)
          this.deps.hooks.pending?.(e.toolCallId, this)
        }
        return
      case 'tool.result':
      case 'tool.error':
      case 'tool.cancel':
        this.remotePending.delete(e.toolCallId)
        this.deps.hooks.pending?.(e.toolCallId, null)
        return
    }
  }

  /** Closes every subscription (the connections stay open). */
  detachAll(): void {
    for (const s of [...this.subs]) s.close()
  }

  private startRun(input: RunInput, agentName?: string): void {
    const name = agentName ?? this.agentName
    const agent = this.deps.agent(name)
    if (!agent) throw new ParlanceError('not_found', `no agent named "${name}"`, { agent: name })
    if (!this.run && this.deps.admitRun && !this.deps.admitRun()) {
      throw new ParlanceError('unavailable', `the server is running its limit of ${this.deps.limits.maxConcurrentRuns} agent runs; try again shortly`, {
        maxConcurrentRuns: this.deps.limits.maxConcurrentRuns,
      })
    }
    if (this.run) this.stop('interrupted', 'interrupted by new input')
    this.agentName = name
    const run = new Run(newId('run'), name, input, this.seq + 1)
    this.run = run
    if (input.kind === 'message') {
      this.append(run.id, { type: 'message.user', messageId: input.messageId, content: input.text, metadata: input.metadata })
    }
    this.append(run.id, { type: 'run.started', agent: name })
    this.deps.hooks.runStarted?.(this)
    void this.execute(run, agent)
  }

  private async execute(run: Run, agent: AgentDefinition): Promise<void> {
    const ctx = createRunContext(this, run, agent, this.deps.limits, randomUUID)
    try {
      await agent.run(ctx)
      this.end(run, { type: 'run.finished' })
    } catch (err) {
      if (run.ended) return
      const e = toParlanceError(err, 'execution_error')
      this.end(run, { type: 'run.error', code: e.code, message: e.message, details: e.details })
    }
  }
}

function unsolicited(cmd: Extract<Command, { type: 'tool.result' }>): Json {
  return {
    toolCallId: cmd.toolCallId,
    outcome: cmd.outcome,
    ...(cmd.toolName !== undefined ? { toolName: cmd.toolName } : {}),
    ...(cmd.result !== undefined ? { result: cmd.result } : {}),
    ...(cmd.error !== undefined ? { error: cmd.error } : {}),
  }
}
