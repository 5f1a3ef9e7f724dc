import { stringOf, type Json } from '../../../core/index.js'
import { RPC, type RpcErrorObject } from '../errors.js'
import { EXTENSION_METHODS, METHODS, type Method } from '../wire.js'
import { type RpcId } from '../../../core/index.js'
import type { EndpointDeps } from '../../../binding/endpoint.js'
import { Audit } from './audit.js'
import { Governance } from './governance.js'
import { Outbound } from './outbound.js'
import { RpcFailure, type GovernanceLevel, type Params, type Peer } from './peer.js'
import { Registry } from './registry.js'
import { CONCURRENCY, Router } from './router.js'
import { ToolIntegration } from './tools.js'

/** The protocol version `initialize` answers. */
export const PROTOCOL_VERSION = '2.0'

/**
 * The HugAI hub: registry, routing, governance, tool integration and audit, behind one `call`. Transport-free:
 * the endpoint hands it validated messages and a Peer (a WebSocket connection with `push`, or an HTTP request
 * without), and answers whatever `call` resolves or throws.
 */
export class Hub {
  private readonly peers = new Set<Peer>()
  private readonly registry: Registry
  private readonly outbound = new Outbound()
  private readonly audit: Audit
  private readonly governance: Governance
  private readonly router: Router
  private readonly tools: ToolIntegration

  constructor(deps: Pick<EndpointDeps, 'sessions' | 'limits'>) {
    this.registry = new Registry(deps.sessions)
    this.audit = new Audit(deps.sessions)
    this.governance = new Governance(deps.sessions, this.audit, () => this.peers, deps.limits.earlyDecisionWindowMs)
    this.tools = new ToolIntegration(deps.sessions, this.audit)
    this.router = new Router({
      sessions: deps.sessions,
      registry: this.registry,
      outbound: this.outbound,
      governance: this.governance,
      audit: this.audit,
      timeoutMs: deps.limits.clientToolTimeoutMs,
    })
  }

  /** A WebSocket connection opened. */
  connect(peer: Peer): void {
    this.peers.add(peer)
  }

  /** A WebSocket connection closed: its agents leave the registry, requests waiting on it fail, its tasks are cancelled. */
  disconnect(peer: Peer): void {
    this.peers.delete(peer)
    this.registry.disconnected(peer)
    this.outbound.disconnected(peer)
    this.router.disconnected(peer)
  }

  /** A response from a peer to a request the hub sent it. */
  answer(peer: Peer, id: RpcId, result: unknown, error?: RpcErrorObject): void {
    this.outbound.answer(peer, id, result, error)
  }

  /**
   * Runs one method for `peer`; resolves with its result or throws RpcFailure / ParlanceError. Over WebSocket
   * every method but `initialize` needs `initialize` first (-32001); HTTP peers are stateless and need none.
   */
  async call(peer: Peer, method: Method, params: unknown): Promise<unknown> {
    const p = (params ?? {}) as Params
    if (method !== 'initialize' && !peer.initialized) {
      throw new RpcFailure({ code: RPC.notInitialized, message: `not initialized: call initialize before ${method}`, data: { method } })
    }
    switch (method) {
      case 'initialize':
        return this.initialize(peer, p)
      case 'agent/register': {
        const r = this.registry.register(peer, p)
        await this.audit.record({ action: 'agent-register', actor: r.agentId, details: { missingDependencies: r.missingDependencies, version: (p.version as string | undefined) ?? null } })
        return r
      }
      case 'agent/list':
        return { agents: this.registry.list() }
      case 'agent/request':
        return this.router.request(peer, p)
      case 'task/cancel':
        return this.router.cancel(peer, p)
      case 'event':
        return this.router.relayEvent(peer, p)
      case 'governance/approval':
        return this.governance.decide(peer, p)
      case 'tool/integration':
        return this.tools.call(peer, p)
      case 'audit/log':
        return this.audit.record({ action: stringOf(p.action), actor: stringOf(p.actor), ...(p.target !== undefined ? { target: stringOf(p.target) } : {}), details: (p.details ?? {}) as Json, timestamp: stringOf(p.timestamp) })
      case 'audit/query':
        return { entries: await this.audit.query(p) }
    }
  }

  private initialize(peer: Peer, p: Params): unknown {
    const caps = p.capabilities as Record<string, unknown>
    peer.initialized = true
    peer.agentId = String(p.agentId)
    peer.governanceLevel = p.governanceLevel as GovernanceLevel
    peer.approver = caps.approver === true || caps['governance-approver'] === true
    const ws = Boolean(peer.push)
    return {
      protocolVersion: PROTOCOL_VERSION,
      serverInfo: { name: 'parlance', version: '0.1.0' },
      capabilities: {
        agentRequest: true,
        agentRegistration: ws,
        governance: { levels: ['autonomous', 'supervised', 'strict'], approverCapability: 'approver' },
        toolIntegration: { callbacks: ws },
        audit: { query: true },
        batch: true,
        serverRequests: ws,
        priorities: ['critical', 'high', 'medium', 'low'],
        concurrency: CONCURRENCY,
      },
      methods: METHODS,
      extensions: EXTENSION_METHODS,
      agents: this.registry.list(),
      session: { peerId: peer.id, agentId: peer.agentId, governanceLevel: peer.governanceLevel, approver: peer.approver },
    }
  }
}
