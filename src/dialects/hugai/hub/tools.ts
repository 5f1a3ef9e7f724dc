import { randomUUID } from 'node:crypto'
import type { ToolDefinition } from '../../../agent/index.js'
import { ParlanceError } from '../../../core/index.js'
import { hugai } from '../codec.js'
import type { SessionManager } from '../../../session/index.js'
import type { Audit } from './audit.js'
import type { Params, Peer } from './peer.js'

type Execute = NonNullable<ToolDefinition['execute']>

/** A tool called outside a run has no RunContext: touching it fails clearly instead of misbehaving. */
const NO_CONTEXT = (tool: string) =>
  new Proxy({} as Parameters<Execute>[1], {
    get: () => {
      throw new ParlanceError('execution_error', `tool ${tool} needs a run context; ask an agent to call it (agent/request) instead`)
    },
  })

/**
 * `tool/integration`: runs the server tool (`execute`) of a built-in agent named `tool` or, failing that,
 * `action`, with `data` as its arguments. With a `callback` (over WebSocket) it answers `{invocationId,
 * accepted}` at once and delivers the outcome as a notification: `event` → the seed's event shape
 * (`tool-result` / `tool-error`), any other name → a notification of that method. Every call is audited.
 */
export class ToolIntegration {
  constructor(
    private readonly sessions: SessionManager,
    private readonly audit: Audit,
  ) {}

  async call(peer: Peer, p: Params): Promise<unknown> {
    const tool = String(p.tool)
    const action = String(p.action)
    const invocationId = `tool_${randomUUID().replace(/-/g, '')}`
    const actor = peer.agentId ?? peer.id
    const found = this.find([tool, action])
    if (!found) {
      await this.audit.record({ action: 'tool-integration', actor, target: tool, details: { invocationId, action, ok: false, error: 'not found' } })
      throw new ParlanceError('not_found', `no server tool named ${tool} or ${action}`, { tool, action })
    }
    const invoke = async () => {
      try {
        const result = await found.execute((p.data ?? {}) as Record<string, unknown>, NO_CONTEXT(found.name))
        await this.audit.record({ action: 'tool-integration', actor, target: found.name, details: { invocationId, action, ok: true } })
        return { invocationId, tool, action, status: 'success', result: (result ?? null) }
      } catch (err) {
        const message = (err as Error).message
        await this.audit.record({ action: 'tool-integration', actor, target: found.name, details: { invocationId, action, ok: false, error: message } })
        throw new ParlanceError('tool_error', `tool ${found.name} failed: ${message}`, { invocationId })
      }
    }
    const callback = typeof p.callback === 'string' && p.callback !== '' ? p.callback : undefined
    if (!callback || !peer.push) return invoke()
    const deliver = (ok: boolean, data: Record<string, unknown>) =>
      peer.push!(callback === 'event' ? hugai.event(ok ? 'tool-result' : 'tool-error', data) : hugai.notification(callback, { ok, ...data }))
    void invoke().then(
      (r) => deliver(true, r),
      (e: ParlanceError) => deliver(false, { invocationId, tool, action, status: 'error', error: hugai.fromParlance(e) }),
    )
    return { invocationId, accepted: true, callback }
  }

  private find(names: string[]): { name: string; execute: Execute } | undefined {
    for (const n of names) {
      for (const a of this.sessions.agentNames()) {
        const execute = this.sessions.agent(a)?.tools[n]?.execute
        if (execute) return { name: n, execute }
      }
    }
    return undefined
  }
}
