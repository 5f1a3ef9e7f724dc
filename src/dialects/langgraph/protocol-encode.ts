import { toolResultText, type BatchEncoder, type StoredEvent } from '../../core/index.js'
import { foldMessages, interruptOf, type OpenTexts } from './encode-messages.js'
import type { ProtocolEvent } from './protocol-wire.js'
import type { LcMessage } from './wire.js'

/** What a thread's event stream depends on and has said (immutable: each event gives the next view). */
export interface ProtocolView {
  readonly threadId: string
  /** The channels asked for, sorted (`custom:<name>` too). */
  readonly channels: readonly string[]
  /** The root namespace is among those asked for (Parlance's events are all the root's). */
  readonly root: boolean
  /** The seq the stream starts after. */
  readonly after: number
  /** The thread's messages so far (those before `after` given by the binding). */
  readonly messages: readonly LcMessage[]
  readonly texts: OpenTexts
  /** Interrupts raised and not yet answered (an answer resumes the run: lifecycle `running`). */
  readonly waiting: readonly string[]
}

export function protocolView(
  init: Pick<ProtocolView, 'threadId' | 'after' | 'messages'> & { channels: readonly string[]; root: boolean },
): ProtocolView {
  return { ...init, channels: [...new Set(init.channels)].sort(), texts: {}, waiting: [] }
}

type Out = Pick<ProtocolEvent, 'method'> & { node?: string; data: unknown }

const channelOf = (o: Out): string =>
  o.method === 'input.requested' ? 'input' : o.method === 'custom' ? `custom:${(o.data as { name: string }).name}` : o.method

const wanted = (v: ProtocolView, o: Out) => {
  const c = channelOf(o)
  return v.root && (v.channels.includes(c) || (c.startsWith('custom:') && v.channels.includes('custom')))
}

const lifecycle = (event: string, extra: Record<string, unknown> = {}): Out => ({
  method: 'lifecycle',
  data: { event, graph_name: 'agent', ...extra },
})
const message = (data: Record<string, unknown>): Out => ({ method: 'messages', node: 'agent', data })
const tools = (data: Record<string, unknown>): Out => ({ method: 'tools', node: 'tools', data })

/** The protocol events of one log event, in order, before the channel filter (so their ids never depend on it). */
function eventsOf(e: StoredEvent, v: ProtocolView, after: { messages: readonly LcMessage[]; texts: OpenTexts; changed: boolean }): Out[] {
  const out: Out[] = []
  switch (e.type) {
    case 'run.started':
      out.push(lifecycle('running'))
      break
    case 'text.start':
      out.push(message({ event: 'message-start', role: 'ai', id: e.messageId }))
      out.push(message({ event: 'content-block-start', index: 0, content: { type: 'text', text: '' } }))
      break
    case 'text.delta':
      out.push(message({ event: 'content-block-delta', index: 0, delta: { type: 'text-delta', text: e.delta } }))
      break
    case 'text.end':
      out.push(message({ event: 'content-block-finish', index: 0, content: { type: 'text', text: v.texts[e.messageId] ?? '' } }))
      out.push(message({ event: 'message-finish' }))
      break
    case 'tool.call':
      if (e.target !== 'client') out.push(tools({ event: 'tool-started', tool_call_id: e.toolCallId, tool_name: e.toolName, input: e.args }))
      break
    case 'tool.result':
      out.push(tools({ event: 'tool-finished', tool_call_id: e.toolCallId, output: toolResultText(e.result) }))
      break
    case 'tool.error':
    case 'tool.cancel':
      out.push(tools({ event: 'tool-error', tool_call_id: e.toolCallId, message: e.type === 'tool.error' ? e.error : `cancelled: ${e.reason}` }))
      break
    case 'custom':
      out.push({ method: 'custom', data: { name: e.name, payload: e.value } })
      break
  }
  if (after.changed) out.push({ method: 'values', data: { messages: after.messages } })
  const interrupt = interruptOf(e)
  if (interrupt) {
    out.push({ method: 'input.requested', data: { interrupt_id: interrupt.id, payload: interrupt.value } })
    out.push(lifecycle('interrupted'))
  }
  const answered =
    (e.type === 'approval.resolved' && v.waiting.includes(e.approvalId)) ||
    ((e.type === 'tool.result' || e.type === 'tool.error' || e.type === 'tool.cancel') && v.waiting.includes(e.toolCallId))
  if (answered && e.type !== 'tool.cancel') out.push(lifecycle('running'))
  if (e.type === 'run.finished') out.push(lifecycle('completed'))
  if (e.type === 'run.error') out.push(e.code === 'cancelled' ? lifecycle('interrupted') : lifecycle('failed', { error: e.message }))
  return out
}

const waitingAfter = (e: StoredEvent, v: ProtocolView): readonly string[] => {
  const i = interruptOf(e)
  if (i) return [...v.waiting, i.id]
  const id =
    e.type === 'approval.resolved'
      ? e.approvalId
      : e.type === 'tool.result' || e.type === 'tool.error' || e.type === 'tool.cancel'
        ? e.toolCallId
        : null
  if (id !== null && v.waiting.includes(id)) return v.waiting.filter((w) => w !== id)
  if (e.type === 'run.finished' || e.type === 'run.error') return v.waiting.length ? [] : v.waiting
  return v.waiting
}

/**
 * One log event as protocol events (pure): a run's start, pause, resume and end as `lifecycle` (`running`,
 * `interrupted`, `completed`, `failed`); a streamed text message as `messages` (message-start, content-block-start /
 * -delta / -finish, message-finish); server tool calls as `tools`; the history after each change as `values`
 * (`{messages}`, the same dicts `GET /state` returns); an approval or client tool call as `input.requested` (the
 * classic API's interrupt value); `custom` events. Each event's `seq` is the log's, its `event_id` `<seq>` (`<seq>.<n>`
 * for the n-th after the first), the same in every stream, so a client that dedups by id sees each once.
 */
export function protocolStep(e: StoredEvent, v: ProtocolView): { out: string; view: ProtocolView } {
  const f = foldMessages(v.messages, v.texts, e)
  const events = eventsOf(e, v, f)
  const waiting = waitingAfter(e, v)
  const next: ProtocolView =
    f.messages === v.messages && f.texts === v.texts && waiting === v.waiting ? v : { ...v, messages: f.messages, texts: f.texts, waiting }
  let out = ''
  events.forEach((o, n) => {
    if (!wanted(v, o)) return
    const event_id = n === 0 ? String(e.seq) : `${e.seq}.${n}`
    const params = { namespace: [], timestamp: e.ts, ...(o.node ? { node: o.node } : {}), data: o.data }
    out += `id: ${event_id}\ndata: ${JSON.stringify({ type: 'event', event_id, seq: e.seq, method: o.method, params })}\n\n`
  })
  return { out, view: next }
}

/** A thread's event stream: a batch is one string (one `res.write`), shared by streams with equal filters and start. */
export const PROTOCOL_ENCODER: BatchEncoder<string, ProtocolView> = {
  encode(events, view) {
    let out = ''
    let v = view
    for (const e of events) {
      const s = protocolStep(e, v)
      out += s.out
      v = s.view
    }
    return { frames: out ? [out] : [], view: v }
  },
  shareKey: (v) => `${v.threadId}\0${v.after}\0${v.root ? 1 : 0}\0${v.channels.join(',')}`,
}
