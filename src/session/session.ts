import { randomUUID } from 'node:crypto'
import {
  ConversationModel,
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
import type { CommitListener, EventStore, SessionRecord, SessionWrite } from '../store/index.js'
import { closeBursts, confirmsDelivery, deliverAddonEvent } from './messaging.js'
import { createRunContext } from './run-context.js'
import { Run } from './run.js'
import { Subscription, whenUncongested, type Subscriber } from './subscription.js'

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
  readonly model: ConversationModel
  private seq: number
  private committedSeq: number
  private run: Run | null = null
  private readonly subs = new Set<Subscription>()

  constructor(
    private readonly deps: SessionDeps,
    record: SessionRecord,
    /** For a record with an active run: events closing what that run left open (see `closingEvents`). */
    closing: readonly EventBody[] = [],
  ) {
    this.id = record.id
    this.owner = record.owner
    this.createdAt = record.createdAt
    this.agentName = record.agent
    this.seq = this.committedSeq = record.lastSeq
    this.model = new ConversationModel(record.messages, record.state)
    if (record.activeRunId) {
      // The process stopped while this run was active: its coroutine is gone, so close what it left
      // open (found by the manager in the log) and end it for the clients.
      for (const body of closing) this.append(record.activeRunId, body)
      this.append(record.activeRunId, {
        type: 'run.error',
        code: 'interrupted',
        message: 'the server stopped while this run was active',
      })
    }
  }

  /** Highest seq assigned so far. */
  get lastSeq(): number {
    return this.seq
  }

  /** The active run's id, if any. */
  get activeRunId(): string | null {
    return this.run?.id ?? null
  }

  /** seq of the active run's first event (for clients that attach mid-run without a seq). */
  get activeRunStartSeq(): number | null {
    return this.run?.startSeq ?? null
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

  /** Carries out a client command. Throws a ParlanceError the caller answers in its dialect. */
  handle(cmd: Command): void {
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
    if (this.subs.size === 0) return
    const cache = this.subs.size > 1 ? new Map<string, unknown[]>() : undefined
    for (const s of this.subs) s.push(events, cache)
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
