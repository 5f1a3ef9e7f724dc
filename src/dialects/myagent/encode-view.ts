/**
 * What MyAgent's encoder knows of one connection between batches (`MyAgentView`), the draft a batch edits, and a
 * fresh view. Types and one constructor: the encoder (encode.ts) reads and replaces views.
 */
import type { MyAgentServerEvent } from './wire.js'

/** A message being streamed: its text so far, chunks sent, and when it started (agent.final_answer carries it whole). */
interface OpenText {
  readonly text: string
  readonly chunks: number
  readonly started: number
}

/** The plan in progress (for solver.* events). */
interface PlanInProgress {
  readonly id: string
  readonly tasks: ReadonlyArray<{ readonly id: string; readonly title: string }>
  readonly completed: number
  readonly started: number
}

/**
 * What encoding needs across the events of one connection: its ids, the question of the current run (for
 * plan.start), the text of open messages and reasoning, the open confirmations (when asked and how long the
 * user has, for `error.timeout`), and the plan in progress. Immutable: a batch that changes it returns a new
 * view, so a parked connection's view is just a reference kept for its reconnect.
 */
export interface MyAgentView {
  readonly connectionId: string
  readonly sessionId: string
  readonly question: string
  readonly texts: ReadonlyMap<string, OpenText>
  readonly reasoning: ReadonlyMap<string, string>
  readonly approvals: ReadonlyMap<string, { readonly ts: number; readonly timeoutMs: number }>
  readonly plan: PlanInProgress | null
  /**
   * Final answers of messages that ended while the plan was unfinished: the seed's response chain ends with
   * `agent.final_answer`, so they go out after `solver.completed` (when the plan's last task completes, or the
   * run ends).
   */
  readonly held: readonly MyAgentServerEvent[]
  /** A final answer went out in the current run (a cancelled run without one gets an empty one). */
  readonly answered: boolean
}

/** The view a batch edits: a copy of the one it was given, made at its first change. */
export type Draft = { -readonly [K in keyof MyAgentView]: MyAgentView[K] extends ReadonlyMap<infer K2, infer V> ? Map<K2, V> : MyAgentView[K] }

/** A fresh view for a connection bound to `sessionId` ('' while it is bound to none). */
export function view(connectionId: string, sessionId = ''): MyAgentView {
  return {
    connectionId,
    sessionId,
    question: '',
    texts: new Map(),
    reasoning: new Map(),
    approvals: new Map(),
    plan: null,
    held: [],
    answered: false,
  }
}
