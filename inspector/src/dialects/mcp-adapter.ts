import { connectMcp } from '../../../src/dialects/mcp/client.js'
import { askToolName } from '../../../src/dialects/mcp/mapping.js'
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { uid } from '../dom.js'
import { pump, type ConnectOptions, type DialectAdapter } from './types.js'

const str = (v: unknown) => (typeof v === 'string' ? v : '')

/**
 * MCP (streamable HTTP at `/mcp`) through the official SDK's Client: each message is a call of the tool
 * `ask_<agent>` (the served agent's) in the page's session (the `sessionId` argument), whose progress notifications show as statuses
 * and whose result is the answer, whole. An approval is the server's elicitation request, answered by the
 * dialog. Server tools, plan and state come from the canonical log (MCP's result carries only the final state).
 */
export async function connectMcpDialect(o: ConnectOptions, sessionId = `mcp-${uid()}`): Promise<DialectAdapter> {
  const { sink } = o
  const tool = askToolName(o.agent)
  const answers = new Map<string, (r: ElicitResult) => void>()
  const client = await connectMcp({
    url: o.url,
    name: 'parlance-inspector',
    ...(o.token ? { token: o.token } : {}),
    onElicit: (params) => {
      sink.wire('in', { method: 'elicitation/create', params })
      const a = ((params._meta ?? {}) as Record<string, unknown>)['parlance/approval'] as Record<string, unknown> | undefined
      const id = str(a?.approvalId) || uid()
      sink.approval({ id, tool: str(a?.tool), args: a?.args ?? {}, risk: str(a?.risk) || 'medium', reasoning: str(a?.reasoning) || params.message })
      return new Promise<ElicitResult>((resolve) => answers.set(id, resolve))
    },
  })
  // The session exists once the first call runs (its first progress notification): follow its log from then on.
  let announced = false
  const announce = () => {
    if (announced) return
    announced = true
    sink.session(sessionId)
  }
  return {
    id: 'mcp',
    notes: `MCP: each message is one call of the tool ${tool} in this page's session, answered whole; progress shows as statuses, an approval is an elicitation request. MCP carries no client tools, and tool calls, plan and state show from the canonical log.`,
    async send(text) {
      void pump(sink, async () => {
        const params = { name: tool, arguments: { message: text, sessionId } }
        sink.wire('out', { method: 'tools/call', params })
        const r = await client.callTool(params, undefined, {
          timeout: 600_000,
          resetTimeoutOnProgress: true,
          onprogress: (p) => {
            announce()
            if (p.message) sink.status(p.message)
          },
        })
        sink.wire('in', r)
        announce()
        const out = (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('')
        if (r.isError) {
          sink.error(out)
          sink.runEnded('error')
          return
        }
        const id = `mcp_${uid()}`
        if (out) {
          sink.textDelta(id, out)
          sink.textEnd(id)
        }
        sink.runEnded(str((r.structuredContent as { status?: unknown } | undefined)?.status) || 'completed')
      })
    },
    async approve(id, approved, feedback) {
      const answer = answers.get(id)
      answers.delete(id)
      answer?.({ action: 'accept', content: { approve: approved, ...(feedback ? { feedback } : {}) } })
    },
    async answerTool() {
      throw new Error('MCP carries no client tools')
    },
    close() {
      void client.close()
    },
  }
}
