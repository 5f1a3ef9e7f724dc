import type { AgentDefinition } from '../../../agent-api/index.js'
import { ParlanceError } from '../../../core/index.js'
import { RPC } from '../errors.js'
import type { SessionManager } from '../../../session/index.js'
import type { HubLink } from './link.js'
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

/**
 * Built-in agents (the server's, e.g. `demo`) and agents registered by connections, until they disconnect. In a
 * cluster the link lists and finds the agents registered on the other nodes too (`Router` sends them their
 * tasks through the link), and an agent id is registered once across the cluster.
 */
export class Registry {
  private readonly remote = new Map<string, { peer: Peer; info: RemoteInfo }>()

  constructor(
    private readonly sessions: SessionManager,
    private readonly link: HubLink | null,
  ) {}

  /** Every agent: built-in, registered here, and (cluster) registered on the other live nodes. */
  async listAll(): Promise<AgentEntry[]> {
    const here = this.list()
    if (!this.link) return here
    const known = new Set(here.map((a) => a.agentId))
    const elsewhere = (await this.link.remoteAgents()).filter((a) => !known.has(a.agentId))
    return [...here, ...elsewhere.map((a): AgentEntry => ({ agentId: a.agentId, kind: 'remote', ...a.info }))]
  }

  /** The agents of this node. */
  list(): AgentEntry[] {
    const builtin = this.sessions.agentNames().map((name): AgentEntry => {
      const a = this.sessions.agent(name)
      const tools = Object.entries(a?.tools ?? {})
      return {
        agentId: name,
        kind: 'builtin',
        description: a?.description ?? '',
        capabilities: { tools: tools.map(([n]) => n), serverTools: tools.filter(([, t]) => typeof t.execute === 'function').map(([n]) => n) },
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
  async register(peer: Peer, p: Params): Promise<{ registered: true; agentId: string; missingDependencies: string[] }> {
    if (!peer.push)
      throw new RpcFailure({ code: RPC.needsConnection, message: 'agent/register needs a WebSocket connection (/rpc), so tasks can reach the agent' })
    const agentId = String(p.agentId)
    const taken = this.sessions.agent(agentId)
      ? 'a built-in agent'
      : this.remote.get(agentId)?.peer !== peer && this.remote.has(agentId)
        ? 'another connection'
        : null
    if (taken) throw new ParlanceError('conflict', `agent ${agentId} is already registered by ${taken}`, { agentId })
    const dependencies = (p.dependencies as string[] | undefined) ?? []
    const opt = (k: string) => (typeof p[k] === 'string' ? { [k]: p[k] } : {})
    const info: RemoteInfo = {
      capabilities: p.capabilities as Record<string, unknown>,
      governanceLevel: String(p.governanceLevel),
      ...opt('version'),
      ...opt('author'),
      ...opt('description'),
      dependencies,
    }
    const elsewhere = await this.link?.claimAgent(agentId, info)
    if (elsewhere)
      throw new ParlanceError('conflict', `agent ${agentId} is already registered by a connection on node ${elsewhere}`, { agentId, node: elsewhere })
    // Registered meanwhile by another connection of this node (the claim above was ours for it too): first wins.
    const holder = this.remote.get(agentId)?.peer
    if (holder && holder !== peer) throw new ParlanceError('conflict', `agent ${agentId} is already registered by another connection`, { agentId })
    this.remote.set(agentId, { peer, info })
    peer.registered.add(agentId)
    const missingDependencies: string[] = []
    for (const d of dependencies) if (!this.find(d) && !(await this.link?.findAgent(d))) missingDependencies.push(d)
    return { registered: true, agentId, missingDependencies }
  }

  /** The peer left: its agents leave the registry (and, in a cluster, every node's). */
  disconnected(peer: Peer): void {
    for (const id of peer.registered) {
      if (this.remote.get(id)?.peer !== peer) continue
      this.remote.delete(id)
      this.link?.releaseAgent(id)
    }
  }
}
