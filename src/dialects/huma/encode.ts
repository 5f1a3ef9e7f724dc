import type { Encoded, ParlanceError, StoredEvent } from '../../core/index.js'
import { HUMA_ERROR_CODES } from './errors.js'
import { APPROVAL_TOOL } from './wire.js'

/** One Socket.IO emit: the channel ('event' or 'error') and the event object. */
export interface HumaFrame {
  readonly channel: 'event' | 'error'
  readonly payload: Readonly<Record<string, unknown>>
}

/**
 * What the encoder carries from one batch to the next: the text of streamed messages (`text.*`) collected so
 * far, since HUMA only ever sends whole messages. Immutable: a batch that changes it returns a new view.
 */
export interface HumaView {
  readonly text: ReadonlyMap<string, string>
}

/**
 * The view of a socket with no message half-collected. Every socket starts from this one object and returns
 * to it whenever its messages are complete, so sockets of a session share one encoding per batch.
 */
export const EMPTY_VIEW: HumaView = Object.freeze({ text: new Map<string, string>() })

/**
 * Encodes a batch of canonical events as HUMA frames for `view`. Every frame on 'event' carries the event's
 * `seq` (a Parlance extension: reconnect with `auth.afterSeq`). Events HUMA has no word for (status, steps,
 * state, server tool calls…) yield no frame.
 */
export function encode(events: readonly StoredEvent[], view: HumaView): Encoded<HumaFrame, HumaView> {
  const frames: HumaFrame[] = []
  let text: Map<string, string> | null = null // a copy of view.text, made at the batch's first text event
  for (const e of events) {
    if (e.type === 'text.start' || e.type === 'text.delta' || e.type === 'text.end') {
      text ??= new Map(view.text)
      encodeText(e, text, frames)
    } else for (const f of encodeEvent(e)) frames.push(f)
  }
  if (text === null) return { frames, view }
  return { frames, view: text.size === 0 ? EMPTY_VIEW : Object.freeze({ text }) }
}

const event = (payload: Record<string, unknown>): HumaFrame => ({ channel: 'event', payload })

/** The frames of one event other than streamed text. */
function encodeEvent(e: StoredEvent): readonly HumaFrame[] {
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
          arguments: {
            toolName: e.toolName,
            description: e.toolDescription,
            args: e.args,
            reasoning: e.reasoning,
            risk: e.risk,
            timeoutMs: e.timeoutMs,
          },
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

/**
 * Streamed text (`ctx.say`, whoever watches): collected into `text` and rendered as a burst of one whose
 * toolCallId is the message id: typing_start, then message_sent and typing_end when it ends (the client's
 * delivery confirmation is recorded as message.delivery). A message cut short by a stopped run is not sent.
 */
function encodeText(e: Extract<StoredEvent, { type: 'text.start' | 'text.delta' | 'text.end' }>, text: Map<string, string>, out: HumaFrame[]): void {
  switch (e.type) {
    case 'text.start':
      text.set(e.messageId, '')
      out.push(event({ type: 'messaging', event: 'typing_start', toolCallId: e.messageId, seq: e.seq }))
      return
    case 'text.delta':
      text.set(e.messageId, (text.get(e.messageId) ?? '') + e.delta)
      return
    case 'text.end': {
      const message = text.get(e.messageId) ?? ''
      text.delete(e.messageId)
      // A message the run stopped in the middle of is not delivered: the burst ends canceled, as an interrupted one does.
      if (e.cut) return void out.push(event({ type: 'messaging', event: 'typing_end', toolCallId: e.messageId, reason: 'canceled', seq: e.seq }))
      if (message) out.push(event({ type: 'messaging', event: 'message_sent', toolCallId: e.messageId, message, messageIndex: 0, messageCount: 1 }))
      out.push(event({ type: 'messaging', event: 'typing_end', toolCallId: e.messageId, seq: e.seq }))
    }
  }
}

/** An inbound error, answered on the 'error' channel in the seed's shape. */
export function encodeError(err: ParlanceError, _view: HumaView | null): HumaFrame {
  return { channel: 'error', payload: { type: 'error', message: err.message, code: HUMA_ERROR_CODES[err.code] } }
}
