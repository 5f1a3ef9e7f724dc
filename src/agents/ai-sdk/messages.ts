import type { AssistantContent, ModelMessage, ToolResultPart } from 'ai'
import { toolResultOf, type HistoryMessage } from '../../core/index.js'

/** What the model is told for a call the history shows without its result (the run ended first). */
const NO_RESULT = 'no result: the run ended before the tool answered'

type ToolOutput = ToolResultPart['output']

/**
 * The conversation as the AI SDK's model messages: user and assistant text, the assistant's tool calls and
 * their results (a failed or cancelled call as `error-text`). Consecutive assistant messages become one (the
 * history keeps a tool call as a message of its own) and consecutive results one tool message, so parallel
 * calls read as providers expect; a call left without a result gets one saying so. Reasoning is not kept in
 * the history, so none is replayed.
 */
export function toModelMessages(history: readonly HistoryMessage[]): ModelMessage[] {
  const out: ModelMessage[] = []
  const names = new Map<string, string>()
  for (const m of history) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.content })
    } else if (m.role === 'assistant') {
      const parts: Exclude<AssistantContent, string> = []
      if (m.content) parts.push({ type: 'text', text: m.content })
      for (const c of m.toolCalls ?? []) {
        names.set(c.id, c.name)
        parts.push({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: argsOf(c.arguments) })
      }
      if (parts.length === 0) continue
      const prev = out.at(-1)
      if (prev?.role === 'assistant' && Array.isArray(prev.content)) prev.content.push(...parts)
      else out.push({ role: 'assistant', content: parts })
    } else {
      const toolName = names.get(m.toolCallId)
      if (toolName === undefined) continue // a result whose call is no longer in the history
      const output: ToolOutput = m.error !== undefined ? { type: 'error-text', value: m.error } : outputOf(m.content)
      const part: ToolResultPart = { type: 'tool-result', toolCallId: m.toolCallId, toolName, output }
      const prev = out.at(-1)
      if (prev?.role === 'tool') prev.content.push(part)
      else out.push({ role: 'tool', content: [part] })
    }
  }
  return answerEveryCall(out)
}

/** Gives each assistant tool call without a result in the next message one that says so. */
function answerEveryCall(messages: ModelMessage[]): ModelMessage[] {
  const out: ModelMessage[] = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    out.push(m)
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue
    const calls = m.content.filter((p) => p.type === 'tool-call')
    if (calls.length === 0) continue
    const next = messages[i + 1]
    const answered = new Set(next?.role === 'tool' ? next.content.map((p) => (p.type === 'tool-result' ? p.toolCallId : '')) : [])
    const missing: ToolResultPart[] = calls
      .filter((c) => !answered.has(c.toolCallId))
      .map((c) => ({ type: 'tool-result', toolCallId: c.toolCallId, toolName: c.toolName, output: { type: 'error-text', value: NO_RESULT } }))
    if (missing.length === 0) continue
    if (next?.role === 'tool') next.content.push(...missing)
    else out.push({ role: 'tool', content: missing })
  }
  return out
}

function argsOf(text: string): unknown {
  if (!text) return {}
  try {
    return JSON.parse(text) as unknown
  } catch {
    return { arguments: text }
  }
}

function outputOf(text: string): ToolOutput {
  const value = toolResultOf(text)
  return typeof value === 'string' ? { type: 'text', value } : { type: 'json', value }
}
