import type { AgentDefinition } from '../../../agent/index.js'
import { ParlanceError } from '../../../core/index.js'
import { RPC } from '../errors.js'
import type { SessionManager } from '../../../session/index.js'
import { RpcFailure, type Params, type Peer } from './peer.js'

/** What a connection announced in `agent/register`. */
export interface RemoteInfo {
  capabilities: Record<string, unknown>
  governanceLevel: string
  version?: string
  author?: string
  description?: string
  dependencies: string[]
}

/** A registry entry as `initialize` and `agent/list` show it. */
export type AgentEntry = { agentId: string; kind: 'builtin' | 'remote' } & Record<string, unknown>

/** Where a task for an agent goes: a built-in agent's run, or a registered connection. */
export type Target = { kind: 'builtin'; agentId: string; agent: AgentDefinition } | { kind: 'remote'; agentId: string; peer: Peer; info: RemoteInfo }

/** Built-in agents (the server's, e.g. `demo`) and agents registered by connections, until they disconnect. */
export class Registry {
  private readonly remote = new Map<string, { peer: Peer; info: RemoteInfo }>()

  constructor(private readonly sessions: SessionManager) {}

  list(): AgentEntry[] {
    const builtin = this.sessions.agentNames().map((name): AgentEntry => {
      const a = this.sessions.agent(name)
      const tools = Object.entries(a?.tools ?? {})
      return {
        agentId: name,
        kind: 'builtin',
        description: a?.description ?? '',
        capabilities: { tools: tools.map(([n]) => n), serverTools: tools.filter(([, t]) => t.execute).map(([n]) => n) },
        governanceLevel: 'supervised',
      }
    })
    const remote = [...this.remote].map(([agentId, r]): AgentEntry => ({ agentId, kind: 'remote', ...r.info }))
    return [...builtin, ...remote]
  }

  find(agentId: string): Target | undefined {
    const agent = this.sessions.agent(agentId)
    if (agent) return { kind: 'builtin', agentId, agent }
    const r = this.remote.get(agentId)
    return r && { kind: 'remote', agentId, ...r }
  }

  /** Registers `peer` as agent `p.agentId`; answers the dependencies nobody provides (yet). */
  register(peer: Peer, p: Params): { registered: true; agentId: string; missingDependencies: string[] } {
    if (!peer.push) throw new RpcFailure({ code: RPC.needsConnection, message: 'agent/register needs a WebSocket connection (/rpc), so tasks can reach the agent' })
    const agentId = String(p.agentId)
    const taken = this.sessions.agent(agentId) ? 'a built-in agent' : this.remote.get(agentId)?.peer !== peer && this.remote.has(agentId) ? 'another connection' : null
    if (taken) throw new ParlanceError('conflict', `agent ${agentId} is already registered by ${taken}`, { agentId })
    const dependencies = (p.dependencies as string[] | undefined) ?? []
    const opt = (k: string) => (typeof p[k] === 'string' ? { [k]: p[k] } : {})
    this.remote.set(agentId, {
      peer,
      info: { capabilities: p.capabilities as Record<string, unknown>, governanceLevel: String(p.governanceLevel), ...opt('version'), ...opt('author'), ...opt('description'), dependencies },
    })
    peer.registered.add(agentId)
    const missingDependencies = dependencies.filter((d) => !this.find(d))
    return { registered: true, agentId, missingDependencies }
  }

  /** The peer left: its agents leave the registry. */
  disconnected(peer: Peer): void {
    for (const id of peer.registered) if (this.remote.get(id)?.peer === peer) this.remote.delete(id)
  }
}
