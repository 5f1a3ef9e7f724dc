import { toolResultOf, type ClientToolSpec, type Command, type HistoryMessage, type Json, type SessionId } from '../../core/index.js'
import { APPROVAL_TOOL } from './chat-format.js'
import { parseChatToolCallId } from './ids.js'
import type { ChatCompletionRequest, ChatMessage, InputItem, ResponseRequest } from './wire.js'

/** What reconciling a request reads of its session (a `Session`, narrowed). */
export interface StoredConversation {
  readonly id: SessionId
  readonly model: { readonly messages: readonly HistoryMessage[] }
  waitsFor(id: string): boolean
}

type Part = { type: string; text?: string }

/** A message's text: a string as is, text parts joined (decode has refused any other part). */
export const textOf = (content: string | readonly Part[] | null | undefined): string =>
  typeof content === 'string' ? content : (content ?? []).map((p) => p.text ?? '').join('')

/**
 * An approval answer given as a tool message's text: `{"approved": true|false, "feedback"?}` as JSON, or a plain
 * yes (`approve`, `approved`, `yes`, `y`, `true`, `ok`); anything else refuses, the text being the feedback.
 */
export function approvalOf(text: string): { approved: boolean; feedback?: string } {
  const v = toolResultOf(text)
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof v.approved === 'boolean') {
    return { approved: v.approved, ...(typeof v.feedback === 'string' ? { feedback: v.feedback } : {}) }
  }
  if (v === true) return { approved: true }
  const t = text.trim().toLowerCase()
  if (['approve', 'approved', 'yes', 'y', 'true', 'ok'].includes(t)) return { approved: true }
  return t === '' || t === 'false' || t === 'no' || t === 'reject' || t === 'rejected' ? { approved: false } : { approved: false, feedback: text }
}

/** What the request tells the agent beyond its messages (system / developer messages, `instructions`). */
const instructionsOf = (text: string) => (text ? { metadata: { openai: { instructions: text } } } : {})

/**
 * The commands a Chat Completions request asks for (pure). Trailing `tool` messages answer what the session waits
 * for: a client tool call, or an approval (the `parlance_approval` call: see `approvalOf`). A trailing user message
 * is a new turn (with the request's `tools` as client tools); when the session has no history yet (a conversation
 * that starts here), the messages before it are its history. System and developer messages go to the agent as
 * `metadata.openai.instructions` of the turn.
 */
export function reconcileChat(session: StoredConversation, body: ChatCompletionRequest, agent: string): Command[] {
  const sessionId = session.id
  const msgs = body.messages
  const out: Command[] = []
  let end = msgs.length
  while (end > 0 && msgs[end - 1]!.role === 'tool') end--
  const calls = new Map<string, string>()
  for (const m of msgs) if (m.role === 'assistant') for (const c of m.tool_calls ?? []) calls.set(c.id, c.function.name)
  for (const m of msgs.slice(end)) {
    if (m.role !== 'tool') continue
    const id = parseChatToolCallId(m.tool_call_id)?.toolCallId ?? m.tool_call_id
    if (!session.waitsFor(id)) continue
    const text = textOf(m.content)
    if (calls.get(m.tool_call_id) === APPROVAL_TOOL) out.push({ type: 'approval.response', sessionId, approvalId: id, ...approvalOf(text) })
    else out.push({ type: 'tool.result', sessionId, toolCallId: id, outcome: 'success', result: toolResultOf(text) })
  }
  const last = msgs[msgs.length - 1]
  if (last?.role !== 'user') return out
  const system = msgs
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n\n')
  if (session.model.messages.length === 0 && msgs.length > 1) {
    const history = historyOf(sessionId, msgs.slice(0, -1))
    if (history.length > 0) out.push({ type: 'history.replace', sessionId, messages: history })
  }
  out.push({ type: 'user.message', sessionId, content: textOf(last.content), agent, clientTools: chatTools(body), ...instructionsOf(system) })
  return out
}

function chatTools(body: ChatCompletionRequest): ClientToolSpec[] {
  return (body.tools ?? []).map((t) => ({
    name: t.function.name,
    ...(t.function.description !== undefined ? { description: t.function.description } : {}),
    ...(t.function.parameters !== undefined ? { parameters: t.function.parameters as Json } : {}),
  }))
}

/** Chat messages as history, with ids made from the session and the position (a seeded conversation). */
function historyOf(sessionId: SessionId, msgs: readonly ChatMessage[]): HistoryMessage[] {
  const out: HistoryMessage[] = []
  msgs.forEach((m, i) => {
    const id = `${sessionId}:${i}`
    if (m.role === 'user') out.push({ id, role: 'user', content: textOf(m.content) })
    else if (m.role === 'assistant') {
      const toolCalls = (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }))
      out.push({ id, role: 'assistant', content: textOf(m.content), ...(toolCalls.length ? { toolCalls } : {}) })
    } else if (m.role === 'tool') out.push({ id, role: 'tool', toolCallId: m.tool_call_id, content: textOf(m.content) })
  })
  return out
}

type Message = Extract<InputItem, { role: string }>
const isMessage = (i: InputItem): i is Message => 'role' in i && (i.type === undefined || i.type === 'message')

/**
 * The commands a Responses request asks for (pure). `mcp_approval_response` items answer approvals and
 * `function_call_output` items client tool calls the session waits for; a trailing user message is a new turn
 * (function tools as client tools, `instructions` as `metadata.openai.instructions`); message items before it are
 * history the session lacks (the conversation so far, when it starts here; added after the stored history
 * otherwise).
 */
export function reconcileResponse(session: StoredConversation, body: ResponseRequest, agent: string): Command[] {
  const sessionId = session.id
  const items: readonly InputItem[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input
  const out: Command[] = []
  for (const item of items) {
    if (item.type === 'mcp_approval_response' && 'approve' in item && session.waitsFor(item.approval_request_id)) {
      out.push({
        type: 'approval.response',
        sessionId,
        approvalId: item.approval_request_id,
        approved: item.approve,
        ...(item.reason ? { feedback: item.reason } : {}),
      })
    } else if (item.type === 'function_call_output' && 'call_id' in item && session.waitsFor(item.call_id)) {
      const text = typeof item.output === 'string' ? item.output : textOf(item.output)
      out.push({ type: 'tool.result', sessionId, toolCallId: item.call_id, outcome: 'success', result: toolResultOf(text) })
    }
  }
  const messages = items.filter(isMessage)
  const last = items[items.length - 1]
  if (last === undefined || !isMessage(last) || last.role !== 'user') return out
  const earlier: HistoryMessage[] = messages
    .slice(0, -1)
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m, i) => ({
      id: m.id ?? `${sessionId}:${session.model.messages.length + i}`,
      role: m.role as 'user' | 'assistant',
      content: textOf(m.content),
    }))
  if (earlier.length > 0) out.push({ type: 'history.replace', sessionId, messages: [...session.model.messages, ...earlier] })
  const system = [body.instructions ?? '', ...messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content))]
    .filter(Boolean)
    .join('\n\n')
  const clientTools: ClientToolSpec[] = (body.tools ?? []).flatMap((t) =>
    t.type === 'function' && t.name
      ? [{ name: t.name, ...(t.description ? { description: t.description } : {}), ...(t.parameters ? { parameters: t.parameters as Json } : {}) }]
      : [],
  )
  out.push({ type: 'user.message', sessionId, content: textOf(last.content), agent, clientTools, ...instructionsOf(system) })
  return out
}
