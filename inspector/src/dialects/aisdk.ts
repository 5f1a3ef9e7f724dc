import { AiSdkClient, type AiSdkChunk, type AiSdkToolCall } from 'parlance-gateway/client'
import { uid } from '../dom.js'
import type { PatchOp } from '../patch.js'
import { pump, type ConnectOptions, type DialectAdapter, type InspectorDialect } from './types.js'

const str = (v: unknown) => (typeof v === 'string' ? v : '')

/**
 * The Vercel AI SDK UI message stream (`POST /api/chat`), through `AiSdkClient`: what `useChat` sends and
 * reads. A client tool or an approval ends a response (`finish` with `tool-calls`, or a tool part awaiting
 * approval); the answer is the next request.
 */
export async function connectAiSdk(o: ConnectOptions, chatId = uid()): Promise<DialectAdapter> {
  const { sink } = o
  const client = new AiSdkClient({ url: o.url, ...(o.token ? { token: o.token } : {}), tap: (dir, frame) => sink.wire(dir, frame) })
  const calls = new Map<string, AiSdkToolCall & { done: boolean; approval: boolean; shown: boolean }>()
  let announced = false

  const handle = (c: AiSdkChunk) => {
    const data = ('data' in c ? (c.data ?? {}) : {}) as Record<string, unknown>
    switch (c.type) {
      case 'text-delta':
        sink.textDelta(str(c.id), str(c.delta))
        break
      case 'text-end':
        sink.textEnd(str(c.id))
        break
      case 'tool-input-start':
        calls.set(str(c.toolCallId), {
          toolCallId: str(c.toolCallId),
          toolName: str(c.toolName),
          input: {},
          done: false,
          approval: false,
          shown: false,
        })
        break
      case 'tool-input-available': {
        const id = str(c.toolCallId)
        const prev = calls.get(id)
        calls.set(id, {
          toolCallId: id,
          toolName: str(c.toolName),
          input: c.input ?? {},
          done: false,
          approval: prev?.approval ?? false,
          shown: prev?.shown ?? false,
        })
        break
      }
      case 'tool-approval-request': {
        const call = calls.get(str(c.toolCallId))
        if (call) call.approval = true
        break
      }
      case 'data-approval': {
        const call = calls.get(str(data.approvalId))
        if (call) call.shown = true
        sink.approval({
          id: str(data.approvalId),
          tool: str(data.toolName),
          args: data.args ?? {},
          risk: str(data.risk) || 'medium',
          reasoning: str(data.reasoning),
        })
        break
      }
      case 'tool-output-available':
      case 'tool-output-error':
      case 'tool-output-denied': {
        const call = calls.get(str(c.toolCallId))
        if (call?.approval) break // the approval's own invocation: the dialog already closed
        if (call && !call.shown) sink.toolCall({ id: call.toolCallId, name: call.toolName, args: call.input })
        if (call) call.shown = call.done = true
        sink.toolResult(
          str(c.toolCallId),
          c.type === 'tool-output-available' ? { result: c.output } : { error: c.type === 'tool-output-error' ? c.errorText : 'denied' },
        )
        break
      }
      case 'data-state':
        sink.state(c.data)
        break
      case 'data-state-delta':
        sink.statePatch(c.data as PatchOp[])
        break
      case 'data-status':
        sink.status(`${str(data.status)}${data.message ? `: ${str(data.message)}` : ''}`)
        break
      case 'data-plan':
        sink.plan(((data.tasks as Array<{ title: string }> | undefined) ?? []).map((t) => t.title))
        break
      case 'data-progress':
        sink.progress(Number(data.percent), data.message ? str(data.message) : undefined)
        break
      case 'error':
        sink.error(str(c.errorText))
        break
      case 'finish':
        if (c.finishReason === 'tool-calls') {
          for (const call of calls.values()) {
            if (call.done || call.approval || call.shown) continue
            call.shown = true
            sink.clientTool({ id: call.toolCallId, name: call.toolName, args: call.input })
          }
        }
        sink.runEnded(str(c.finishReason) || 'finished')
        break
    }
  }
  const read = (stream: () => AsyncGenerator<AiSdkChunk>) =>
    pump(sink, async () => {
      for await (const c of stream()) {
        // The chat (session) exists once its first response streams: follow its canonical log from then on.
        if (!announced) {
          announced = true
          sink.session(chatId)
        }
        handle(c)
      }
    })
  const callOf = (id: string): AiSdkToolCall => {
    const c = calls.get(id)
    return { toolCallId: id, toolName: c?.toolName ?? 'tool', input: c?.input ?? {} }
  }
  return {
    id: 'aisdk',
    notes: 'One request per user turn, as useChat sends it; a client tool or approval ends the response and the answer is the next request.',
    async send(text) {
      void read(() => client.send(chatId, text))
    },
    async approve(id, approved, feedback) {
      void read(() => client.approve(chatId, callOf(id), approved, feedback))
    },
    async answerTool(id, outcome) {
      const call = calls.get(id)
      if (call) call.done = true
      void read(() => client.toolOutput(chatId, callOf(id), 'result' in outcome ? { output: outcome.result } : { errorText: outcome.error }))
    },
    close() {},
  }
}

/** AI SDK in the inspector. */
export const aisdkDialect: InspectorDialect = {
  id: 'aisdk',
  label: 'AI SDK',
  endpoint: 'POST /api/chat (SSE)',
  carries: { state: true, serverTools: true, plan: true },
  connect: (o) => connectAiSdk(o),
}
