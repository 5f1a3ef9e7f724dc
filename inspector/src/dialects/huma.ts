import { HumaClient, type HumaServerEvent } from 'parlance-gateway/client'
import { uid } from '../dom.js'
import type { ConnectOptions, DialectAdapter, InspectorDialect } from './types.js'

const str = (v: unknown) => (typeof v === 'string' ? v : '')

/**
 * HUMA over Socket.IO, through `HumaClient` (which confirms every delivered message, so the agent's answers
 * arrive as whole `messaging` messages after a typing indicator, not as a token stream).
 */
export async function connectHuma(o: ConnectOptions, sessionId = uid()): Promise<DialectAdapter> {
  const { sink } = o
  const client = await HumaClient.connect({
    url: o.url,
    sessionId,
    ...(o.token ? { token: o.token } : {}),
    tap: (dir, frame) => {
      const p = (frame as { payload?: { seq?: unknown } }).payload
      sink.wire(dir, frame, dir === 'in' && typeof p?.seq === 'number' ? p.seq : undefined)
    },
  })
  sink.session(client.sessionId)
  const calls = new Map<string, string>()
  const handle = (e: HumaServerEvent) => {
    switch (e.type) {
      case 'messaging':
        if (e.event === 'typing_start') sink.status('typing…')
        else if (e.event === 'message_sent') {
          const id = `${e.toolCallId ?? 'msg'}:${e.messageIndex ?? 0}`
          sink.textDelta(id, e.message ?? '')
          sink.textEnd(id)
        } else if (e.event === 'typing_end') sink.runEnded(e.reason ? `typing ended (${e.reason})` : 'completed')
        break
      case 'tool-call': {
        calls.set(e.toolCallId, e.toolName)
        if (e.toolName === 'request_approval') {
          const a = e.arguments
          sink.approval({ id: e.toolCallId, tool: str(a.toolName), args: a.args ?? {}, risk: str(a.risk) || 'medium', reasoning: str(a.reasoning) })
        } else sink.clientTool({ id: e.toolCallId, name: e.toolName, args: e.arguments })
        break
      }
      case 'cancel-tool-call':
        if (e.toolName === 'request_approval') sink.approvalClosed(e.toolCallId, e.reason ?? 'withdrawn')
        else sink.toolResult(e.toolCallId, { error: `cancelled: ${e.reason ?? ''}` })
        break
    }
  }
  // The client keeps every event in order; follow it as it grows.
  let seen = 0
  const drain = () => {
    while (seen < client.received.length) handle(client.received[seen++]!)
  }
  drain()
  client.socket.on('event', () => queueMicrotask(drain))
  client.socket.on('error', (e: { message?: string; code?: string }) => sink.error(`${e.code ?? 'error'}: ${e.message ?? ''}`))
  client.socket.on('disconnect', (reason) => sink.error(`disconnected: ${reason}`))
  return {
    id: 'huma',
    notes: 'HUMA sends whole messages (typing, then message_sent) and no state, plan or server tool events: those views follow the canonical log.',
    async send(text) {
      client.contextUpdate(text)
    },
    async approve(id, approved, feedback) {
      client.toolResult({ toolCallId: id, toolName: 'request_approval' }, { result: { approved, ...(feedback ? { feedback } : {}) } })
    },
    async answerTool(id, outcome) {
      client.toolResult({ toolCallId: id, toolName: calls.get(id) ?? 'tool' }, outcome)
    },
    close: () => client.close(),
  }
}

/** HUMA in the inspector. */
export const humaDialect: InspectorDialect = {
  id: 'huma',
  label: 'HUMA',
  endpoint: 'Socket.IO',
  carries: { state: false, serverTools: false, plan: false },
  connect: (o) => connectHuma(o),
}
