import type { HistoryMessage, ParlanceError, StoredEvent } from '../../core/index.js'
import { HAI_ERROR_CODES } from './errors.js'
import { PLAN_PREFIX, PLAN_SEPARATOR, QUEUED_MESSAGE, REWOUND_MESSAGE } from './wire.js'

/** Per-session constants of the HAI encoder, with their JSON precomputed. */
export interface HaiView {
  readonly sessionId: string
  readonly agentId: string
  /** `"session_id":…,"agent_id":…` ready to splice into a frame. */
  readonly ids: string
  /**
   * The frame tail of the message being streamed, made once per message instead of once per token (a memo:
   * not part of what the view means, nor of its share key).
   */
  readonly chunk?: ChunkTail
}

/** Everything of a streamed chunk's frame after its content, up to its seq. */
export interface ChunkTail {
  readonly messageId: string
  readonly tail: string
}

/** The view with `messageId`'s chunk tail memoized (the same view when it already has it). */
export function chunkView(view: HaiView, messageId: string): HaiView & { readonly chunk: ChunkTail } {
  if (view.chunk?.messageId === messageId) return view as HaiView & { readonly chunk: ChunkTail }
  return { ...view, chunk: { messageId, tail: `,"message_id":${json(messageId)},${view.ids},"is_final":false,"seq":` } }
}

/** A `text.delta`'s frame. */
export function chunkFrame(delta: string, seq: number, chunk: ChunkTail): string {
  return `{"type":"assistant_message_chunk","content":${json(delta)}${chunk.tail}${seq}}`
}

/** Builds the view the encoder needs for one session. */
export function haiView(sessionId: string, agentId: string): HaiView {
  return { sessionId, agentId, ids: `"session_id":${JSON.stringify(sessionId)},"agent_id":${JSON.stringify(agentId)}` }
}

const json = JSON.stringify

/**
 * Encodes one canonical event as HAI frames. The (last) frame of each event
 * carries the event's `seq` (a Parlance extension used to resume:
 * `/ws?session_id=…&after=SEQ`).
 * Events HAI has no message for (steps, state, custom…) yield no frame.
 */
export function encode(e: StoredEvent, view: HaiView): string[] {
  switch (e.type) {
    case 'text.delta':
      return [chunkFrame(e.delta, e.seq, chunkView(view, e.messageId).chunk)]
    case 'text.end':
      return [`{"type":"assistant_message_chunk","content":"","message_id":${json(e.messageId)},${view.ids},"is_final":true,"seq":${e.seq}}`]
    case 'status':
      return [frame(view, e.seq, { type: 'status', status: e.status, ...(e.message !== undefined ? { message: e.message } : {}) })]
    case 'run.finished':
      return [frame(view, e.seq, { type: 'status', status: 'completed' })]
    case 'run.error':
      // Two frames for one event: only the last carries the seq, so a client that resumes from the
      // seq it saw last has seen the whole event.
      return [
        frame(view, undefined, {
          type: 'error',
          error_code: HAI_ERROR_CODES[e.code],
          message: e.message,
          details: { ...e.details, run_id: e.runId, seq: e.seq },
        }),
        frame(view, e.seq, { type: 'status', status: 'completed' }),
      ]
    case 'error':
      return [frame(view, e.seq, { type: 'error', error_code: HAI_ERROR_CODES[e.code], message: e.message, details: e.details ?? {} })]
    case 'tool.call':
      return [
        frame(view, e.seq, {
          type: 'tool_call_start',
          tool_call_id: e.toolCallId,
          tool_name: e.toolName,
          parameters: e.args,
          metadata: { target: e.target },
        }),
      ]
    case 'tool.result':
      return [
        frame(view, e.seq, {
          type: 'tool_call_end',
          tool_call_id: e.toolCallId,
          tool_name: e.toolName,
          result: typeof e.result === 'string' ? e.result : json(e.result),
          metadata: { result: e.result },
        }),
      ]
    case 'tool.error':
      return [frame(view, e.seq, { type: 'tool_call_error', tool_call_id: e.toolCallId, tool_name: e.toolName, error: e.error })]
    case 'tool.cancel':
      return [
        frame(view, e.seq, {
          type: 'tool_call_error',
          tool_call_id: e.toolCallId,
          tool_name: e.toolName,
          error: `cancelled: ${e.reason}`,
          metadata: { cancelled: true },
        }),
      ]
    case 'approval.requested':
      return [
        frame(view, e.seq, {
          type: 'tool_approval_request',
          tool_name: e.toolName,
          tool_description: e.toolDescription,
          parameters: e.args,
          reasoning: e.reasoning,
          risk_level: e.risk,
          approval_id: e.approvalId,
          timeout_ms: e.timeoutMs,
        }),
      ]
    case 'approval.resolved':
      // An answer the client gave needs no echo; one it did not give (timeout, withdrawn by an interrupt)
      // must reach it, so its approval dialog can close.
      if (e.by === 'user') return []
      return [
        frame(view, e.seq, {
          type: 'error',
          error_code: HAI_ERROR_CODES[e.by === 'timeout' ? 'timeout' : 'cancelled'],
          message: e.by === 'timeout' ? `approval ${e.approvalId} timed out` : `approval ${e.approvalId} was withdrawn: the run stopped`,
          details: { approval_id: e.approvalId },
        }),
      ]
    case 'message.sent':
      // A whole message of a messaging burst (`ctx.send`): HAI's complete assistant message.
      return [frame(view, e.seq, { type: 'assistant_message', content: e.message, metadata: { message_id: e.messageId } })]
    case 'message.queued':
      // HAI has no word for a waiting message: a status the run is busy with, naming it (Parlance extension `queued`).
      return [
        frame(view, e.seq, { type: 'status', status: 'thinking', message: QUEUED_MESSAGE, queued: { message_id: e.messageId, content: e.content } }),
      ]
    case 'history.rewound':
      return [
        frame(view, e.seq, {
          type: 'status',
          status: 'thinking',
          message: REWOUND_MESSAGE[e.reason],
          rewound: {
            to_message_id: e.toMessageId,
            reason: e.reason,
            ...(e.droppedRunId !== undefined ? { dropped_run_id: e.droppedRunId } : {}),
            ...(e.branch !== undefined ? { branch: e.branch } : {}),
          },
        }),
      ]
    case 'plan':
      return [frame(view, e.seq, { type: 'status', status: 'thinking', message: PLAN_PREFIX + e.tasks.map((t) => t.title).join(PLAN_SEPARATOR) })]
    case 'progress':
      return [
        frame(view, e.seq, {
          type: 'status',
          status: 'executing_tools',
          message: e.message ?? `${Math.round(e.percent)}% done`,
          progress: e.percent,
        }),
      ]
    default:
      return []
  }
}

/** A complete past assistant message, for clients that attach with `history=1`. */
export function encodeHistory(m: HistoryMessage, view: HaiView): string | null {
  if (m.role !== 'assistant' || !m.content) return null
  return `{"type":"assistant_message","content":${json(m.content)},${view.ids},"metadata":{"message_id":${json(m.id)},"history":true}}`
}

/** An inbound error, answered in HAI's `error` shape. */
export function encodeError(err: ParlanceError, view: HaiView | null): string {
  const body = { type: 'error', error_code: HAI_ERROR_CODES[err.code], message: err.message, details: err.details ?? {} }
  return view ? frame(view, undefined, body) : json(body)
}

function frame(view: HaiView, seq: number | undefined, body: Record<string, unknown>): string {
  const s = json(body)
  return `${s.slice(0, -1)},${view.ids}${seq === undefined ? '' : `,"seq":${seq}`}}`
}
