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

  /** Throws the abort reason once the run was stopped. */
  ensureActive(): void {
    if (this.ended || this.controller.signal.aborted) throw this.controller.signal.reason ?? new Error('run ended')
  }
}
