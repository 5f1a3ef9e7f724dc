import { LangGraphClient, type LangGraphPart } from 'parlance-gateway/client'
import { pump, type ConnectOptions, type DialectAdapter, type InspectorDialect } from './types.js'

const str = (v: unknown) => (typeof v === 'string' ? v : '')
/** A tool message's content as its result: its JSON value when it parses (Parlance writes results as JSON text). */
const resultOf = (content: unknown) => {
  try {
    return JSON.parse(str(content)) as unknown
  } catch {
    return content
  }
}
type Msg = {
  type?: string
  id?: string
  content?: unknown
  tool_calls?: Array<{ id: string; name: string; args: unknown }>
  tool_call_id?: string
  status?: string
}
type Interrupt = {
  id: string
  value: {
    action_requests?: Array<{ name: string; args: unknown; description?: string }>
    type?: string
    toolCall?: { id: string; name: string; args: unknown }
  }
}

/**
 * The LangGraph Agent Server API (`/langgraph`), through `LangGraphClient`: one thread, each turn a streamed run in
 * `values` and `messages-tuple` modes, as `@langchain/langgraph-sdk` sends it. An approval or a client tool ends the
 * run with `__interrupt__`; the answer is a new run with `command.resume`.
 */
export async function connectLangGraph(o: ConnectOptions): Promise<DialectAdapter> {
  const { sink } = o
  const client = await LangGraphClient.connect({
    url: o.url,
    assistant: o.agent,
    ...(o.token ? { token: o.token } : {}),
    tap: (dir, frame) => sink.wire(dir, frame),
  })
  let announced: string | null = null
  const seen = new Set<string>()
  let open: string | null = null
  const handle = (p: LangGraphPart) => {
    if (client.thread && announced !== client.thread) sink.session((announced = client.thread))
    if (p.event === 'messages') {
      const [chunk] = p.data as [Msg]
      if (chunk.type === 'AIMessageChunk' && typeof chunk.content === 'string' && chunk.content) {
        open = str(chunk.id)
        sink.textDelta(open, chunk.content)
      }
    } else if (p.event === 'values') {
      const v = p.data as { messages?: Msg[]; __interrupt__?: Interrupt[] }
      for (const m of v.messages ?? []) {
        if (!m.id || seen.has(m.id)) continue
        seen.add(m.id)
        if (m.type === 'ai' && m.id === open) sink.textEnd(m.id)
        for (const c of m.tool_calls ?? []) sink.toolCall({ id: c.id, name: c.name, args: c.args })
        if (m.type === 'tool')
          sink.toolResult(str(m.tool_call_id), m.status === 'error' ? { error: str(m.content) } : { result: resultOf(m.content) })
      }
      for (const i of v.__interrupt__ ?? []) {
        const a = i.value.action_requests?.[0]
        if (a) sink.approval({ id: i.id, tool: a.name, args: a.args, risk: 'medium', reasoning: str(a.description) })
        else if (i.value.type === 'tool' && i.value.toolCall) sink.clientTool({ id: i.id, name: i.value.toolCall.name, args: i.value.toolCall.args })
      }
    } else if (p.event === 'error') {
      sink.error(str((p.data as { message?: unknown }).message))
    }
  }
  const read = (stream: () => AsyncGenerator<LangGraphPart>) =>
    pump(sink, async () => {
      for await (const p of stream()) handle(p)
      sink.runEnded('finished')
    })
  return {
    id: 'langgraph',
    notes:
      'One LangGraph run per turn on one thread; an approval or a client tool ends the run with __interrupt__, and the answer is a new run with command.resume.',
    async send(text) {
      void read(() => client.send(text))
    },
    async approve(id, approved, feedback) {
      void read(() => client.resume({ [id]: approved ? { type: 'approve' } : { type: 'reject', ...(feedback ? { message: feedback } : {}) } }))
    },
    async answerTool(id, outcome) {
      void read(() => client.resume({ [id]: 'result' in outcome ? outcome.result : { error: outcome.error } }))
    },
    close() {},
  }
}

/** The LangGraph Agent Server API in the inspector. */
export const langgraphDialect: InspectorDialect = {
  id: 'langgraph',
  label: 'LangGraph',
  endpoint: 'POST /langgraph/threads/:id/runs/stream (SSE)',
  carries: { state: false, serverTools: true, plan: false },
  connect: (o) => connectLangGraph(o),
}
