import type { Command, RunId } from '../core/index.js'
import type { ApprovalResult, RunInput } from '../agent/index.js'
import { PendingRequests } from './pending.js'

/** A client tool's answer as the run sees it. */
export type ClientToolAnswer = Extract<Command, { type: 'tool.result' }> | { type: 'timeout' }

/** One agent run: its abort signal, and what it waits for from clients. */
export class Run {
  readonly controller = new AbortController()
  readonly approvals = new PendingRequests<ApprovalResult, { toolName: string }>()
  readonly clientTools = new PendingRequests<ClientToolAnswer, { toolName: string }>()
  /** Text and reasoning messages started and not yet ended (closed for the client if the run stops early). */
  readonly openText = new Set<string>()
  readonly openReasoning = new Set<string>()
  ended = false

  constructor(
    readonly id: RunId,
    readonly agent: string,
    readonly input: RunInput,
    /** seq of the run's first event. */
    readonly startSeq: number,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal
  }

  /**
   * Stops the run where it stands: the agent's signal fires with `reason`, and every approval and client tool
   * call it waits for is rejected with it. Every teardown path (a cancel, an interrupt, a shutdown, a lost
   * write) goes through here.
   */
  abort(reason: unknown): void {
    this.controller.abort(reason)
    this.approvals.rejectAll(reason)
    this.clientTools.rejectAll(reason)
  }

  /** Is `id` an approval or client tool call this run waits for? */
  waitsFor(id: string): boolean {
    return this.approvals.has(id) || this.clientTools.has(id)
  }

  /** Throws the abort reason once the run was stopped. */
  ensureActive(): void {
    if (this.ended || this.controller.signal.aborted) throw this.controller.signal.reason ?? new Error('run ended')
  }
}
