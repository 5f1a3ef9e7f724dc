import { HaiClient, MyAgentClient, type MyAgentServerEvent } from 'parlance-gateway/client'
import type { PatchOp } from '../patch.js'
import type { ConnectOptions, DialectAdapter, InspectorDialect } from './types.js'

const str = (v: unknown) => (typeof v === 'string' ? v : '')

/**
 * MyAgent over WebSocket `/myagent`, through `MyAgentClient`. MyAgent has no event that answers a client
 * tool, so the inspector answers one through HAI on the same session (a second dialect on one conversation,
 * which Parlance supports) and says so in the wire view.
 */
export async function connectMyAgent(o: ConnectOptions): Promise<DialectAdapter> {
  const { sink } = o
  const client = await MyAgentClient.connect({
    url: o.url,
    ...(o.token ? { token: o.token } : {}),
    tap: (dir, frame) => {
      const seq = (frame as MyAgentServerEvent).metadata?.seq
      sink.wire(dir, frame, dir === 'in' && typeof seq === 'number' ? seq : undefined)
    },
  })
  const sessionId = await client.createSession({ project_name: 'inspector' })
  sink.session(sessionId)
  const streamed = new Set<string>()
  const handle = (e: MyAgentServerEvent) => {
    const c = e.content as Record<string, unknown> | string | null
    const obj = typeof c === 'object' && c !== null ? c : {}
    const md = e.metadata
    const step = e.step_id ?? ''
    switch (e.event) {
      case 'agent.partial_answer':
        streamed.add(step)
        sink.textDelta(step, str(c))
        break
      case 'agent.final_answer':
        if (!streamed.has(step)) sink.textDelta(step, str(obj.answer))
        sink.textEnd(step)
        sink.runEnded('final answer')
        break
      case 'agent.thinking':
        sink.status(`thinking: ${str(c)}`)
        break
      case 'agent.tool_call': {
        const call = { id: str(md.call_id) || step, name: str(obj.tool_name), args: obj.arguments ?? {} }
        if (md.tool_type === 'client') sink.clientTool(call)
        else sink.toolCall(call)
        break
      }
      case 'agent.tool_result':
        sink.toolResult(str(md.call_id) || step, obj.status === 'success' ? { result: obj.result } : { error: JSON.stringify(obj.result) })
        break
      case 'agent.user_confirm':
        sink.approval({
          id: step,
          tool: str(md.tool_name),
          args: md.arguments ?? {},
          risk: str(md.risk_level) || (md.critical ? 'high' : 'medium'),
          reasoning: str(obj.message),
        })
        break
      case 'plan.completed':
        sink.plan(((obj.tasks as Array<{ title: string }> | undefined) ?? []).map((t) => t.title))
        break
      case 'solver.progress':
        sink.progress(Number(md.progress_percent), str(obj.current_task) || undefined)
        break
      case 'agent.state':
        if (md.kind === 'delta') sink.statePatch(c as unknown as PatchOp[])
        else sink.state(c)
        break
      case 'error.timeout':
        if (md.stage === 'user_confirm') sink.approvalClosed(step, str(c))
        else sink.error(`timeout: ${str(c)}`)
        break
      case 'error.execution':
        sink.error(`${str(md.error_type)}: ${str(c)}`)
        sink.runEnded('error')
        break
      case 'error.validation':
      case 'system.error':
        sink.error(`${str(md.error_code)}: ${str(c)}`)
        break
    }
  }
  let seen = 0
  const drain = () => {
    while (seen < client.received.length) handle(client.received[seen++]!)
  }
  drain()
  const prev = client.tap
  client.tap = (dir, frame) => {
    prev?.(dir, frame)
    if (dir === 'in') queueMicrotask(drain)
  }
  let helper: HaiClient | undefined
  return {
    id: 'myagent',
    notes: 'MyAgent cannot answer a client tool: the inspector answers it through HAI on the same session.',
    async send(text) {
      client.message(text)
    },
    async approve(id, approved, feedback) {
      client.respond(id, approved, feedback)
    },
    async answerTool(id, outcome) {
      helper ??= await HaiClient.connect({
        url: o.url,
        sessionId,
        ...(o.token ? { token: o.token } : {}),
        tap: (dir, frame) => sink.wire(dir, { via: 'hai', frame }),
      })
      helper.toolResult(id, outcome)
    },
    close() {
      client.close()
      helper?.close()
    },
  }
}

/** MyAgent in the inspector. */
export const myagentDialect: InspectorDialect = {
  id: 'myagent',
  label: 'MyAgent',
  endpoint: 'WebSocket /myagent',
  carries: { state: true, serverTools: true, plan: true },
  connect: (o) => connectMyAgent(o),
}
