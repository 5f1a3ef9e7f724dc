import type { ErrorCode, SseRunFormat, StoredEvent } from '../../core/index.js'
import { errorEvent } from './errors.js'
import { foldMessages, interruptOf, type OpenTexts } from './encode-messages.js'
import { SSE_HEADERS, type LcInterrupt, type LcMessage, type StreamMode } from './wire.js'

/** The stream modes a response carries (the ones Parlance serves; others stream nothing). */
export interface Modes {
  readonly values: boolean
  readonly updates: boolean
  readonly tuple: boolean
  readonly messages: boolean
  readonly custom: boolean
}

export function modesOf(asked: readonly StreamMode[]): Modes {
  const has = (m: StreamMode) => asked.includes(m)
  return { values: has('values'), updates: has('updates'), tuple: has('messages-tuple'), messages: has('messages'), custom: has('custom') }
}

/**
 * What a LangGraph run's stream depends on and has said (immutable: each event gives the next view). A LangGraph
 * run is the part of a Parlance run from its input (or a resume) to its end or its next pause for the client.
 */
export interface LangGraphView {
  readonly threadId: string
  /** The LangGraph run id (see run-ids in the binding). */
  readonly runId: string
  readonly assistantId: string
  readonly modes: Modes
  /** The seq the response starts after. */
  readonly after: number
  /** The thread's messages so far (those before `after` given by the binding). */
  readonly messages: readonly LcMessage[]
  readonly texts: OpenTexts
  /** A `values` frame was written since the history last changed (or none is due). */
  readonly valuesSent: boolean
  /** Per streamed text message: the tail of its `messages` frames (built once). */
  readonly tail: { readonly id: string; readonly text: string } | null
  readonly step: number
  /** How the run failed (`run.error`, a cancel excepted), once it has. */
  readonly error: { readonly code: ErrorCode; readonly message: string } | null
}

export function langGraphView(init: Pick<LangGraphView, 'threadId' | 'runId' | 'assistantId' | 'modes' | 'after' | 'messages'>): LangGraphView {
  return { ...init, texts: {}, valuesSent: false, tail: null, step: 0, error: null }
}

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
/** The last frame of an event carries its seq as the SSE id (so `Last-Event-ID` never splits an event). */
const withId = (out: string, seq: number) => (out === '' ? '' : `${out.slice(0, -1)}id: ${seq}\n\n`)
/**
 * The frames of the event that ends the response: never empty, so the response is written and closed even when the
 * modes asked for say nothing about it (an id alone, which SSE clients take as the last id and otherwise skip).
 */
const closing = (out: string, seq: number) => (out === '' ? `id: ${seq}\n\n` : withId(out, seq))

const meta = (v: LangGraphView, node: string) => ({
  run_id: v.runId,
  thread_id: v.threadId,
  assistant_id: v.assistantId,
  graph_id: v.assistantId,
  langgraph_node: node,
  langgraph_step: v.step,
})

/** An AI message chunk as `messages-tuple` sends it. */
const aiChunk = (id: string, content: string, toolCalls: ReadonlyArray<{ id: string; name: string; args: unknown }> = []) => ({
  type: 'AIMessageChunk',
  id,
  content,
  tool_calls: toolCalls.map((c) => ({ ...c, type: 'tool_call' })),
  tool_call_chunks: toolCalls.map((c, index) => ({ id: c.id, name: c.name, args: JSON.stringify(c.args), index, type: 'tool_call_chunk' })),
  invalid_tool_calls: [],
  additional_kwargs: {},
  response_metadata: {},
})

/** The `messages-tuple` frame of a text delta, from a tail made once per message. */
function deltaFrame(v: LangGraphView, id: string, delta: string): { out: string; tail: LangGraphView['tail'] } {
  const tail =
    v.tail?.id === id
      ? v.tail
      : {
          id,
          text: `,"type":"AIMessageChunk","id":${JSON.stringify(id)},"tool_calls":[],"tool_call_chunks":[],"invalid_tool_calls":[],"additional_kwargs":{},"response_metadata":{}},${JSON.stringify(meta(v, 'agent'))}]\n\n`,
        }
  return { out: `event: messages\ndata: [{"content":${JSON.stringify(delta)}${tail.text}`, tail }
}

function valuesFrame(v: LangGraphView, messages: readonly LcMessage[], interrupts?: LcInterrupt[]): string {
  return v.modes.values ? frame('values', interrupts ? { messages, __interrupt__: interrupts } : { messages }) : ''
}

/** The frames of a message the history gained (besides `values`). */
function addedFrames(v: LangGraphView, m: LcMessage, streamed: boolean): string {
  const node = m.type === 'tool' ? 'tools' : 'agent'
  let out = ''
  if (v.modes.tuple && !streamed && m.type !== 'human')
    out += frame('messages', [m.type === 'ai' ? aiChunk(m.id, m.content, m.tool_calls) : m, meta(v, node)])
  if (v.modes.messages && m.type !== 'human') out += frame('messages/complete', [m])
  if (v.modes.updates && m.type !== 'human') out += frame('updates', { [node]: { messages: [m] } })
  return out
}

/**
 * One canonical event of the run as Agent Server stream frames (pure). The history the run changes is streamed as
 * `values` (the whole message list, after each change), `updates` (`{agent|tools: {messages: [new]}}`),
 * `messages-tuple` (`[AIMessageChunk, metadata]` per text delta; whole tool calls and tool messages) and legacy
 * `messages` (`messages/metadata`, `messages/partial`, `messages/complete`); `custom` events as `custom`. A pause for
 * the client (an approval, a client tool call) ends the run as interrupted: `__interrupt__` in `values` and
 * `updates`. The run's end closes the stream; an error is `event: error` (a cancel just ends it).
 */
export function langGraphStep(e: StoredEvent, v: LangGraphView): { out: string; view: LangGraphView; end: boolean } {
  const interrupt = interruptOf(e)
  const f = foldMessages(v.messages, v.texts, e)
  let next: LangGraphView = f.messages === v.messages && f.texts === v.texts ? v : { ...v, messages: f.messages, texts: f.texts }
  let out = ''
  if (e.type === 'text.delta') {
    if (v.modes.tuple) {
      const d = deltaFrame(v, e.messageId, e.delta)
      out += d.out
      next = { ...next, tail: d.tail }
    }
    if (v.modes.messages) {
      if (v.texts[e.messageId] === '' || v.texts[e.messageId] === undefined)
        out += frame('messages/metadata', { [e.messageId]: { metadata: meta(v, 'agent') } })
      out += frame('messages/partial', [{ type: 'ai', id: e.messageId, content: f.texts[e.messageId] ?? '', tool_calls: [] }])
    }
  } else if (e.type === 'custom' && v.modes.custom) {
    out += frame('custom', { name: e.name, value: e.value })
  }
  if (f.added) out += addedFrames(next, f.added, e.type === 'text.end')
  if (f.changed && !interrupt) {
    out += valuesFrame(next, f.messages)
    next = { ...next, valuesSent: true, step: next.step + 1 }
  }
  if (interrupt) {
    out += valuesFrame(next, f.messages, [interrupt])
    if (v.modes.updates) out += frame('updates', { __interrupt__: [interrupt] })
    return { out: closing(out, e.seq), view: { ...next, valuesSent: true }, end: true }
  }
  if (e.type === 'run.finished' || e.type === 'run.error') {
    if (!next.valuesSent) out += valuesFrame(next, next.messages)
    const failed = e.type === 'run.error' && e.code !== 'cancelled' ? { code: e.code, message: e.message } : null
    if (failed) out += errorEvent(failed.code, failed.message)
    return { out: closing(out, e.seq), view: { ...next, valuesSent: true, error: failed }, end: true }
  }
  return { out: withId(out, e.seq), view: next, end: false }
}

/** A run as one SSE response: `metadata` first (`{run_id, thread_id}`), then the run's frames, ids = log seqs. */
export const LANGGRAPH_SSE: SseRunFormat<LangGraphView> = {
  dialect: 'langgraph',
  headers: SSE_HEADERS,
  opening: (v) => frame('metadata', { run_id: v.runId, thread_id: v.threadId }),
  event: () => [],
  ending: () => null,
  empty: (v) => (v.valuesSent || !v.modes.values ? ': end\n\n' : valuesFrame(v, v.messages)),
  shareKey: (v) =>
    `${v.threadId}\0${v.runId}\0${v.after}\0${Object.entries(v.modes)
      .map(([k, on]) => (on ? k : ''))
      .join(',')}`,
  step: langGraphStep,
}
