import { HugaiClient, RpcError, type RpcNotification } from 'parlance-gateway/client'
import { uid } from '../dom.js'
import { pump, type ConnectOptions, type DialectAdapter, type InspectorDialect } from './types.js'

const str = (v: unknown) => (typeof v === 'string' ? v : '')

/** What `agent/request` to a built-in agent answers (also `toolResults` and the final `state`, which the chat takes from the task's log). */
interface TaskResult {
  taskId: string
  output: string
}

/**
 * HugAI v2 (JSON-RPC 2.0 over WebSocket `/rpc`), through `HugaiClient`. Each message is an `agent/request`
 * task to the served agent: a session of its own, answered whole when the task completes. Checkpoints
 * (approvals) arrive as `event` notifications and are decided with `governance/approval`; a client tool is
 * the hub's `tool/integration` request, answered when the form is submitted.
 */
export async function connectHugai(o: ConnectOptions, agent = o.agent): Promise<DialectAdapter> {
  const { sink } = o
  const client = await HugaiClient.connect({ url: o.url, ...(o.token ? { token: o.token } : {}), tap: (dir, frame) => sink.wire(dir, frame) })
  const me = `inspector-${uid().slice(0, 8)}`
  await client.call('initialize', {
    processId: 1,
    agentId: me,
    capabilities: { inspector: true },
    governanceLevel: 'supervised',
    clientInfo: { name: 'parlance-inspector' },
  })
  const waiting = new Map<string, (outcome: { result: unknown } | { error: string }) => void>()
  client.handle('tool/integration', (params) => {
    const p = params as { tool: string; data?: unknown; toolCallId?: string; taskId?: string }
    const id = p.toolCallId ?? uid()
    if (p.taskId) sink.session(p.taskId)
    sink.clientTool({ id, name: p.tool, args: p.data ?? {} })
    return new Promise((resolve, reject) => {
      waiting.set(id, (outcome) => ('result' in outcome ? resolve(outcome.result) : reject(new RpcError(-32011, outcome.error))))
    })
  })
  const artifacts = new Map<string, Record<string, unknown>>()
  const onNote = (n: RpcNotification) => {
    if (n.method !== 'event') return
    const d = n.params.data ?? {}
    if (typeof d.taskId === 'string') sink.session(d.taskId)
    if (n.params.event === 'task-progress') {
      if (typeof d.progress === 'number' && d.status !== 'completed') sink.progress(d.progress, d.message ? str(d.message) : undefined)
      else if (d.status) sink.status(`${str(d.status)}${d.message ? `: ${str(d.message)}` : ''}`)
    } else if (n.params.event === 'checkpoint') {
      const a = (d.artifact ?? {}) as Record<string, unknown>
      artifacts.set(str(d.checkpoint), a)
      sink.approval({ id: str(d.checkpoint), tool: str(a.tool), args: a.arguments ?? {}, risk: str(a.risk) || 'medium', reasoning: str(a.reasoning) })
    } else if (n.params.event === 'checkpoint-resolved' && d.by !== 'user') sink.approvalClosed(str(d.checkpoint), `checkpoint ${str(d.by)}`)
  }
  let seen = 0
  const prev = client.tap
  client.tap = (dir, frame) => {
    prev?.(dir, frame)
    if (dir === 'in')
      queueMicrotask(() => {
        while (seen < client.notifications.length) onNote(client.notifications[seen++]!)
      })
  }
  return {
    id: 'hugai',
    notes:
      "HugAI runs each message as a task in a session of its own (task_…) and answers it whole; state, server tools and canonical events come from each task session's log.",
    async send(text) {
      void pump(sink, async () => {
        try {
          const r = await client.call<TaskResult>('agent/request', { sourceAgent: me, targetAgent: agent, task: text })
          sink.session(r.taskId)
          const id = `out_${r.taskId}`
          sink.textDelta(id, r.output)
          sink.textEnd(id)
          sink.runEnded('completed')
        } catch (err) {
          if (!(err instanceof RpcError)) throw err
          sink.error(`${err.code}: ${err.message}`)
          sink.runEnded('error')
        }
      })
    },
    async approve(id, approved, feedback) {
      await client.call('governance/approval', {
        checkpoint: id,
        artifact: artifacts.get(id) ?? {},
        approver: me,
        decision: approved ? 'approved' : 'rejected',
        ...(feedback ? { feedback } : {}),
      })
    },
    async answerTool(id, outcome) {
      const answer = waiting.get(id)
      if (!answer) throw new Error(`no tool/integration request ${id} is waiting`)
      waiting.delete(id)
      answer(outcome)
    },
    close: () => client.close(),
  }
}

/** HugAI in the inspector. */
export const hugaiDialect: InspectorDialect = {
  id: 'hugai',
  label: 'HugAI',
  endpoint: 'JSON-RPC over WebSocket /rpc',
  carries: { state: false, serverTools: false, plan: true },
  connect: (o) => connectHugai(o),
}
