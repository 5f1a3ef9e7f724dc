import { HaiClient, type HaiServerMessage } from 'parlance-gateway/client'
import { PLAN_PREFIX, PLAN_SEPARATOR } from '../../../src/dialects/hai/wire.js'
import { uid } from '../dom.js'
import type { ConnectOptions, DialectAdapter, InspectorDialect } from './types.js'

/** HAI over WebSocket `/ws`, through `HaiClient`. */
export async function connectHai(o: ConnectOptions, sessionId = uid()): Promise<DialectAdapter> {
  const { sink } = o
  const client = await HaiClient.connect({
    url: o.url,
    sessionId,
    resumeAfter: 0, // attach at once (this creates the session), so the canonical view can follow it
    ...(o.token ? { token: o.token } : {}),
    tap: (dir, frame) => sink.wire(dir, frame, dir === 'in' ? seqOf(frame as HaiServerMessage) : undefined),
  })
  sink.session(client.sessionId)
  client.onmessage = (m) => {
    switch (m.type) {
      case 'assistant_message_chunk':
        if (m.content) sink.textDelta(m.message_id, m.content)
        if (m.is_final) sink.textEnd(m.message_id)
        break
      case 'assistant_message': {
        const id = typeof m.metadata?.message_id === 'string' ? m.metadata.message_id : uid()
        sink.textDelta(id, m.content)
        sink.textEnd(id)
        break
      }
      case 'tool_call_start':
        if (m.metadata?.target === 'client') sink.clientTool({ id: m.tool_call_id, name: m.tool_name, args: m.parameters })
        else sink.toolCall({ id: m.tool_call_id, name: m.tool_name, args: m.parameters })
        break
      case 'tool_call_end':
        sink.toolResult(m.tool_call_id, { result: parsed(m.result) })
        break
      case 'tool_call_error':
        sink.toolResult(m.tool_call_id, { error: m.error })
        break
      case 'tool_approval_request':
        sink.approval({ id: m.approval_id, tool: m.tool_name, args: m.parameters, risk: m.risk_level, reasoning: m.reasoning })
        break
      case 'status': {
        if (m.progress !== undefined) sink.progress(m.progress, m.message)
        else if (m.status === 'thinking' && m.message?.startsWith(PLAN_PREFIX)) sink.plan(m.message.slice(PLAN_PREFIX.length).split(PLAN_SEPARATOR))
        if (m.status === 'completed') sink.runEnded('completed')
        else sink.status(`${m.status}${m.message ? `: ${m.message}` : ''}`)
        break
      }
      case 'error': {
        const approvalId = m.details?.approval_id
        if (typeof approvalId === 'string') sink.approvalClosed(approvalId, m.message)
        else sink.error(`${m.error_code}: ${m.message}`)
        break
      }
    }
  }
  return {
    id: 'hai',
    notes: 'HAI has no state message: the state view follows the canonical log.',
    async send(text) {
      client.say(text)
    },
    async approve(id, approved, feedback) {
      client.approve(id, approved, feedback)
    },
    async answerTool(id, outcome) {
      client.toolResult(id, outcome)
    },
    close: () => client.close(),
  }
}

function seqOf(m: HaiServerMessage): number | undefined {
  if (typeof m.seq === 'number') return m.seq
  const inner = m.type === 'error' ? m.details?.seq : undefined
  return typeof inner === 'number' ? inner : undefined
}

/** HAI carries a tool result as a string; show JSON results as JSON. */
function parsed(result: string): unknown {
  try {
    return JSON.parse(result)
  } catch {
    return result
  }
}

/** HAI in the inspector. */
export const haiDialect: InspectorDialect = {
  id: 'hai',
  label: 'HAI',
  endpoint: 'WebSocket /ws',
  carries: { state: false, serverTools: true, plan: true },
  connect: (o) => connectHai(o),
}
