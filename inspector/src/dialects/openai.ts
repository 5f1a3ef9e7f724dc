import { OpenAiResponsesClient, type ResponseEvent } from 'parlance-gateway/client'
import { pump, type ConnectOptions, type DialectAdapter, type InspectorDialect } from './types.js'

const str = (v: unknown) => (typeof v === 'string' ? v : '')
type Item = { type?: string; id?: string; call_id?: string; name?: string; arguments?: string }
const argsOf = (text: unknown) => {
  try {
    return JSON.parse(str(text)) as unknown
  } catch {
    return {}
  }
}

/**
 * OpenAI's Responses API (`POST /v1/responses`), through `OpenAiResponsesClient`: what an OpenAI SDK sends and
 * reads. An approval (`mcp_approval_request`) or a function call ends a response; the answer is the next one,
 * continuing it by `previous_response_id`.
 */
export async function connectOpenAi(o: ConnectOptions): Promise<DialectAdapter> {
  const { sink } = o
  const client = new OpenAiResponsesClient({
    url: o.url,
    model: o.agent,
    ...(o.token ? { token: o.token } : {}),
    tap: (dir, frame) => sink.wire(dir, frame),
  })
  let announced: string | null = null
  const handle = (e: ResponseEvent) => {
    if (client.session && announced !== client.session) sink.session((announced = client.session))
    switch (e.type) {
      case 'response.output_text.delta':
        sink.textDelta(str(e.item_id), str(e.delta))
        break
      case 'response.output_text.done':
        sink.textEnd(str(e.item_id))
        break
      case 'response.output_item.done': {
        const item = e.item as Item
        if (item.type === 'mcp_approval_request')
          sink.approval({ id: str(item.id), tool: str(item.name), args: argsOf(item.arguments), risk: 'medium', reasoning: '' })
        if (item.type === 'function_call') sink.clientTool({ id: str(item.call_id), name: str(item.name), args: argsOf(item.arguments) })
        break
      }
      case 'response.completed':
      case 'response.failed': {
        const r = e.response as { status?: string; error?: { message?: string } | null }
        if (r.error?.message) sink.error(r.error.message)
        sink.runEnded(str(r.status) || 'finished')
        break
      }
    }
  }
  const read = (stream: () => AsyncGenerator<ResponseEvent>) =>
    pump(sink, async () => {
      for await (const e of stream()) handle(e)
    })
  return {
    id: 'openai',
    notes:
      'One response per turn, as an OpenAI SDK sends it; an approval or a function call ends the response and the answer is the next, by previous_response_id.',
    async send(text) {
      void read(() => client.send(text))
    },
    async approve(id, approved, feedback) {
      void read(() => client.approve(id, approved, feedback))
    },
    async answerTool(id, outcome) {
      void read(() => client.toolOutput(id, 'result' in outcome ? outcome.result : { error: outcome.error }))
    },
    close() {},
  }
}

/** OpenAI Responses in the inspector. */
export const openaiDialect: InspectorDialect = {
  id: 'openai',
  label: 'OpenAI',
  endpoint: 'POST /v1/responses (SSE)',
  carries: { state: false, serverTools: false, plan: false },
  connect: (o) => connectOpenAi(o),
}
