import { ParlanceError, type Command, type EventBody, type RunId } from '../core/index.js'
import type { ApprovalResult, RunInput } from '../agent-api/index.js'
import { ROOT_CONTEXT, type Context, type RunTrace } from '../telemetry/index.js'
import { closeBursts } from './messaging.js'
import { PendingRequests } from './pending.js'

/** A client tool's answer as the run sees it. */
export type ClientToolAnswer = Extract<Command, { type: 'tool.result' }> | { type: 'timeout' }

/** Records one event for the run (the session's `appendNow`). */
export type RecordEvent = (body: EventBody) => void

/** How a run cut short ends. */
export type AbortCode = 'interrupted' | 'cancelled' | 'unavailable'

/**
 * One agent run: its abort signal, what it waits for from clients and what it left open. Every approval and
 * client tool call id starting or stopping to wait is reported to `onPending` (cluster mode shares it with
 * every node); what the run waits for is read from the run itself (`waitsFor`).
 */
export class Run {
  /** Made when the agent first reads `signal` (most runs never do; one cost ~4 µs, 5 % of opening a session in a burst). */
  private controller: AbortController | null = null
  readonly approvals: PendingRequests<ApprovalResult, { toolName: string }>
  readonly clientTools: PendingRequests<ClientToolAnswer, { toolName: string }>
  /** Text and reasoning messages started and not yet ended (closed for the client if the run stops early). */
  readonly openText = new Set<string>()
  readonly openReasoning = new Set<string>()
  ended = false
  /** The run's span and the context its agent runs in (see `Writer.startRun`); a no-op span until set. */
  trace: RunTrace | null = null
  /** Why the run was aborted (set by `abort`, the only caller of `controller.abort`); read per event, where `signal.aborted` costs a brand check. */
  private abortReason: ParlanceError | null = null

  constructor(
    readonly id: RunId,
    readonly agent: string,
    readonly input: RunInput,
    /** seq of the run's first event. */
    readonly startSeq: number,
    /** The last history message before the run's own input (null: none); a rollback cuts the history back to it. */
    readonly historyBase: string | null,
    onPending?: (id: string, waiting: boolean) => void,
  ) {
    this.approvals = new PendingRequests(onPending)
    this.clientTools = new PendingRequests(onPending)
  }

  /** The context the run's spans descend from: its own span's, else the root. */
  get traceContext(): Context {
    return this.trace?.ctx ?? ROOT_CONTEXT
  }

  /** The agent's abort signal; already aborted, with the reason, when read after `abort`. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController()
      if (this.abortReason) this.controller.abort(this.abortReason)
    }
    return this.controller.signal
  }

  /**
   * Stops the run where it stands; every teardown path (a cancel, an interrupt, a shutdown, a lost write) goes
   * through here. With `record`, what it waits for is recorded as given up (client tool calls cancelled,
   * approvals withdrawn); then the agent's signal fires with a ParlanceError(`code`, `message`), every wait is
   * rejected with it, and what the run left open is closed (`close`). Without `record` (this node may no longer
   * write) nothing is recorded. The caller records the run's end.
   */
  abort(code: AbortCode, message: string, record?: RecordEvent): void {
    const reason = new ParlanceError(code, message)
    if (record) {
      for (const [toolCallId, meta] of this.clientTools.entries())
        record({ type: 'tool.cancel', toolCallId, toolName: meta.toolName, reason: message })
      for (const [approvalId] of this.approvals.entries()) record({ type: 'approval.resolved', approvalId, approved: false, by: 'cancel' })
    }
    this.abortReason = reason
    this.controller?.abort(reason)
    this.approvals.rejectAll(reason)
    this.clientTools.rejectAll(reason)
    this.close(record ?? (() => {}))
  }

  /** Closes what the run left open (messaging bursts, reasoning and text messages), recording each close; once. */
  close(record: RecordEvent): void {
    closeBursts(this, record, this.abortReason ?? undefined)
    for (const messageId of this.openReasoning) record({ type: 'reasoning.end', messageId })
    for (const messageId of this.openText) record({ type: 'text.end', messageId, cut: true })
    this.openText.clear()
    this.openReasoning.clear()
  }

  /** Is `id` an approval or client tool call this run waits for? */
  waitsFor(id: string): boolean {
    return this.approvals.has(id) || this.clientTools.has(id)
  }

  /** Throws the abort reason once the run was stopped. */
  ensureActive(): void {
    if (this.ended || this.abortReason) throw this.abortReason ?? new Error('run ended')
  }
}
