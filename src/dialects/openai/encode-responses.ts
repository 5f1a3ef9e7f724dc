import type { ErrorCode, SseRunFormat, StoredEvent, TokenUsage } from '../../core/index.js'
import { SSE_HEADERS, type OutputItem, type ResponseObject, type ResponseStatus } from './wire.js'

/** The fields of a response that its request fixed. */
export type ResponseHead = Pick<
  ResponseObject,
  'id' | 'created_at' | 'model' | 'instructions' | 'previous_response_id' | 'store' | 'background' | 'metadata' | 'tools'
>

/** An output item being streamed: its text so far. */
interface OpenItem {
  readonly kind: 'message' | 'reasoning'
  readonly id: string
  readonly index: number
  readonly text: string
}

/**
 * What a Responses stream has said: its next `sequence_number`, the output items so far (and the one being
 * streamed), token usage and status. `skip`: messages numbered up to it are left out (a replay with
 * `starting_after`); they are still counted, so a replay numbers every message as the first stream did.
 * Immutable: each event gives the next view.
 */
export interface ResponsesView {
  readonly head: ResponseHead
  /** The seq the response starts after. */
  readonly after: number
  readonly seq: number
  readonly skip: number
  readonly output: readonly OutputItem[]
  readonly open: OpenItem | null
  readonly usage: TokenUsage | null
  readonly status: ResponseStatus
  readonly error: { readonly code: ErrorCode; readonly message: string } | null
}

/** The view a response starts with: `response.created` and `response.in_progress` (sequence numbers 0 and 1) are the opening. */
export function responsesView(head: ResponseHead, after: number, skip = -1): ResponsesView {
  return { head, after, seq: 2, skip, output: [], open: null, usage: null, status: 'in_progress', error: null }
}

/** The response object a view describes (an item still streaming is included as it stands). */
export function responseObject(v: ResponsesView): ResponseObject {
  const u = v.usage
  return {
    ...v.head,
    object: 'response',
    status: v.status,
    error: v.error ? { code: v.error.code, message: v.error.message } : null,
    incomplete_details: null,
    output: v.open ? [...v.output, itemOf(v.open, 'in_progress')] : [...v.output],
    parallel_tool_calls: false,
    tool_choice: 'auto',
    usage: u
      ? {
          input_tokens: u.inputTokens ?? 0,
          output_tokens: u.outputTokens ?? 0,
          total_tokens: (u.inputTokens ?? 0) + (u.outputTokens ?? 0),
          input_tokens_details: { cached_tokens: u.cachedInputTokens ?? 0 },
          output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
        }
      : null,
  }
}

function itemOf(o: OpenItem, status: 'in_progress' | 'completed'): OutputItem {
  return o.kind === 'message'
    ? { type: 'message', id: o.id, status, role: 'assistant', content: [{ type: 'output_text', text: o.text, annotations: [], logprobs: [] }] }
    : { type: 'reasoning', id: o.id, status, summary: [], content: [{ type: 'reasoning_text', text: o.text }] }
}

/** Writes numbered messages, leaving out those a replay skips. */
class Out {
  text = ''
  constructor(
    public seq: number,
    private readonly skip: number,
  ) {}
  send(type: string, fields: Record<string, unknown>): void {
    if (this.seq > this.skip) this.text += `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq, ...fields })}\n\n`
    this.seq++
  }
}

const sum = (a: TokenUsage | null, e: TokenUsage): TokenUsage => ({
  inputTokens: (a?.inputTokens ?? 0) + (e.inputTokens ?? 0),
  outputTokens: (a?.outputTokens ?? 0) + (e.outputTokens ?? 0),
  cachedInputTokens: (a?.cachedInputTokens ?? 0) + (e.cachedInputTokens ?? 0),
  reasoningTokens: (a?.reasoningTokens ?? 0) + (e.reasoningTokens ?? 0),
})

/** Closes the item being streamed: its `.done` messages, and it joins the output. */
function close(v: ResponsesView, out: Out): ResponsesView {
  const o = v.open
  if (!o) return v
  const at = { item_id: o.id, output_index: o.index, content_index: 0 }
  const item = itemOf(o, 'completed')
  if (o.kind === 'message') {
    out.send('response.output_text.done', { ...at, text: o.text, logprobs: [] })
    out.send('response.content_part.done', { ...at, part: { type: 'output_text', text: o.text, annotations: [], logprobs: [] } })
  } else {
    out.send('response.reasoning_text.done', { ...at, text: o.text })
  }
  out.send('response.output_item.done', { output_index: o.index, item })
  return { ...v, open: null, output: [...v.output, item] }
}

/** Opens an item (closing the one before, unless it is the same). */
function open(v: ResponsesView, out: Out, kind: OpenItem['kind'], id: string): ResponsesView {
  if (v.open?.id === id) return v
  const w = close(v, out)
  const o: OpenItem = { kind, id, index: w.output.length, text: '' }
  out.send('response.output_item.added', { output_index: o.index, item: itemOf(o, 'in_progress') })
  if (kind === 'message') {
    out.send('response.content_part.added', {
      item_id: id,
      output_index: o.index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
    })
  }
  return { ...w, open: o }
}

function delta(v: ResponsesView, out: Out, kind: OpenItem['kind'], id: string, text: string): ResponsesView {
  const w = open(v, out, kind, id)
  const o = w.open!
  const at = { item_id: o.id, output_index: o.index, content_index: 0 }
  out.send(
    kind === 'message' ? 'response.output_text.delta' : 'response.reasoning_text.delta',
    kind === 'message' ? { ...at, delta: text, logprobs: [] } : { ...at, delta: text },
  )
  return { ...w, open: { ...o, text: o.text + text } }
}

/** A whole item (a function call, an approval request) added and done at once; the response then ends. */
function whole(v: ResponsesView, out: Out, item: OutputItem, done: OutputItem = item): ResponsesView {
  const w = close(v, out)
  const index = w.output.length
  out.send('response.output_item.added', { output_index: index, item })
  if (item.type === 'function_call') {
    out.send('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: item.arguments })
    out.send('response.function_call_arguments.done', { item_id: item.id, output_index: index, name: item.name, arguments: item.arguments })
  }
  out.send('response.output_item.done', { output_index: index, item: done })
  return { ...w, output: [...w.output, done] }
}

function finish(v: ResponsesView, out: Out, status: ResponseStatus, error: ResponsesView['error'] = null): ResponsesView {
  const w = { ...close(v, out), status, error }
  out.send(status === 'completed' ? 'response.completed' : status === 'incomplete' ? 'response.incomplete' : 'response.failed', {
    response: responseObject(w),
  })
  return w
}

const msgId = (id: string) => (id.startsWith('msg_') ? id : `msg_${id}`)
const rsId = (id: string) => (id.startsWith('rs_') ? id : `rs_${id}`)

/**
 * One canonical event as Responses stream messages (pure). Text and reasoning stream as `message` and `reasoning`
 * items; a client tool call is a `function_call` item and an approval request an `mcp_approval_request` item, each
 * ending the response (`completed`: the client answers in a follow-up response); the run's end is
 * `response.completed`, an error or a cancel `response.failed` (status `failed` or `cancelled`).
 */
export function responsesStep(e: StoredEvent, v: ResponsesView): { out: string; view: ResponsesView; end: boolean } {
  // The hot path, most events of a long answer: a text delta of the message being streamed, written from a template
  // with one new view (same messages as `delta` would write).
  if (e.type === 'text.delta' && v.open !== null && v.open.kind === 'message' && v.open.id === msgId(e.messageId))
    return textDelta(v, v.open, e.delta)
  const out = new Out(v.seq, v.skip)
  let w = v
  let end = false
  switch (e.type) {
    case 'text.start':
      w = open(v, out, 'message', msgId(e.messageId))
      break
    case 'text.delta':
      w = delta(v, out, 'message', msgId(e.messageId), e.delta)
      break
    case 'text.end':
      w = v.open?.id === msgId(e.messageId) ? close(v, out) : v
      break
    case 'message.sent':
      w = close(delta(v, out, 'message', msgId(e.messageId), e.message), out)
      break
    case 'reasoning.start':
      w = open(v, out, 'reasoning', rsId(e.messageId))
      break
    case 'reasoning.delta':
      w = delta(v, out, 'reasoning', rsId(e.messageId), e.delta)
      break
    case 'reasoning.end':
      w = v.open?.id === rsId(e.messageId) ? close(v, out) : v
      break
    case 'tool.call': {
      if (e.target !== 'client') break
      const args = JSON.stringify(e.args)
      const item = { type: 'function_call' as const, id: `fc_${e.toolCallId}`, call_id: e.toolCallId, name: e.toolName }
      w = finish(
        whole(v, out, { ...item, arguments: args, status: 'in_progress' }, { ...item, arguments: args, status: 'completed' }),
        out,
        'completed',
      )
      end = true
      break
    }
    case 'approval.requested':
      w = finish(
        whole(v, out, {
          type: 'mcp_approval_request',
          id: e.approvalId,
          server_label: 'parlance',
          name: e.toolName,
          arguments: JSON.stringify(e.args),
        }),
        out,
        'completed',
      )
      end = true
      break
    case 'usage':
      w = { ...v, usage: sum(v.usage, e) }
      break
    case 'run.finished':
      w = finish(v, out, 'completed')
      end = true
      break
    case 'run.error':
      w = finish(v, out, e.code === 'cancelled' ? 'cancelled' : 'failed', { code: e.code, message: e.message })
      end = true
      break
    default:
      break
  }
  return { out: out.text, view: out.seq === w.seq ? w : { ...w, seq: out.seq }, end }
}

function textDelta(v: ResponsesView, o: OpenItem, text: string): { out: string; view: ResponsesView; end: boolean } {
  const out =
    v.seq > v.skip
      ? `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":${v.seq},"item_id":${JSON.stringify(o.id)},"output_index":${o.index},"content_index":0,"delta":${JSON.stringify(text)},"logprobs":[]}\n\n`
      : ''
  const view: ResponsesView = {
    head: v.head,
    after: v.after,
    seq: v.seq + 1,
    skip: v.skip,
    output: v.output,
    open: { kind: o.kind, id: o.id, index: o.index, text: o.text + text },
    usage: v.usage,
    status: v.status,
    error: v.error,
  }
  return { out, view, end: false }
}

/** A streamed response: `response.created`, `response.in_progress`, the run's messages, and the closing `response.*`. */
export const RESPONSES_SSE: SseRunFormat<ResponsesView> = {
  dialect: 'openai',
  headers: SSE_HEADERS,
  opening(v) {
    const out = new Out(0, v.skip)
    const r = responseObject(v)
    out.send('response.created', { response: r })
    out.send('response.in_progress', { response: r })
    return out.text
  },
  event: () => [],
  ending: () => null,
  empty(v) {
    const out = new Out(v.seq, v.skip)
    finish(v, out, v.status === 'in_progress' ? 'completed' : v.status, v.error)
    return out.text
  },
  shareKey: (v) => `responses\0${v.head.id}\0${v.after}\0${v.skip}`,
  step: responsesStep,
}
