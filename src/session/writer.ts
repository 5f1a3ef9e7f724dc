import { randomUUID } from 'node:crypto'
import { newId, ParlanceError, toParlanceError, type Command, type EventBody, type HistoryMessage, type Json, type OnBusy } from '../core/index.js'
import type { AgentDefinition, RunInput } from '../agent-api/index.js'
import { deliverAddonEvent, recordStreamedDelivery } from './messaging.js'
import type { Role } from './role.js'
import { createRunContext } from './run-context.js'
import { Run, type AbortCode } from './run.js'
import { failureRef, runFailure } from './failure.js'
import type { Session } from './session.js'
import { context, endRunSpan, ROOT_CONTEXT, startRunSpan, trace, type Context } from '../telemetry/index.js'

/**
 * The writer role of a session: this node assigns its seqs, runs its agent and commits. Carries out client
 * commands, owns the active run and ends it — always through `Run.abort` when it is cut short. A single node
 * is always the writer; in cluster mode, the node holding the session's lease.
 */
export class Writer implements Role {
  readonly kind = 'writer'
  /** The active run, if any. */
  run: Run | null = null
  /** The trace context each queued message arrived in (only when traced), so its run, started later, is the child of that request. */
  private queuedFrom: Map<string, Context> | null = null

  constructor(private readonly s: Session) {}

  get activeRunId(): string | null {
    return this.run?.id ?? null
  }

  get activeRunStartSeq(): number | null {
    return this.run?.startSeq ?? null
  }

  /** Is `id` an approval or client tool call the active run waits for? (The pending index, derived.) */
  waitsFor(id: string): boolean {
    return this.run?.waitsFor(id) ?? false
  }

  /** Carries out a client command; throws the ParlanceError its dialect answers. */
  handle(cmd: Command): undefined {
    const s = this.s
    const runId = this.run?.id ?? ''
    switch (cmd.type) {
      case 'user.message':
        this.message(cmd)
        return
      case 'run.regenerate':
        this.regenerate(cmd)
        return
      case 'context.update': {
        // A triggering update is input like a message: the policy decides (the update itself is always recorded).
        const policy = cmd.triggering && this.run ? this.policy(undefined) : 'interrupt'
        if (policy === 'reject') throw this.busy()
        s.appendNow(runId, { type: 'context.update', name: cmd.name, description: cmd.description, context: cmd.context, triggering: cmd.triggering })
        if (!cmd.triggering) return
        const messageId = newId('ctx')
        if (policy === 'enqueue') {
          s.appendNow(runId, { type: 'message.queued', messageId, content: cmd.description, context: { name: cmd.name, context: cmd.context } })
          this.queued(messageId)
          return
        }
        this.startRun({ kind: 'context', text: cmd.description, name: cmd.name, context: cmd.context, messageId, clientTools: [] }, undefined, {
          rollback: policy === 'rollback',
        })
        return
      }
      case 'tool.result':
        if (this.run?.clientTools.resolve(cmd.toolCallId, cmd)) return
        if (cmd.triggering === false) {
          // Nobody waits for it (a canceled result after cancel-tool-call, a side-effect-only tool): record only.
          s.appendNow(runId, { type: 'custom', name: 'tool.result.unsolicited', value: unsolicited(cmd) })
          return
        }
        throw new ParlanceError('not_found', `no pending client tool call ${cmd.toolCallId}`, { toolCallId: cmd.toolCallId })
      case 'addon.event': {
        const context = cmd.data.context
        if (typeof context === 'object' && context !== null && !Array.isArray(context)) {
          s.appendNow(runId, {
            type: 'context.update',
            name: 'addon-tool-event',
            description: `context from addon tool call ${cmd.toolCallId}`,
            context: context as Record<string, unknown>,
            triggering: false,
          })
        }
        if (!deliverAddonEvent(this.run, cmd)) recordStreamedDelivery(s, runId, cmd)
        return
      }
      case 'approval.response':
        if (!this.run?.approvals.resolve(cmd.approvalId, { approved: cmd.approved, feedback: cmd.feedback, by: 'user' })) {
          throw new ParlanceError('not_found', `no pending approval ${cmd.approvalId}`, { approvalId: cmd.approvalId })
        }
        return
      case 'run.cancel': {
        const id = cmd.messageId
        if (id !== undefined && s.model.queue.some((q) => q.messageId === id)) {
          s.appendNow(runId, { type: 'message.withdrawn', messageId: id, reason: cmd.reason ?? 'withdrawn by the client' })
          this.queuedFrom?.delete(id)
          return
        }
        if (!this.run || (id !== undefined && this.run.input.messageId !== id)) {
          throw new ParlanceError(
            'not_found',
            id !== undefined ? `message ${id} is neither queued nor being answered` : 'no active run to cancel',
            id !== undefined ? { messageId: id } : undefined,
          )
        }
        this.stop('cancelled', cmd.reason ?? 'cancelled by the client')
        return
      }
      case 'custom.record':
        s.appendNow(runId, { type: 'custom', name: cmd.name, value: cmd.value })
        return
      case 'state.replace':
        s.appendNow(runId, { type: 'state.snapshot', snapshot: cmd.state })
        return
      case 'history.replace':
        s.appendNow(runId, { type: 'messages.snapshot', messages: cmd.messages })
        return
      case 'session.resume':
      case 'ack':
        return
    }
  }

  /** The policy for input arriving now (see `Session.busyPolicy`). */
  private policy(asked: OnBusy | undefined): OnBusy {
    return this.s.busyPolicy(asked) ?? 'interrupt'
  }

  /** Keeps the trace context message `messageId` was queued in, when traced (see `queuedFrom`). */
  private queued(messageId: string): void {
    const active = context.active()
    if (trace.getSpan(active)) (this.queuedFrom ??= new Map()).set(messageId, active)
  }

  private busy(): ParlanceError {
    return busyError(this.run?.id ?? null)
  }

  /** A user message: starts a run now, or, while one is active, as the policy says (see `OnBusy`). */
  private message(cmd: Extract<Command, { type: 'user.message' }>): void {
    if (cmd.messageId !== undefined && !cmd.rewind && this.seen(cmd.messageId, cmd.content)) return
    const messageId = cmd.messageId ?? newId('msg')
    const policy = this.run ? this.policy(cmd.onBusy) : 'interrupt'
    if (policy === 'reject') throw this.busy()
    if (policy === 'enqueue' && !cmd.rewind) {
      const name = cmd.agent ?? this.s.agentName
      if (!this.s.deps.agent(name)) this.noAgent(name)
      this.queued(messageId)
      this.s.appendNow(this.run!.id, {
        type: 'message.queued',
        messageId,
        content: cmd.content,
        ...(cmd.metadata !== undefined ? { metadata: cmd.metadata } : {}),
        ...(cmd.agent !== undefined ? { agent: cmd.agent } : {}),
        ...(cmd.clientTools?.length ? { clientTools: cmd.clientTools } : {}),
      })
      return
    }
    const rewind: EventBody[] = cmd.rewind
      ? [
          {
            type: 'history.rewound',
            toMessageId: cmd.rewind.toMessageId,
            reason: 'edit',
            ...(cmd.rewind.branch ? { branch: cmd.rewind.branch } : {}),
          },
        ]
      : []
    this.startRun({ kind: 'message', text: cmd.content, messageId, metadata: cmd.metadata, clientTools: cmd.clientTools ?? [] }, cmd.agent, {
      rollback: policy === 'rollback',
      prelude: rewind,
    })
  }

  /**
   * Is user message `id` already in the session (its history or queue)? Then this is the same message sent again — a
   * client whose connection dropped before any answer cannot know whether its first send arrived, so it sends again
   * with the same id — and it is carried out at most once: nothing is recorded, no run starts, the active run (its
   * own answer, perhaps) goes on, and the client reads the answer by its cursor. The same id with other content is a
   * client error. Checked before the busy policy, so a resend never interrupts or queues behind its own answer.
   */
  private seen(id: string, content: string): boolean {
    const had = this.s.model.userMessage(id)
    if (had === undefined) return false
    if (had === content) return true
    throw new ParlanceError('conflict', `message id ${id} already names another message in this session; give a new message a new id`, {
      messageId: id,
    })
  }

  /** Answers user message `messageId` (default: the last one) again; what came after it is superseded. */
  private regenerate(cmd: Extract<Command, { type: 'run.regenerate' }>): void {
    const history = this.s.model.messages
    let target: HistoryMessage | undefined
    for (let i = history.length - 1; i >= 0 && !target; i--) {
      const m = history[i]!
      if (m.role === 'user' && (cmd.messageId === undefined || m.id === cmd.messageId)) target = m
    }
    if (!target) {
      throw new ParlanceError(
        'not_found',
        cmd.messageId ? `no user message ${cmd.messageId} in this session's history` : 'this session has no user message to answer again',
        {
          ...(cmd.messageId ? { messageId: cmd.messageId } : {}),
        },
      )
    }
    // Queueing a regenerate would answer a turn the queue has moved past: it waits for nothing.
    const policy = this.run ? this.policy(cmd.onBusy) : 'interrupt'
    if (policy === 'reject' || policy === 'enqueue') throw this.busy()
    this.startRun({ kind: 'regenerate', text: target.content, messageId: target.id, clientTools: cmd.clientTools ?? [] }, cmd.agent, {
      rollback: policy === 'rollback',
      prelude: [{ type: 'history.rewound', toMessageId: target.id, reason: 'regenerate' }],
    })
  }

  /**
   * Starts the next queued message's run, if any and none is active (after a run ends by itself or is
   * cancelled, and when a session with a queue is loaded). One that cannot start (its agent is gone, the store
   * is failing) is recorded as a failed run of its own, so the queue never stalls behind it.
   */
  next(): void {
    const q = this.s.model.queue[0]
    if (this.run || !q || this.s.deps.stopping?.() || this.s.deps.draining?.()) return
    const input: RunInput = q.context
      ? { kind: 'context', text: q.content, name: q.context.name, context: q.context.context, messageId: q.messageId, clientTools: [] }
      : { kind: 'message', text: q.content, messageId: q.messageId, metadata: q.metadata, clientTools: q.clientTools ?? [] }
    try {
      this.startRun(input, q.agent, { dequeued: true })
    } catch (err) {
      const e = toParlanceError(err)
      const runId = newId('run')
      if (!q.context) this.s.appendNow(runId, { type: 'message.user', messageId: q.messageId, content: q.content, metadata: q.metadata })
      this.s.appendNow(runId, { type: 'run.started', agent: q.agent ?? this.s.agentName, dequeued: q.messageId })
      this.s.appendNow(runId, { type: 'run.error', code: e.code, message: `the queued message could not start: ${e.message}`, details: e.details })
      this.next()
    }
  }

  private noAgent(name: string): never {
    throw new ParlanceError('not_found', `no agent named "${name}"`, { agent: name })
  }

  /** Stops the active run, if any: pending client tools are cancelled, approvals withdrawn (recorded), the run ends with `code`. */
  stop(code: AbortCode, message: string): void {
    const run = this.run
    if (!run || run.ended) return
    run.abort(code, message, this.record(run))
    this.end(run, { type: 'run.error', code, message })
  }

  /**
   * This node may no longer write (another node holds the lease): the run stops where it stands, with nothing
   * recorded — the store would refuse it; the other node closes the run from the log.
   */
  leave(): void {
    const run = this.run
    this.run = null
    if (!run || run.ended) return
    run.ended = true
    run.abort('interrupted', 'this session is now written by another node')
    if (run.trace) endRunSpan(run.trace.span, 'interrupted', 'this session is now written by another node')
    this.s.deps.hooks.runEnded?.(this.s, run.id, 'interrupted')
  }

  /** Ends a run once: closes what it left open, then run.finished or run.error. */
  private end(run: Run, body: Extract<EventBody, { type: 'run.finished' | 'run.error' }>, thrown?: unknown): void {
    if (run.ended) return
    run.ended = true
    const record = this.record(run)
    run.close(record)
    record(body)
    if (this.run === run) this.run = null
    this.s.deps.store.touch(this.s)
    const outcome = body.type === 'run.error' ? body.code : 'finished'
    const failure = body.type === 'run.error' && body.internal ? { ref: body.internal.ref, error: thrown } : undefined
    if (run.trace) endRunSpan(run.trace.span, outcome, body.type === 'run.error' ? (body.internal?.message ?? body.message) : undefined)
    this.s.deps.hooks.runEnded?.(this.s, run.id, outcome, failure)
    // The queue goes on after a run that ended by itself or was cancelled; not after an interrupt (new input
    // runs first, or the server is stopping: the queue is in the record and resumes when the session is loaded).
    if (outcome !== 'interrupted' && outcome !== 'unavailable') this.next()
  }

  /** Records an event of `run` without waiting for flow control (commands and teardown: short bursts). */
  private record(run: Run): (body: EventBody) => void {
    return (body) => this.s.appendNow(run.id, body)
  }

  /**
   * Starts a run: stops the active one (as interrupted; with `rollback` its turn is also cut from the history),
   * records `prelude` (history cuts) and the input, and runs the agent. Every check comes first, so a refused
   * start changes nothing. `dequeued`: a queued message taking over from a run that just ended (its slot).
   */
  private startRun(input: RunInput, agentName?: string, opts: { rollback?: boolean; prelude?: readonly EventBody[]; dequeued?: boolean } = {}): void {
    const s = this.s
    const name = agentName ?? s.agentName
    const agent = s.deps.agent(name) ?? this.noAgent(name)
    const failing = s.deps.store.stalled ? s.deps.store.failing : null
    if (failing) {
      throw new ParlanceError(
        'unavailable',
        `the store has failed to commit since ${new Date(failing.since).toISOString()} (${failing.error}); no run starts until it recovers — try again shortly`,
      )
    }
    // Draining: nothing new starts here (the active run, if any, is not interrupted for it); the client sends again elsewhere.
    if (!opts.dequeued && s.deps.draining?.()) throw drainingError()
    if (!this.run && !opts.dequeued && s.deps.admitRun && !s.deps.admitRun()) {
      throw new ParlanceError('unavailable', `the server is running its limit of ${s.deps.limits.maxConcurrentRuns} agent runs; try again shortly`, {
        maxConcurrentRuns: s.deps.limits.maxConcurrentRuns,
      })
    }
    const old = this.run
    if (old) this.stop('interrupted', opts.rollback ? 'interrupted and rolled back by new input' : 'interrupted by new input')
    s.agentName = name
    const runId = newId('run')
    const startSeq = s.lastSeq + 1
    if (old && opts.rollback) s.appendNow(runId, { type: 'history.rewound', toMessageId: old.historyBase, reason: 'rollback', droppedRunId: old.id })
    for (const body of opts.prelude ?? []) s.appendNow(runId, body)
    // The pending index is the run's own state; in cluster mode every node is told where each request waits.
    const share = s.deps.sharePending
    const base = s.model.messages.at(-1)?.id ?? null
    const run = new Run(runId, name, input, startSeq, base, share && ((id, waiting) => share(id, waiting ? s.id : null)))
    this.run = run
    // The run's span: a child of the request that started it (a queued message's: the request that queued it).
    let parent = context.active()
    if (opts.dequeued) {
      parent = this.queuedFrom?.get(input.messageId) ?? ROOT_CONTEXT
      this.queuedFrom?.delete(input.messageId)
    }
    run.trace = startRunSpan(name, s.id, runId, parent)
    if (input.kind === 'message')
      s.appendNow(run.id, { type: 'message.user', messageId: input.messageId, content: input.text, metadata: input.metadata })
    s.appendNow(run.id, opts.dequeued ? { type: 'run.started', agent: name, dequeued: input.messageId } : { type: 'run.started', agent: name })
    s.deps.hooks.runStarted?.(s)
    void this.execute(run, agent)
  }

  private async execute(run: Run, agent: AgentDefinition): Promise<void> {
    const ctx = createRunContext(this.s, run, agent, this.s.deps.limits, randomUUID)
    try {
      await context.with(run.traceContext, () => agent.run(ctx))
      this.end(run, { type: 'run.finished' })
    } catch (err) {
      if (run.ended) return
      this.end(run, runFailure(err, failureRef(), this.s.deps.exposeErrors === true), err)
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

/** The `busy` refusal of input under the `reject` policy while run `activeRunId` is active. */
export function busyError(activeRunId: string | null): ParlanceError {
  return new ParlanceError('busy', 'a run is active in this session; wait for it to end, cancel it, or send with onBusy "interrupt" or "enqueue"', {
    activeRunId,
  })
}

/** How long a client refused by a draining server should wait before sending again (ms). */
export const DRAIN_RETRY_MS = 1000

/** The refusal of a new run by a draining server: `unavailable`, with a retry hint (HTTP dialects: Retry-After). */
export function drainingError(): ParlanceError {
  return new ParlanceError('unavailable', 'this server is draining for a restart and starts no new run; send again (to another node)', {
    draining: true,
    retryAfterMs: DRAIN_RETRY_MS,
  })
}
