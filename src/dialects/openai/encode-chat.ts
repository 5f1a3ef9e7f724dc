import { type ErrorCode, type SseRunFormat, type StoredEvent, type TokenUsage } from '../../core/index.js'
import { errorBody } from './errors.js'
import { chatToolCallId } from './codec-ids.js'
import { SSE_HEADERS, type ChatCompletion, type ChatToolCall, type ChatUsage } from './wire.js'

/** The tool name under which Chat Completions clients see an approval request (see docs/dialects/openai.md). */
export const APPROVAL_TOOL = 'parlance_approval'

/**
 * What a chat completion's frames depend on, and what it has said so far (the whole answer, for the non-streamed
 * form; token usage, for the last chunk). Immutable: each event gives the next view.
 */
export interface ChatView {
  readonly id: string
  readonly model: string
  /** Seconds since the epoch (the binding's clock). */
  readonly created: number
  readonly sessionId: string
  /** The seq the response starts after (responses that start elsewhere encode differently). */
  readonly after: number
  readonly includeUsage: boolean
  readonly texts: number
  readonly content: string
  readonly toolCalls: readonly ChatToolCall[]
  readonly usage: TokenUsage | null
  readonly finish: 'stop' | 'tool_calls' | null
  readonly error: { readonly code: ErrorCode; readonly message: string } | null
  /** Every chunk's text before its delta (the same for the whole response: built once). */
  readonly prefix: string
}

export function chatView(init: Pick<ChatView, 'id' | 'model' | 'created' | 'sessionId' | 'after' | 'includeUsage'>): ChatView {
  const prefix = `data: {"id":${JSON.stringify(init.id)},"object":"chat.completion.chunk","created":${init.created},"model":${JSON.stringify(init.model)},"choices":[{"index":0,"delta":`
  return { ...init, texts: 0, content: '', toolCalls: [], usage: null, finish: null, error: null, prefix }
}

const DONE = 'data: [DONE]\n\n'

function chunk(v: ChatView, delta: Record<string, unknown>, finish: string | null = null): string {
  return `${v.prefix}${JSON.stringify(delta)},"finish_reason":${finish === null ? 'null' : JSON.stringify(finish)},"logprobs":null}]}\n\n`
}

/** OpenAI's token counts from Parlance's (a count the model did not report is 0). */
export function chatUsage(u: TokenUsage | null): ChatUsage {
  const prompt = u?.inputTokens ?? 0
  const completion = u?.outputTokens ?? 0
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }
}

function closing(v: ChatView, finish: 'stop' | 'tool_calls'): string {
  let out = chunk(v, {}, finish)
  if (v.includeUsage)
    out += `data: ${JSON.stringify({ id: v.id, object: 'chat.completion.chunk', created: v.created, model: v.model, choices: [], usage: chatUsage(v.usage) })}\n\n`
  return out + DONE
}

const sum = (a: TokenUsage | null, e: TokenUsage): TokenUsage => ({
  inputTokens: (a?.inputTokens ?? 0) + (e.inputTokens ?? 0),
  outputTokens: (a?.outputTokens ?? 0) + (e.outputTokens ?? 0),
})

/** A tool call the client is asked to make (a client tool, or an approval as `parlance_approval`). */
function call(v: ChatView, tc: ChatToolCall) {
  const next: ChatView = { ...v, toolCalls: [...v.toolCalls, tc], finish: 'tool_calls' }
  return { out: chunk(v, { tool_calls: [{ index: v.toolCalls.length, ...tc }] }) + closing(next, 'tool_calls'), view: next, end: true }
}

/**
 * One canonical event of the run as Chat Completions chunks (pure). Text becomes `delta.content` (a blank line
 * between two messages of one run); a client tool call or an approval request becomes `delta.tool_calls` and ends
 * the response with `finish_reason: "tool_calls"`; the run's end is `finish_reason: "stop"` (then the usage chunk
 * when `stream_options.include_usage`), a run error an `error` message; `[DONE]` last. Server tools, state and the
 * rest have no place in a chat completion and are left out.
 */
export function chatStep(e: StoredEvent, v: ChatView): { out: string; view: ChatView; end: boolean } {
  switch (e.type) {
    case 'text.start':
      return v.texts === 0
        ? { out: '', view: { ...v, texts: 1 }, end: false }
        : { out: chunk(v, { content: '\n\n' }), view: { ...v, texts: v.texts + 1, content: `${v.content}\n\n` }, end: false }
    case 'text.delta':
      return { out: chunk(v, { content: e.delta }), view: { ...v, content: v.content + e.delta }, end: false }
    case 'message.sent': {
      const text = v.texts === 0 ? e.message : `\n\n${e.message}`
      return { out: chunk(v, { content: text }), view: { ...v, texts: v.texts + 1, content: v.content + text }, end: false }
    }
    case 'tool.call':
      if (e.target !== 'client') return { out: '', view: v, end: false }
      return call(v, {
        id: chatToolCallId(v.sessionId, e.toolCallId),
        type: 'function',
        function: { name: e.toolName, arguments: JSON.stringify(e.args) },
      })
    case 'approval.requested':
      return call(v, {
        id: chatToolCallId(v.sessionId, e.approvalId),
        type: 'function',
        function: { name: APPROVAL_TOOL, arguments: JSON.stringify({ tool: e.toolName, arguments: e.args, reasoning: e.reasoning, risk: e.risk }) },
      })
    case 'usage':
      return { out: '', view: { ...v, usage: sum(v.usage, e) }, end: false }
    case 'run.finished': {
      const next: ChatView = { ...v, finish: 'stop' }
      return { out: closing(next, 'stop'), view: next, end: true }
    }
    case 'run.error': {
      const next: ChatView = { ...v, error: { code: e.code, message: e.message } }
      return { out: `data: ${JSON.stringify(errorBody(e.code, e.message))}\n\n${DONE}`, view: next, end: true }
    }
    default:
      return { out: '', view: v, end: false }
  }
}

/** A streamed chat completion: the role chunk, the run's chunks, the finish chunk and `[DONE]`. */
export const CHAT_SSE: SseRunFormat<ChatView> = {
  dialect: 'openai',
  headers: SSE_HEADERS,
  opening: (v) => chunk(v, { role: 'assistant', content: '' }),
  event: () => [],
  ending: () => null,
  empty: (v) => closing(v, 'stop'),
  shareKey: (v) => `chat\0${v.id}\0${v.after}\0${v.includeUsage ? 1 : 0}`,
  step: chatStep,
}

/** The non-streamed completion a finished view describes. */
export function chatCompletion(v: ChatView): ChatCompletion {
  return {
    id: v.id,
    object: 'chat.completion',
    created: v.created,
    model: v.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: v.content === '' && v.toolCalls.length > 0 ? null : v.content,
          refusal: null,
          ...(v.toolCalls.length ? { tool_calls: [...v.toolCalls] } : {}),
        },
        finish_reason: v.finish ?? 'stop',
        logprobs: null,
      },
    ],
    usage: chatUsage(v.usage),
  }
}
