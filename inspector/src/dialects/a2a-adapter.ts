import { Role, TaskState, type Message, type Part, type StreamResponse } from '@a2a-js/sdk'
import { connectA2a } from '../../../src/dialects/a2a/client.js'
import { uid } from '../dom.js'
import { pump, type ConnectOptions, type DialectAdapter } from './types.js'

const str = (v: unknown) => (typeof v === 'string' ? v : '')
const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' })
const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' })
const textOf = (parts: readonly Part[]) => parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('')
const dataOf = (parts: readonly Part[]): Record<string, unknown> => {
  const d = parts.find((p) => p.content?.$case === 'data')?.content
  return d?.$case === 'data' && d.value && typeof d.value === 'object' ? (d.value as Record<string, unknown>) : {}
}

/**
 * A2A 1.0 (JSON-RPC, SSE) through the official `@a2a-js/sdk` client built from the served agent's card: each
 * message is a task in the page's context (= the Parlance session), streamed with `SendStreamingMessage`;
 * an `input-required` task is an approval or a client tool, answered as the task's next message. Statuses and server tool calls
 * come from `metadata.parlance` of the `working` updates; plan progress from the canonical log.
 */
export async function connectA2aDialect(o: ConnectOptions, contextId = `a2a-${uid()}`): Promise<DialectAdapter> {
  const { sink } = o
  const client = await connectA2a({ url: o.url, agent: o.agent, ...(o.token ? { token: o.token } : {}) })
  let announced = false
  const message = (parts: Part[], taskId = ''): Message => ({
    messageId: uid(),
    contextId,
    taskId,
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  })
  const handle = (ev: StreamResponse) => {
    const p = ev.payload
    if (!p) return
    if (!announced) {
      announced = true
      sink.session(contextId)
    }
    if (p.$case === 'artifactUpdate') {
      const a = p.value.artifact
      if (!a) return
      if (a.name === 'state') return sink.state(dataOf(a.parts))
      const chunk = textOf(a.parts)
      if (chunk) sink.textDelta(a.artifactId, chunk)
      if (p.value.lastChunk) sink.textEnd(a.artifactId)
      return
    }
    if (p.$case !== 'statusUpdate' || !p.value.status) return
    const st = p.value.status
    const said = st.message ? textOf(st.message.parts) : ''
    const meta = (p.value.metadata?.parlance ?? {}) as {
      status?: string
      toolCall?: { id: string; name: string; args: unknown }
      toolResult?: { id: string; result: unknown }
      toolError?: { id: string; error: string }
    }
    if (st.state === TaskState.TASK_STATE_WORKING) {
      if (meta.status) sink.status(`${meta.status}${said && said !== meta.status ? `: ${said}` : ''}`)
      else if (meta.toolCall) sink.toolCall(meta.toolCall)
      else if (meta.toolResult) sink.toolResult(meta.toolResult.id, { result: meta.toolResult.result })
      else if (meta.toolError) sink.toolResult(meta.toolError.id, { error: meta.toolError.error })
    } else if (st.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      const q = dataOf(st.message?.parts ?? [])
      if (q.clientTool) sink.clientTool({ id: p.value.taskId, name: str(q.tool), args: q.args ?? {} })
      else
        sink.approval({
          id: p.value.taskId,
          tool: str(q.tool),
          args: q.args ?? {},
          risk: str(q.risk) || 'medium',
          reasoning: str(q.reasoning) || said,
        })
      sink.runEnded('input-required')
    } else if (st.state === TaskState.TASK_STATE_COMPLETED) sink.runEnded('completed')
    else if (st.state === TaskState.TASK_STATE_CANCELED) sink.runEnded('cancelled')
    else if (st.state === TaskState.TASK_STATE_FAILED || st.state === TaskState.TASK_STATE_REJECTED) {
      sink.error(said || TaskState[st.state])
      sink.runEnded('error')
    }
  }
  const stream = (m: Message) =>
    pump(sink, async () => {
      const request = { tenant: '', message: m, configuration: undefined, metadata: undefined }
      sink.wire('out', { method: 'SendStreamingMessage', params: request })
      for await (const ev of client.sendMessageStream(request)) {
        sink.wire('in', ev)
        handle(ev)
      }
    })
  return {
    id: 'a2a',
    notes:
      "A2A: each message is a task in this page's context (the Parlance session); an approval or a client tool is the task in input-required, answered in the same task. Plan steps show from the canonical log.",
    async send(text) {
      void stream(message([textPart(text)]))
    },
    async approve(taskId, approved, feedback) {
      void stream(message([dataPart({ approved, ...(feedback ? { feedback } : {}) })], taskId))
    },
    async answerTool(taskId, outcome) {
      void stream(message([dataPart('result' in outcome ? { result: outcome.result } : { error: outcome.error })], taskId))
    },
    close() {},
  }
}
