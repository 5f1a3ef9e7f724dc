import type { ClientToolSpec } from './commands.js'
import type { ErrorCode } from './errors.js'
import type { RunId, SessionId } from './ids.js'

/** JSON value as stored and sent. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** One RFC 6902 operation. */
export interface PatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test'
  path: string
  value?: unknown
  from?: string
}

/** Processing status, the HAI seed's four values. */
export type RunStatus = 'thinking' | 'routing' | 'executing_tools' | 'completed'
/** Risk level of an action that needs approval. */
export type RiskLevel = 'low' | 'medium' | 'high' | 'critical'
/** Where a tool runs: in the server process, or in the client that asked. */
export type ToolTarget = 'server' | 'client'

/** A message in the conversation history, AG-UI shaped (the richest of the dialects). */
export type HistoryMessage =
  | { id: string; role: 'user'; content: string }
  | { id: string; role: 'assistant'; content: string; toolCalls?: HistoryToolCall[] }
  | { id: string; role: 'tool'; toolCallId: string; content: string; error?: string }

/** The context update a queued trigger carries (its event was recorded when it arrived). */
export interface QueuedContext {
  name: string
  context: Record<string, unknown>
}

/** A message waiting for its run under the `enqueue` policy (the session record keeps them, in order). */
export interface QueuedMessage {
  messageId: string
  content: string
  metadata?: Record<string, unknown>
  agent?: string
  clientTools?: ClientToolSpec[]
  /** Set when the queued input is a triggering context update rather than a user message. */
  context?: QueuedContext
}

/**
 * An agent's failure as the server keeps it (a run error's `internal`): the reference clients are given, and the
 * message, details and stack (with its causes) as thrown. The log and the inspector show it; clients never get it.
 */
export interface RunFailure {
  ref: string
  message: string
  details?: Record<string, unknown>
  stack?: string
}

/**
 * Tokens one model call reported: `inputTokens` (prompt, cached ones included), `outputTokens` (completion,
 * reasoning included), and of those `cachedInputTokens` and `reasoningTokens`. A count the model did not give is absent.
 */
export interface TokenUsage {
  inputTokens?: number
  outputTokens?: number
  reasoningTokens?: number
  cachedInputTokens?: number
}

/** The kinds of `TokenUsage`, as the `kind` label of `parlance_tokens_total` names them. */
export const TOKEN_KINDS = { inputTokens: 'input', outputTokens: 'output', reasoningTokens: 'reasoning', cachedInputTokens: 'cached_input' } as const

/** `total` plus `usage`, kind by kind (a kind neither has stays absent). */
export function addUsage(total: TokenUsage, usage: TokenUsage): TokenUsage {
  const sum: TokenUsage = { ...total }
  for (const k of Object.keys(TOKEN_KINDS) as Array<keyof TokenUsage>) {
    const n = usage[k]
    if (typeof n === 'number' && Number.isFinite(n)) sum[k] = (sum[k] ?? 0) + n
  }
  return sum
}

/** A `usage` event's report as a JSON object for the wire: agent, model, provider when known, and the counts given. */
export function usageValue(e: { agent: string; model: string; provider?: string } & TokenUsage): { [key: string]: Json } {
  const v: { [key: string]: Json } = { agent: e.agent, model: e.model }
  if (e.provider !== undefined) v.provider = e.provider
  for (const k of Object.keys(TOKEN_KINDS) as Array<keyof TokenUsage>) if (e[k] !== undefined) v[k] = e[k]
  return v
}

export interface HistoryToolCall {
  id: string
  name: string
  arguments: string
}

/** A task of a plan. */
export interface PlanTask {
  id: string
  title: string
}

/**
 * The canonical events: a superset of AG-UI's event set plus approvals,
 * status, plan/progress, typing and client tool calls with cancellation.
 * Dotted lowercase names; wire names live only in dialect folders.
 */
export type EventBody =
  | { type: 'message.user'; messageId: string; content: string; metadata?: Record<string, unknown> }
  /**
   * A message that arrived while a run was active under the `enqueue` policy: it starts a run of its own later.
   * With `context`, it is a triggering context update (HUMA): `content` is its description.
   */
  | ({ type: 'message.queued' } & QueuedMessage)
  /** A queued message taken back by its client before its run started (a cancel naming it): it never runs. */
  | { type: 'message.withdrawn'; messageId: string; reason: string }
  /**
   * The history the agent sees is cut back to `toMessageId` (kept; null: nothing kept). What came after stays
   * in the log, superseded: `rollback` (a run dropped by new input), `regenerate` (an answer asked again),
   * `edit` (an earlier message edited and resent; `branch` is the session the old branch was forked to).
   * `droppedRunId`: the run a rollback dropped.
   */
  | { type: 'history.rewound'; toMessageId: string | null; reason: 'rollback' | 'regenerate' | 'edit'; droppedRunId?: string; branch?: string }
  | { type: 'context.update'; name: string; description: string; context: Record<string, unknown>; triggering: boolean }
  /** `dequeued`: the id of the queued message this run answers (it leaves the queue here). */
  | { type: 'run.started'; agent: string; parentRunId?: string; dequeued?: string }
  | { type: 'run.finished'; result?: Json }
  /** `internal`: an agent's failure as it was thrown, kept for the log and the inspector; no dialect sends it. */
  | { type: 'run.error'; code: ErrorCode; message: string; details?: Record<string, unknown>; internal?: RunFailure }
  | { type: 'step.started'; stepId: string; name: string }
  | { type: 'step.finished'; stepId: string; name: string; ok: boolean; error?: string }
  | { type: 'text.start'; messageId: string }
  | { type: 'text.delta'; messageId: string; delta: string }
  /** `cut`: the run stopped before the message was complete (dialects that deliver whole messages drop it). */
  | { type: 'text.end'; messageId: string; cut?: true }
  | { type: 'reasoning.start'; messageId: string }
  | { type: 'reasoning.delta'; messageId: string; delta: string }
  | { type: 'reasoning.end'; messageId: string }
  | { type: 'tool.call'; toolCallId: string; toolName: string; args: Record<string, unknown>; target: ToolTarget; parentMessageId?: string }
  | { type: 'tool.result'; toolCallId: string; toolName: string; result: Json }
  | { type: 'tool.error'; toolCallId: string; toolName: string; error: string }
  /** `by: 'client'` when the client itself reported the call canceled (nothing to cancel on its side). */
  | { type: 'tool.cancel'; toolCallId: string; toolName: string; reason: string; by?: 'client' }
  | {
      type: 'approval.requested'
      approvalId: string
      toolName: string
      toolDescription: string
      args: Record<string, unknown>
      reasoning: string
      risk: RiskLevel
      timeoutMs: number
    }
  | { type: 'approval.resolved'; approvalId: string; approved: boolean; feedback?: string; by: 'user' | 'timeout' | 'cancel' }
  | { type: 'status'; status: RunStatus; message?: string }
  | { type: 'plan'; planId: string; tasks: PlanTask[] }
  | { type: 'progress'; planId?: string; taskId?: string; percent: number; message?: string }
  | { type: 'state.snapshot'; snapshot: Json }
  | { type: 'state.delta'; patch: PatchOp[] }
  | { type: 'messages.snapshot'; messages: HistoryMessage[] }
  /**
   * Typing indicator. A messaging burst (`ctx.send`) brackets its messages with typing on/off carrying the
   * burst's `toolCallId`; `reason` says why it ended early ('canceled': the run stopped; 'failed': a delivery failed).
   */
  | { type: 'typing'; active: boolean; toolCallId?: string; reason?: 'canceled' | 'failed' }
  /**
   * A whole assistant message of a messaging burst (`ctx.send`; `ctx.say` when a subscriber confirms delivery).
   * `confirm`: the run waits for a delivery confirmation (`message.delivery`) before the next message.
   */
  | {
      type: 'message.sent'
      toolCallId: string
      messageId: string
      message: string
      index: number
      count: number
      confirm: boolean
      extra?: Record<string, unknown>
    }
  /** The outcome of a confirmed message: the client's confirmation, or a timeout. */
  | { type: 'message.delivery'; toolCallId: string; messageId: string; index: number; ok: boolean; error?: string; by: 'client' | 'timeout' }
  /** Tokens a model call of the run used, as its provider reported them (one event per model call). */
  | ({ type: 'usage'; agent: string; model: string; provider?: string } & TokenUsage)
  | { type: 'custom'; name: string; value: Json }
  | { type: 'raw'; event: Json; source?: string }
  | { type: 'error'; code: ErrorCode; message: string; details?: Record<string, unknown> }

export type EventType = EventBody['type']

/** Fields every stored event carries. `seq` is 1, 2, 3… per session with no gaps. */
export interface EventMeta {
  sessionId: SessionId
  /** The run the event belongs to; empty string for session-level events. */
  runId: RunId
  seq: number
  /** Milliseconds since the epoch. */
  ts: number
}

/** An event as stored, replayed and fanned out. */
export type StoredEvent = EventBody & EventMeta

/** Narrows a StoredEvent by type. */
export type EventOf<T extends EventType> = Extract<EventBody, { type: T }> & EventMeta

/**
 * A tool result as the text of a tool message (history, AG-UI `TOOL_CALL_RESULT`, an LLM's tool turn):
 * a string as is, anything else as JSON. `toolResultOf` reads it back.
 */
export function toolResultText(result: Json): string {
  return typeof result === 'string' ? result : JSON.stringify(result)
}

/** A tool message's text as a result: its JSON value when it parses, else the text itself. */
export function toolResultOf(text: string): Json {
  try {
    return JSON.parse(text) as Json
  } catch {
    return text
  }
}

/** Events that end a run: exactly one per run. */
export function isRunEnd(e: { type: string }): boolean {
  return e.type === 'run.finished' || e.type === 'run.error'
}
