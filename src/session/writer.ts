import { randomUUID } from 'node:crypto'
import { newId, ParlanceError, toParlanceError, type Command, type EventBody, type Json } from '../core/index.js'
import type { AgentDefinition, RunInput } from '../agent/index.js'
import { deliverAddonEvent, recordStreamedDelivery } from './messaging.js'
import type { Role } from './role.js'
import { createRunContext } from './run-context.js'
import { Run, type AbortCode } from './run.js'
import type { Session } from './session.js'

/**
 * The writer role of a session: this node assigns its seqs, runs its agent and commits. Carries out client
 * commands, owns the active run and ends it — always through `Run.abort` when it is cut short. A single node
 * is always the writer; in cluster mode, the node holding the session's lease.
 */
export class Writer implements Role {
  readonly kind = 'writer'
  /** The active run, if any. */
  run: Run | null = null

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
        this.startRun(
          { kind: 'message', text: cmd.content, messageId: cmd.messageId ?? newId('msg'), metadata: cmd.metadata, clientTools: cmd.clientTools ?? [] },
          cmd.agent,
        )
        return
      case 'context.update':
        s.appendNow(runId, { type: 'context.update', name: cmd.name, description: cmd.description, context: cmd.context, triggering: cmd.triggering })
        if (cmd.triggering) {
          this.startRun({ kind: 'context', text: cmd.description, name: cmd.name, context: cmd.context, messageId: newId('ctx'), clientTools: [] })
        }
        return
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
      case 'run.cancel':
        if (!this.run) throw new ParlanceError('not_found', 'no active run to cancel')
        this.stop('cancelled', cmd.reason ?? 'cancelled by the client')
        return
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
    this.s.deps.hooks.runEnded?.(this.s, run.id, 'interrupted')
  }

  /** Ends a run once: closes what it left open, then run.finished or run.error. */
  private end(run: Run, body: Extract<EventBody, { type: 'run.finished' | 'run.error' }>): void {
    if (run.ended) return
    run.ended = true
    const record = this.record(run)
    run.close(record)
    record(body)
    if (this.run === run) this.run = null
    this.s.deps.store.touch(this.s)
    this.s.deps.hooks.runEnded?.(this.s, run.id, body.type === 'run.error' ? body.code : 'finished')
  }

  /** Records an event of `run` without waiting for flow control (commands and teardown: short bursts). */
  private record(run: Run): (body: EventBody) => void {
    return (body) => this.s.appendNow(run.id, body)
  }

  private startRun(input: RunInput, agentName?: string): void {
    const s = this.s
    const name = agentName ?? s.agentName
    const agent = s.deps.agent(name)
    if (!agent) throw new ParlanceError('not_found', `no agent named "${name}"`, { agent: name })
    const failing = s.deps.store.stalled ? s.deps.store.failing : null
    if (failing) {
      throw new ParlanceError('unavailable', `the store has failed to commit since ${new Date(failing.since).toISOString()} (${failing.error}); no run starts until it recovers — try again shortly`)
    }
    if (!this.run && s.deps.admitRun && !s.deps.admitRun()) {
      throw new ParlanceError('unavailable', `the server is running its limit of ${s.deps.limits.maxConcurrentRuns} agent runs; try again shortly`, {
        maxConcurrentRuns: s.deps.limits.maxConcurrentRuns,
      })
    }
    if (this.run) this.stop('interrupted', 'interrupted by new input')
    s.agentName = name
    // The pending index is the run's own state; in cluster mode every node is told where each request waits.
    const share = s.deps.sharePending
    const run = new Run(newId('run'), name, input, s.lastSeq + 1, share && ((id, waiting) => share(id, waiting ? s.id : null)))
    this.run = run
    if (input.kind === 'message') s.appendNow(run.id, { type: 'message.user', messageId: input.messageId, content: input.text, metadata: input.metadata })
    s.appendNow(run.id, { type: 'run.started', agent: name })
    s.deps.hooks.runStarted?.(s)
    void this.execute(run, agent)
  }

  private async execute(run: Run, agent: AgentDefinition): Promise<void> {
    const ctx = createRunContext(this.s, run, agent, this.s.deps.limits, randomUUID)
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
