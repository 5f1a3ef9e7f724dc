import { randomUUID } from 'node:crypto'
import { parseToolInput, toJsonResult, type RunContext, type ToolDefinition } from '../../../agent-api/index.js'
import { ParlanceError } from '../../../core/index.js'
import { hugai } from '../codec.js'
import type { SessionManager } from '../../../session/index.js'
import type { Audit } from './audit.js'
import type { Params, Peer } from './peer.js'

type Execute = NonNullable<ToolDefinition['execute']>

/** Integrations by name (`createServer({ integrations })`): each a tools record, its tools the integration's actions. */
export type Integrations = Readonly<Record<string, Readonly<Record<string, ToolDefinition>>>>

/**
 * What a tool called outside a run gets as its context: an abort signal, and `progress` (delivered as a
 * `tool-progress` event when the caller asked for `callback: "event"`); touching anything else fails clearly.
 */
function integrationContext(tool: string, signal: AbortSignal, progress: (percent: number, message?: string) => void): RunContext {
  const own: Partial<RunContext> = {
    signal,
    progress: async (percent, opts) => progress(percent, opts?.message),
  }
  return new Proxy(own as RunContext, {
    get: (target, key) => {
      if (Object.hasOwn(target, key)) return Reflect.get(target, key) as unknown
      if (key === 'then') return undefined
      throw new ParlanceError('execution_error', `tool ${tool} needs a run context; ask an agent to call it (agent/request) instead`)
    },
  })
}

/**
 * `tool/integration`: runs the action `action` of the configured integration named `tool` (`createServer({
 * integrations })`, `--integration NAME=URL`) or, when no integration has that name, the server tool (`execute`) of a
 * built-in agent named `tool` or, failing that, `action`; `data` is its arguments. With a `callback` (over WebSocket) it answers `{invocationId,
 * accepted}` at once and delivers the outcome as a notification: `event` → the seed's event shape
 * (`tool-result` / `tool-error`), any other name → a notification of that method. Every call is audited.
 */
export class ToolIntegration {
  constructor(
    private readonly sessions: SessionManager,
    private readonly audit: Audit,
    private readonly integrations: Integrations = {},
  ) {}

  async call(peer: Peer, p: Params): Promise<unknown> {
    const tool = String(p.tool)
    const action = String(p.action)
    const invocationId = `tool_${randomUUID().replace(/-/g, '')}`
    const actor = peer.agentId ?? peer.id
    const integration = Object.hasOwn(this.integrations, tool) ? this.integrations[tool] : undefined
    const found = integration ? this.action(integration, action) : this.find([tool, action])
    if (!found) {
      await this.audit.record({ action: 'tool-integration', actor, target: tool, details: { invocationId, action, ok: false, error: 'not found' } })
      if (integration)
        throw new ParlanceError(
          'not_found',
          `integration ${tool} has no action ${action} (it has: ${Object.keys(integration).join(', ') || 'none'})`,
          { tool, action },
        )
      throw new ParlanceError('not_found', `no integration or server tool named ${tool}, and no server tool named ${action}`, { tool, action })
    }
    const callback = typeof p.callback === 'string' && p.callback !== '' ? p.callback : undefined
    const progress = (percent: number, message?: string) => {
      if (callback === 'event' && peer.push)
        peer.push(hugai.event('tool-progress', { invocationId, tool, action, percent, ...(message !== undefined ? { message } : {}) }))
    }
    const invoke = async () => {
      try {
        const result = await found.execute(
          (p.data ?? {}) as Record<string, unknown>,
          integrationContext(found.name, new AbortController().signal, progress),
        )
        await this.audit.record({ action: 'tool-integration', actor, target: found.name, details: { invocationId, action, ok: true } })
        return { invocationId, tool, action, status: 'success', result: result ?? null }
      } catch (err) {
        const message = (err as Error).message
        await this.audit.record({
          action: 'tool-integration',
          actor,
          target: found.name,
          details: { invocationId, action, ok: false, error: message },
        })
        throw new ParlanceError('tool_error', `tool ${found.name} failed: ${message}`, { invocationId })
      }
    }
    if (!callback || !peer.push) return invoke()
    const deliver = (ok: boolean, data: Record<string, unknown>) =>
      peer.push!(callback === 'event' ? hugai.event(ok ? 'tool-result' : 'tool-error', data) : hugai.notification(callback, { ok, ...data }))
    void invoke().then(
      (r) => deliver(true, r),
      (e: ParlanceError) => deliver(false, { invocationId, tool, action, status: 'error', error: hugai.fromParlance(e) }),
    )
    return { invocationId, accepted: true, callback }
  }

  private action(integration: Readonly<Record<string, ToolDefinition>>, action: string): { name: string; execute: Execute } | undefined {
    const def = Object.hasOwn(integration, action) ? integration[action] : undefined
    return def?.execute ? { name: action, execute: validated(action, def) } : undefined
  }

  private find(names: string[]): { name: string; execute: Execute } | undefined {
    for (const n of names) {
      for (const a of this.sessions.agentNames()) {
        const def = this.sessions.agent(a)?.tools[n]
        if (def?.execute) return { name: n, execute: validated(n, def) }
      }
    }
    return undefined
  }
}

/** A tool's `execute` behind its Standard Schema (bad arguments fail as the tool's error), its result as JSON. */
function validated(name: string, def: ToolDefinition): Execute {
  return async (args, ctx) => toJsonResult(await def.execute!((await parseToolInput(name, def, args)) as never, ctx))
}
