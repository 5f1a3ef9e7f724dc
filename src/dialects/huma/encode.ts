import type { ParlanceError, StoredEvent } from '../../core/index.js'
import { APPROVAL_TOOL } from './decode.js'
import { HUMA_ERROR_CODES } from './errors.js'

/** One Socket.IO emit: the channel ('event' or 'error') and the event object. */
export interface HumaFrame {
  readonly channel: 'event' | 'error'
  readonly payload: Record<string, unknown>
}

/**
 * Per-socket encoder state: text of streamed messages (`text.*`), collected
 * until `text.end` because HUMA only ever sends whole messages. Owned by the
 * connection and passed in; the encoder itself stays pure.
 */
export interface HumaView {
  readonly text: Map<string, string[]>
}

/** A fresh view for one socket. */
export function humaView(): HumaView {
  return { text: new Map() }
}

const event = (payload: Record<string, unknown>): HumaFrame => ({ channel: 'event', payload })

/**
 * Encodes one canonical event as HUMA frames. Every frame on 'event' carries
 * the event's `seq` (a Parlance extension: reconnect with `auth.afterSeq`).
 * Events HUMA has no word for (status, steps, state, server tool calls…)
 * yield no frame.
 */
export function encode(e: StoredEvent, view: HumaView): HumaFrame[] {
  const seq = e.seq
  switch (e.type) {
    case 'tool.call':
      if (e.target !== 'client') return []
      return [event({ type: 'tool-call', toolCallId: e.toolCallId, toolName: e.toolName, arguments: e.args, seq })]
    case 'tool.cancel':
      // A call the client canceled itself needs no cancel-tool-call back.
      if (e.by === 'client') return []
      return [event({ type: 'cancel-tool-call', toolCallId: e.toolCallId, toolName: e.toolName, reason: e.reason, seq })]
    case 'approval.requested':
      return [
        event({
          type: 'tool-call',
          toolCallId: e.approvalId,
          toolName: APPROVAL_TOOL,
          arguments: { toolName: e.toolName, description: e.toolDescription, args: e.args, reasoning: e.reasoning, risk: e.risk, timeoutMs: e.timeoutMs },
          seq,
        }),
      ]
    case 'approval.resolved':
      if (e.by === 'user') return []
      return [
        event({
          type: 'cancel-tool-call',
          toolCallId: e.approvalId,
          toolName: APPROVAL_TOOL,
          reason: e.by === 'timeout' ? 'the approval timed out' : 'the run stopped',
          seq,
        }),
      ]
    case 'typing':
      return [
        event({
          type: 'messaging',
          event: e.active ? 'typing_start' : 'typing_end',
          ...(e.toolCallId !== undefined ? { toolCallId: e.toolCallId } : {}),
          ...(e.reason !== undefined ? { reason: e.reason } : {}),
          seq,
        }),
      ]
    case 'message.sent':
      return [
        event({
          type: 'messaging',
          event: 'message_sent',
          toolCallId: e.toolCallId,
          message: e.message,
          messageIndex: e.index,
          messageCount: e.count,
          ...(e.extra !== undefined ? { extra_args: e.extra } : {}),
          seq,
        }),
      ]
    // Streamed text (produced while no HUMA socket was attached): rendered as a burst of one, unconfirmed.
    case 'text.start':
      view.text.set(e.messageId, [])
      return [event({ type: 'messaging', event: 'typing_start', toolCallId: e.messageId, seq })]
    case 'text.delta': {
      const parts = view.text.get(e.messageId)
      if (parts) parts.push(e.delta)
      else view.text.set(e.messageId, [e.delta])
      return []
    }
    case 'text.end': {
      const message = view.text.get(e.messageId)?.join('') ?? ''
      view.text.delete(e.messageId)
      const typingEnd = { type: 'messaging', event: 'typing_end', toolCallId: e.messageId }
      if (!message) return [event({ ...typingEnd, seq })]
      return [
        event({ type: 'messaging', event: 'message_sent', toolCallId: e.messageId, message, messageIndex: 0, messageCount: 1 }),
        event({ ...typingEnd, seq }),
      ]
    }
    case 'run.error':
      // An interrupt or cancel already reached the client as cancel-tool-call / typing_end "canceled".
      if (e.code === 'interrupted' || e.code === 'cancelled') return []
      return [{ channel: 'error', payload: { type: 'error', message: e.message, code: HUMA_ERROR_CODES[e.code], seq } }]
    case 'error':
      return [{ channel: 'error', payload: { type: 'error', message: e.message, code: HUMA_ERROR_CODES[e.code], seq } }]
    default:
      return []
  }
}

/** An inbound error, answered on the 'error' channel in the seed's shape. */
export function encodeError(err: ParlanceError, _view: HumaView | null): HumaFrame {
  return { channel: 'error', payload: { type: 'error', message: err.message, code: HUMA_ERROR_CODES[err.code] } }
}
