import { ON_BUSY, stringOf, type Json } from '../../../core/index.js'
import { RPC, type RpcErrorObject } from '../errors.js'
import { EXTENSION_METHODS, METHODS, type Method } from '../wire.js'
import { type RpcId } from '../../../core/index.js'
import type { EndpointDeps } from '../../../binding/endpoint.js'
import { Audit } from './audit.js'
import { Governance } from './governance.js'
import type { HubLink, LinkCall, PeerSnapshot } from './link.js'
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
  /** This node's WebSocket peers by id (what other nodes name when they push to one). */
  private readonly byId = new Map<string, Peer>()
  /** Peers of other nodes acting here (`node/peerId`), for calls they made through the link; WebSocket peers only. */
  private readonly standIns = new Map<string, Peer>()
  /** Ids of this node's peers that other nodes hold stand-ins of: they are told when such a peer leaves. */
  private readonly exported = new Set<string>()
  private readonly registry: Registry
  private readonly outbound = new Outbound()
  private readonly audit: Audit
  private readonly governance: Governance
  private readonly router: Router
  private readonly tools: ToolIntegration

  /** `link`: how this hub reaches the other nodes' hubs in a cluster (null on a single node). Call `start` next. */
  constructor(
    deps: Pick<EndpointDeps, 'sessions' | 'limits' | 'integrations'>,
    private readonly link: HubLink | null = null,
  ) {
    this.registry = new Registry(deps.sessions, link)
    this.audit = new Audit(deps.sessions)
    this.governance = new Governance(deps.sessions, this.audit, () => this.peers, deps.limits.earlyDecisionWindowMs, link)
    this.tools = new ToolIntegration(deps.sessions, this.audit, deps.integrations)
    this.router = new Router({
      sessions: deps.sessions,
      registry: this.registry,
      outbound: this.outbound,
      governance: this.governance,
      audit: this.audit,
      timeoutMs: deps.limits.clientToolTimeoutMs,
      link,
    })
  }

  /** Starts listening to the other nodes (cluster); a no-op on a single node. */
  async start(): Promise<void> {
    await this.link?.install({
      call: (from, call) => this.runFor(from, call),
      push: (peerId, msg) => this.byId.get(peerId)?.push?.(msg),
      gone: (from, peerId) => this.dropStandIn(`${from}/${peerId}`),
      nodeDown: (node) => {
        for (const key of [...this.standIns.keys()]) if (key.startsWith(`${node}/`)) this.dropStandIn(key)
      },
      approvers: (principal, msg, skip) => {
        const own = this.link?.nodeId
        for (const p of this.peers) if (p.approver && p.principal === principal && !skip.includes(`${own}/${p.id}`)) p.push?.(msg)
      },
    })
  }

  /**
   * Stops recording audit entries (those under way are stored first) and listening to the other nodes; this
   * node's registered agents leave the cluster's registry.
   */
  async close(): Promise<void> {
    await this.audit.close()
    await this.link?.close()
  }

  /** A WebSocket connection opened. */
  connect(peer: Peer): void {
    this.peers.add(peer)
    this.byId.set(peer.id, peer)
  }

  /** A WebSocket connection closed: its agents leave the registry, requests waiting on it fail, its tasks are cancelled. */
  disconnect(peer: Peer): void {
    this.peers.delete(peer)
    if (this.byId.get(peer.id) === peer) this.byId.delete(peer.id)
    this.registry.disconnected(peer)
    this.outbound.disconnected(peer)
    this.router.disconnected(peer)
    if (this.exported.delete(peer.id)) this.link?.gone(peer.id)
  }

  /**
   * A response from a peer to a request the hub sent it. Only a registered agent's connection and a requester
   * of a built-in agent's client tool get requests, both from the hub of their own node: answers stay local.
   */
  answer(peer: Peer, id: RpcId, result: unknown, error?: RpcErrorObject): void {
    this.outbound.answer(peer, id, result, error)
  }

  /**
   * Runs one method for `peer`; resolves with its result or throws RpcFailure / ParlanceError. Over WebSocket
   * every method but `initialize` needs `initialize` first (-32001); HTTP peers are stateless and need none.
   * In a cluster, a request for an agent registered on another node, and a cancel or decision for a task or
   * checkpoint held there, run on that node, as this peer.
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
        const r = await this.registry.register(peer, p)
        await this.audit.record({
          action: 'agent-register',
          actor: r.agentId,
          details: { missingDependencies: r.missingDependencies, version: (p.version as string | undefined) ?? null },
        })
        return r
      }
      case 'agent/list':
        return { agents: await this.registry.listAll() }
      case 'agent/request': {
        const elsewhere = this.link && !this.registry.find(String(p.targetAgent)) ? await this.link.findAgent(String(p.targetAgent)) : null
        return elsewhere ? this.forward(elsewhere.node, peer, method, p) : this.router.request(peer, p)
      }
      case 'task/regenerate':
        return this.router.regenerate(peer, p)
      case 'task/cancel': {
        const elsewhere = this.link && !this.router.has(String(p.taskId)) ? await this.link.locateTask(String(p.taskId)) : null
        return elsewhere ? this.forward(elsewhere, peer, method, p) : this.router.cancel(peer, p)
      }
      case 'event':
        return this.router.relayEvent(peer, p)
      case 'governance/approval': {
        const named = String(p.checkpoint)
        const elsewhere = this.link && !this.governance.holds(named, peer.principal) ? await this.link.locateCheckpoint(named, peer.principal) : null
        return elsewhere ? this.forward(elsewhere, peer, method, p) : this.governance.decide(peer, p)
      }
      case 'tool/integration':
        return this.tools.call(peer, p)
      case 'audit/log':
        return this.audit.record({
          action: stringOf(p.action),
          actor: stringOf(p.actor),
          ...(p.target !== undefined ? { target: stringOf(p.target) } : {}),
          details: (p.details ?? {}) as Json,
          timestamp: stringOf(p.timestamp),
        })
      case 'audit/query':
        return { entries: await this.audit.query(p) }
    }
  }

  /** Runs `method` on `node` as `peer` (its pushes come back here through the link). */
  private forward(node: string, peer: Peer, method: LinkCall['method'], params: Params): Promise<unknown> {
    if (peer.push) this.exported.add(peer.id)
    const snapshot: PeerSnapshot = {
      id: peer.id,
      principal: peer.principal,
      governanceLevel: peer.governanceLevel,
      approver: peer.approver,
      push: Boolean(peer.push),
      ...(peer.agentId !== undefined ? { agentId: peer.agentId } : {}),
    }
    return this.link!.call(node, { peer: snapshot, method, params })
  }

  /** A call another node forwarded: run here, locally, as a stand-in of its peer. */
  private runFor(from: string, call: LinkCall): Promise<unknown> {
    const peer = this.standIn(from, call.peer)
    switch (call.method) {
      case 'agent/request':
        return this.router.request(peer, call.params)
      case 'task/cancel':
        return this.router.cancel(peer, call.params)
      case 'governance/approval':
        return this.governance.decide(peer, call.params)
    }
  }

  /** The stand-in of peer `s` of node `from`: one per WebSocket peer (its pushes go back through the link); HTTP ones are per call. */
  private standIn(from: string, s: PeerSnapshot): Peer {
    const key = `${from}/${s.id}`
    const known = this.standIns.get(key)
    const link = this.link!
    const peer: Peer = known ?? {
      id: key,
      origin: from,
      principal: s.principal,
      initialized: true,
      governanceLevel: s.governanceLevel,
      approver: s.approver,
      registered: new Set(),
      ...(s.agentId !== undefined ? { agentId: s.agentId } : {}),
      ...(s.push ? { push: (msg: object) => link.push(from, s.id, msg) } : {}),
    }
    // The peer may have re-initialized since (another level, approver or not).
    peer.governanceLevel = s.governanceLevel
    peer.approver = s.approver
    if (s.push && !known) this.standIns.set(key, peer)
    return peer
  }

  /** A stand-in's peer left (or its node stopped): as if it disconnected here. */
  private dropStandIn(key: string): void {
    const peer = this.standIns.get(key)
    if (!peer) return
    this.standIns.delete(key)
    this.outbound.disconnected(peer)
    this.router.disconnected(peer)
  }

  private async initialize(peer: Peer, p: Params): Promise<unknown> {
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
        conversation: { sessions: true, onBusy: ON_BUSY, regenerate: true },
      },
      methods: METHODS,
      extensions: EXTENSION_METHODS,
      agents: await this.registry.listAll(),
      session: { peerId: peer.id, agentId: peer.agentId, governanceLevel: peer.governanceLevel, approver: peer.approver },
    }
  }
}
