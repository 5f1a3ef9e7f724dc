import { toolResultText, type EventOf, type HistoryMessage, type StoredEvent } from '../../core/index.js'
import type { HitlRequest, LcInterrupt, LcMessage } from './wire.js'

const argsOf = (json: string): Record<string, unknown> => {
  try {
    const v: unknown = JSON.parse(json)
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/**
 * A history message in LangChain's dict shape. Ids are Parlance's, which the log fixes (a user message's id, a
 * text message's id, `msg_<tool call>` and `res_<tool call>`), so they are the same in every stream, replay and
 * state read. A failed or cancelled tool call is a tool message with `status: 'error'` and the reason as content.
 */
export function lcMessage(h: HistoryMessage): LcMessage {
  if (h.role === 'user') return { type: 'human', id: h.id, content: h.content }
  if (h.role === 'assistant')
    return {
      type: 'ai',
      id: h.id,
      content: h.content,
      tool_calls: (h.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, args: argsOf(c.arguments), type: 'tool_call' })),
    }
  return h.error !== undefined
    ? { type: 'tool', id: h.id, content: h.error, tool_call_id: h.toolCallId, status: 'error' }
    : { type: 'tool', id: h.id, content: h.content, tool_call_id: h.toolCallId, status: 'success' }
}

/** Text of messages still open (being streamed, or sent and awaiting their delivery confirmation), by message id. */
export type OpenTexts = Readonly<Record<string, string>>

/** The history after one event, and the message it added (null: none), as `ConversationModel` folds it. */
export interface Folded {
  readonly messages: readonly LcMessage[]
  readonly texts: OpenTexts
  readonly added: LcMessage | null
  /** The history changed (a message added, a cut, a replacement). */
  readonly changed: boolean
}

const without = (texts: OpenTexts, id: string): OpenTexts => {
  const { [id]: _, ...rest } = texts
  return rest
}

/**
 * Folds one event into the history in LangChain's shape (pure): the same rules as `ConversationModel`, so a stream's
 * `values` and a thread's state never disagree.
 */
export function foldMessages(messages: readonly LcMessage[], texts: OpenTexts, e: StoredEvent): Folded {
  const add = (m: LcMessage, t: OpenTexts = texts): Folded => ({ messages: [...messages, m], texts: t, added: m, changed: true })
  switch (e.type) {
    case 'message.user':
      return add({ type: 'human', id: e.messageId, content: e.content })
    case 'text.start':
      return { messages, texts: { ...texts, [e.messageId]: '' }, added: null, changed: false }
    case 'text.delta':
      return { messages, texts: { ...texts, [e.messageId]: (texts[e.messageId] ?? '') + e.delta }, added: null, changed: false }
    case 'text.end':
      return add({ type: 'ai', id: e.messageId, content: texts[e.messageId] ?? '', tool_calls: [] }, without(texts, e.messageId))
    case 'message.sent':
      if (e.confirm) return { messages, texts: { ...texts, [e.messageId]: e.message }, added: null, changed: false }
      return add({ type: 'ai', id: e.messageId, content: e.message, tool_calls: [] })
    case 'message.delivery': {
      const text = texts[e.messageId]
      if (!e.ok || text === undefined) return { messages, texts: without(texts, e.messageId), added: null, changed: false }
      return add({ type: 'ai', id: e.messageId, content: text, tool_calls: [] }, without(texts, e.messageId))
    }
    case 'tool.call':
      return add({
        type: 'ai',
        id: `msg_${e.toolCallId}`,
        content: '',
        tool_calls: [{ id: e.toolCallId, name: e.toolName, args: e.args, type: 'tool_call' }],
      })
    case 'tool.result':
      return add({ type: 'tool', id: `res_${e.toolCallId}`, content: toolResultText(e.result), tool_call_id: e.toolCallId, status: 'success' })
    case 'tool.error':
    case 'tool.cancel':
      return add({
        type: 'tool',
        id: `res_${e.toolCallId}`,
        content: e.type === 'tool.error' ? e.error : `cancelled: ${e.reason}`,
        tool_call_id: e.toolCallId,
        status: 'error',
      })
    case 'history.rewound': {
      if (e.toMessageId === null) return { messages: [], texts, added: null, changed: true }
      const at = messages.findLastIndex((m) => m.id === e.toMessageId)
      return at < 0 ? { messages, texts, added: null, changed: false } : { messages: messages.slice(0, at + 1), texts, added: null, changed: true }
    }
    case 'messages.snapshot':
      return { messages: e.messages.map(lcMessage), texts, added: null, changed: true }
    default:
      return { messages, texts, added: null, changed: false }
  }
}

/** Decisions Agent Chat UI offers for an approval: approve or reject (an edited call has no place in a Parlance approval). */
export const ALLOWED_DECISIONS = ['approve', 'reject'] as const

/** An approval as the HITL middleware's interrupt (its id: the approval id, which `command.resume` may key by). */
export function approvalInterrupt(e: EventOf<'approval.requested'>): LcInterrupt {
  const why = e.reasoning ? `: ${e.reasoning}` : ''
  const value: HitlRequest = {
    action_requests: [{ name: e.toolName, args: e.args, description: `Tool execution requires approval (risk: ${e.risk})${why}` }],
    review_configs: [{ action_name: e.toolName, allowed_decisions: [...ALLOWED_DECISIONS] }],
  }
  return { value, id: e.approvalId }
}

/** A client tool call as the SDK's headless-tool interrupt (`{type: 'tool', toolCall}`), id the tool call id. */
export function toolInterrupt(e: EventOf<'tool.call'>): LcInterrupt {
  return { value: { type: 'tool', toolCall: { id: e.toolCallId, name: e.toolName, args: e.args } }, id: e.toolCallId }
}

/** The interrupt an event raises (an approval asked, a client tool called), or null. */
export function interruptOf(e: StoredEvent): LcInterrupt | null {
  if (e.type === 'approval.requested') return approvalInterrupt(e)
  if (e.type === 'tool.call' && e.target === 'client') return toolInterrupt(e)
  return null
}
