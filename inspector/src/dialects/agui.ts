import { AguiClient, type AguiReceived } from 'parlance-gateway/client'
import { CUSTOM } from '../../../src/dialects/agui/wire.js'
import { uid } from '../dom.js'
import { pump, type ConnectOptions, type DialectAdapter, type InspectorDialect } from './types.js'

type Ev = AguiReceived['event']
const str = (v: unknown) => (typeof v === 'string' ? v : '')

/**
 * AG-UI over `POST /agui` (Server-Sent Events), through `AguiClient`. The server keeps the conversation, so
 * each run sends only what is new: the user message, a `tool` message, or `resume` answers.
 */
export async function connectAgui(o: ConnectOptions, threadId = uid()): Promise<DialectAdapter> {
  const { sink } = o
  const client = new AguiClient({
    url: o.url,
    ...(o.token ? { token: o.token } : {}),
    tap: (dir, frame) => sink.wire(dir, frame, dir === 'in' ? (frame as AguiReceived).id : undefined),
  })
  const args = new Map<string, { name: string; json: string }>()
  let announced = false

  const handle = (e: Ev) => {
    switch (e.type) {
      case 'TEXT_MESSAGE_START':
        break
      case 'TEXT_MESSAGE_CONTENT':
        sink.textDelta(str(e.messageId), str(e.delta))
        break
      case 'TEXT_MESSAGE_END':
        sink.textEnd(str(e.messageId))
        break
      case 'TOOL_CALL_START':
        args.set(str(e.toolCallId), { name: str(e.toolCallName), json: '' })
        break
      case 'TOOL_CALL_ARGS': {
        const a = args.get(str(e.toolCallId))
        if (a) a.json += str(e.delta)
        break
      }
      case 'TOOL_CALL_END':
        break // server or client? A result tells; none by the end of the run makes it the client's
      case 'TOOL_CALL_RESULT': {
        const id = str(e.toolCallId)
        announce(id, false)
        const meta = (e.metadata as { parlance?: { error?: string } } | undefined)?.parlance
        sink.toolResult(id, meta?.error !== undefined ? { error: meta.error } : { result: parse(str(e.content)) })
        break
      }
      case 'STATE_SNAPSHOT':
        sink.state(e.snapshot)
        break
      case 'STATE_DELTA':
        sink.statePatch(e.delta)
        break
      case 'CUSTOM': {
        const v = (e.value ?? {}) as Record<string, unknown>
        if (e.name === CUSTOM.status) sink.status(`${str(v.status)}${v.message ? `: ${str(v.message)}` : ''}`)
        else if (e.name === CUSTOM.plan) sink.plan(((v.tasks as Array<{ title: string }> | undefined) ?? []).map((t) => t.title))
        else if (e.name === CUSTOM.progress) sink.progress(Number(v.percent), v.message ? str(v.message) : undefined)
        else if (e.name === CUSTOM.approvalResolved && v.by !== 'user') sink.approvalClosed(str(v.approvalId), `approval ${str(v.by)}`)
        break
      }
      case 'RUN_FINISHED': {
        const outcome = (e.outcome ?? { type: 'success' }) as {
          type: string
          pendingToolCallIds?: string[]
          interrupts?: Array<Record<string, unknown>>
        }
        // Calls left without a result are the client's (as @ag-ui/client reads a RUN_FINISHED without pendingToolCallIds).
        const pending = outcome.type === 'success' ? (outcome.pendingToolCallIds ?? [...args.keys()].filter((id) => !shown.has(id))) : []
        for (const id of pending) announce(id, true)
        for (const i of outcome.interrupts ?? []) {
          const p = (i.metadata as { parlance?: Record<string, unknown> } | undefined)?.parlance ?? {}
          sink.approval({ id: str(i.id), tool: str(p.toolName), args: p.args ?? {}, risk: str(p.risk) || 'medium', reasoning: str(i.message) })
        }
        sink.runEnded(pending.length ? 'paused for a client tool' : outcome.type)
        break
      }
      case 'RUN_ERROR':
        sink.error(`${str(e.code)}: ${str(e.message)}`)
        sink.runEnded('error')
        break
    }
  }
  /** A tool call is shown once its kind is known: client (pending at the end of the run) or server (it has a result). */
  const shown = new Set<string>()
  const announce = (id: string, client: boolean) => {
    if (shown.has(id)) return
    shown.add(id)
    const a = args.get(id)
    const call = { id, name: a?.name ?? 'tool', args: a ? parse(a.json) : {} }
    if (client) sink.clientTool(call)
    else sink.toolCall(call)
  }
  const run = (input: Record<string, unknown>) =>
    pump(sink, async () => {
      for await (const r of client.run({ threadId, runId: uid(), messages: [], ...input })) {
        // The thread (session) exists once its first response streams: follow its canonical log from then on.
        if (!announced) {
          announced = true
          sink.session(threadId)
        }
        handle(r.event)
      }
    })

  return {
    id: 'agui',
    notes: 'Each AG-UI request is one run; a client tool or an approval ends it and the answer starts the next.',
    async send(text) {
      void run({ messages: [{ id: uid(), role: 'user', content: text }] })
    },
    async approve(id, approved, feedback) {
      void run({ resume: [{ interruptId: id, status: 'resolved', payload: { approved, ...(feedback ? { feedback } : {}) } }] })
    },
    async answerTool(id, outcome) {
      const msg = 'result' in outcome ? { content: JSON.stringify(outcome.result) } : { content: '', error: outcome.error }
      void run({ messages: [{ id: uid(), role: 'tool', toolCallId: id, ...msg }] })
    },
    close() {},
  }
}

function parse(s: string): unknown {
  try {
    return JSON.parse(s)
  } catch {
    return s
  }
}

/** AG-UI in the inspector. */
export const aguiDialect: InspectorDialect = {
  id: 'agui',
  label: 'AG-UI',
  endpoint: 'POST /agui (SSE)',
  carries: { state: true, serverTools: true, plan: true },
  connect: (o) => connectAgui(o),
}
