import { randomUUID } from 'node:crypto'
import { ParlanceError, type Json, type Principal, type StoredEvent } from '../../core/index.js'
import { hugai, RPC, type Method, type RpcErrorObject, type RpcId } from '../../dialects/hugai/index.js'
import type { Session } from '../../session/index.js'
import type { EndpointDeps } from '../endpoint.js'
import { Audit } from './audit.js'
import { TaskQueue, type Priority } from './queue.js'

/** One side of the hub: a WebSocket connection (can receive requests and notifications) or an HTTP request (cannot). */
export interface Peer {
  readonly id: string
  readonly principal: Principal
  /** Sends a JSON-RPC message to the peer; absent for HTTP, which only gets responses. */
  readonly push?: (msg: object) => void
  initialized: boolean
  agentId?: string
  governanceLevel?: 'autonomous' | 'supervised' | 'strict'
  approver: boolean
  readonly registered: Set<string>
}

/** An error with a JSON-RPC code, thrown by method handlers. */
export class RpcFailure extends Error {
  constructor(readonly rpc: RpcErrorObject) {
    super(rpc.message)
  }
}

interface RemoteAgent {
  peer: Peer
  info: { capabilities: Record<string, unknown>; governanceLevel: string; version?: string; description?: string; dependencies: string[] }
}

type Params = Record<string, unknown>
const PROTOCOL_VERSION = '2.0'
/** Tasks a target agent runs at once; more wait in its priority queue. */
const CONCURRENCY = { builtin: 4, remote: 1 }

/**
 * The HugAI hub: a registry of built-in and connected agents, agent-to-agent
 * routing with priority queues, governance checkpoints, tool integration and
 * a durable audit log. Transport-free: the endpoint hands it parsed messages
 * and a Peer to answer through.
 */
export class Hub {
  private readonly remote = new Map<string, RemoteAgent>()
  private readonly peers = new Set<Peer>()
  private readonly outgoing = new Map<string, { peer: Peer; resolve: (v: unknown) => void; reject: (e: RpcFailure) => void; timer: NodeJS.Timeout }>()
  private readonly queues = new Map<string, TaskQueue>()
  private readonly taskRequesters = new Map<string, Peer>()
  private readonly audit: Audit
  private nextId = 0

  constructor(private readonly deps: Pick<EndpointDeps, 'sessions' | 'limits' | 'log'>) {
    this.audit = new Audit(deps.sessions)
  }

  connect(peer: Peer): void {
    this.peers.add(peer)
  }

  /** A WebSocket peer left: its agents leave the registry, and requests waiting on it fail at once. */
  disconnect(peer: Peer): void {
    this.peers.delete(peer)
    for (const id of peer.registered) this.remote.delete(id)
    for (const [key, o] of this.outgoing) {
      if (o.peer !== peer) continue
      clearTimeout(o.timer)
      this.outgoing.delete(key)
      o.reject(new RpcFailure({ code: RPC.targetDisconnected, message: `target agent ${peer.agentId ?? peer.id} disconnected before answering` }))
    }
  }

  /** A response from a peer to a request the hub sent it. */
  answer(id: RpcId, result: unknown, error?: RpcErrorObject): void {
    const o = this.outgoing.get(String(id))
    if (!o) return
    clearTimeout(o.timer)
    this.outgoing.delete(String(id))
    if (error) o.reject(new RpcFailure({ code: typeof error.code === 'number' ? error.code : RPC.internalError, message: String(error.message ?? 'remote agent failed'), data: error.data }))
    else o.resolve(result)
  }

  /** Runs one method for `peer`; resolves with its result or throws RpcFailure / ParlanceError. */
  async call(peer: Peer, method: Method, params: unknown): Promise<unknown> {
    const p = (params ?? {}) as Params
    if (method !== 'initialize' && !peer.initialized && peer.push) {
      throw new RpcFailure({ code: RPC.notInitialized, message: `call initialize first (${method} before initialize)` })
    }
    switch (method) {
      case 'initialize':
        return this.initialize(peer, p)
      case 'agent/register':
        return this.register(peer, p)
      case 'agent/list':
        return { agents: this.agents() }
      case 'agent/request':
        return this.request(peer, p)
      case 'event':
        return this.relayEvent(peer, p)
      case 'governance/approval':
        return this.approval(peer, p)
      case 'tool/integration':
        return this.tool(peer, p)
      case 'audit/log':
        return this.audit.record({ action: String(p.action), actor: String(p.actor), target: p.target as string | undefined, details: (p.details ?? {}) as Json, timestamp: String(p.timestamp) })
      case 'audit/query':
        return { entries: await this.audit.query(p as never) }
    }
  }

  agents(): Array<Record<string, unknown>> {
    const builtin = this.deps.sessions.agentNames().map((name) => ({
      agentId: name,
      kind: 'builtin',
      description: this.deps.sessions.agent(name)?.description ?? '',
      capabilities: { tools: Object.keys(this.deps.sessions.agent(name)?.tools ?? {}) },
      governanceLevel: 'supervised',
    }))
    const remote = [...this.remote].map(([agentId, r]) => ({ agentId, kind: 'remote', ...r.info }))
    return [...builtin, ...remote]
  }

  private initialize(peer: Peer, p: Params): unknown {
    peer.initialized = true
    peer.agentId = String(p.agentId)
    peer.governanceLevel = p.governanceLevel as Peer['governanceLevel']
    const caps = p.capabilities as Record<string, unknown>
    peer.approver = caps.approver === true || caps['governance-approver'] === true
    return {
      protocolVersion: PROTOCOL_VERSION,
      serverInfo: { name: 'parlance', version: '0.1.0' },
      capabilities: { agentRequest: true, agentRegistration: Boolean(peer.push), governance: true, toolIntegration: true, audit: true, batch: true, serverRequests: Boolean(peer.push) },
      methods: ['initialize', 'agent/register', 'agent/list', 'agent/request', 'event', 'governance/approval', 'tool/integration', 'audit/log', 'audit/query'],
      agents: this.agents(),
      session: { peerId: peer.id, agentId: peer.agentId, governanceLevel: peer.governanceLevel, approver: peer.approver },
    }
  }

  private async register(peer: Peer, p: Params): Promise<unknown> {
    if (!peer.push) throw new RpcFailure({ code: RPC.needsConnection, message: 'agent/register needs a WebSocket connection (/rpc), so requests can reach the agent' })
    const agentId = String(p.agentId)
    if (this.deps.sessions.agent(agentId) || (this.remote.has(agentId) && this.remote.get(agentId)!.peer !== peer)) {
      throw new RpcFailure({ code: RPC.conflict, message: `agent ${agentId} is already registered`, data: { agentId } })
    }
    const dependencies = (p.dependencies as string[] | undefined) ?? []
    this.remote.set(agentId, {
      peer,
      info: { capabilities: p.capabilities as Record<string, unknown>, governanceLevel: String(p.governanceLevel), version: p.version as string | undefined, description: p.description as string | undefined, dependencies },
    })
    peer.registered.add(agentId)
    const known = new Set(this.agents().map((a) => a.agentId))
    const missingDependencies = dependencies.filter((d) => !known.has(d))
    await this.audit.record({ action: 'agent-register', actor: agentId, details: { missingDependencies } })
    return { registered: true, agentId, missingDependencies }
  }

  private queue(target: string, concurrency: number): TaskQueue {
    let q = this.queues.get(target)
    if (!q) this.queues.set(target, (q = new TaskQueue(concurrency)))
    return q
  }

  private async request(peer: Peer, p: Params): Promise<unknown> {
    const target = String(p.targetAgent)
    const priority = (p.priority as Priority | undefined) ?? 'medium'
    const taskId = `task_${randomUUID().replace(/-/g, '')}`
    const builtin = this.deps.sessions.agent(target)
    const remote = this.remote.get(target)
    if (!builtin && !remote) throw new RpcFailure({ code: RPC.notFound, message: `agent not found: ${target}`, data: { agentId: target } })
    await this.audit.record({ action: 'agent-request', actor: String(p.sourceAgent), target, details: { taskId, task: String(p.task), priority } })
    this.taskRequesters.set(taskId, peer)
    try {
      const run = () => (builtin ? this.runBuiltin(peer, taskId, target, p) : this.runRemote(peer, taskId, remote!, p))
      const out = await this.queue(target, builtin ? CONCURRENCY.builtin : CONCURRENCY.remote).run(priority, run)
      await this.audit.record({ action: 'agent-response', actor: target, target: String(p.sourceAgent), details: { taskId, ok: true } })
      return out
    } catch (err) {
      await this.audit.record({ action: 'agent-response', actor: target, target: String(p.sourceAgent), details: { taskId, ok: false, error: (err as Error).message } })
      throw err
    } finally {
      this.taskRequesters.delete(taskId)
    }
  }

  private progress(peer: Peer, data: Record<string, unknown>): void {
    peer.push?.(hugai.notification('event', { event: 'task-progress', data }))
  }

  /** A built-in agent runs the task through the normal agent API, in a session of its own. */
  private async runBuiltin(peer: Peer, taskId: string, agent: string, p: Params): Promise<unknown> {
    const session = await this.deps.sessions.open(taskId, peer.principal, { agent })
    const content = p.context ? `${String(p.task)}\n\ncontext: ${JSON.stringify(p.context)}` : String(p.task)
    const supervised = peer.governanceLevel !== 'autonomous'
    return new Promise((resolve, reject) => {
      let text = ''
      const tools: Array<{ tool: string; result: Json }> = []
      const sub = session.subscribe(
        {
          codecKey: `hugai:${taskId}`,
          encode: (events) => events as StoredEvent[],
          write: (events) => {
            for (const e of events as StoredEvent[]) {
              if (e.type === 'text.delta') text += e.delta
              else if (e.type === 'message.sent') text += `${e.message}\n`
              else if (e.type === 'text.end') text += '\n'
              else if (e.type === 'tool.result') tools.push({ tool: e.toolName, result: e.result })
              else if (e.type === 'progress') this.progress(peer, { taskId, task: String(p.task), progress: e.percent, message: e.message ?? null })
              else if (e.type === 'status') this.progress(peer, { taskId, task: String(p.task), status: e.status, message: e.message ?? null })
              else if (e.type === 'approval.requested') void this.checkpoint(peer, taskId, session, e, supervised)
              else if (e.type === 'run.finished' || e.type === 'run.error') {
                sub.close()
                if (e.type === 'run.finished') {
                  this.progress(peer, { taskId, task: String(p.task), progress: 100, status: 'completed' })
                  resolve({ taskId, agent, status: 'completed', output: text.trim(), toolResults: tools, state: session.model.state })
                } else reject(new ParlanceError(e.code, e.message, { taskId, ...(e.details ?? {}) }))
              }
            }
            return true
          },
        },
        session.lastSeq,
      )
      try {
        session.handle({ type: 'user.message', sessionId: session.id, content, agent, metadata: { sourceAgent: String(p.sourceAgent), priority: p.priority ?? 'medium', context: (p.context ?? {}) as Json } })
      } catch (err) {
        sub.close()
        reject(err)
      }
    })
  }

  /** A remote agent gets the task as a JSON-RPC request on its own connection; its answer is relayed back. */
  private runRemote(peer: Peer, taskId: string, target: RemoteAgent, p: Params): Promise<unknown> {
    const id = `hub_${++this.nextId}`
    const timeoutMs = this.deps.limits.clientToolTimeoutMs
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.outgoing.delete(id)
        reject(new RpcFailure({ code: RPC.timeout, message: `agent ${String(p.targetAgent)} did not answer within ${timeoutMs} ms`, data: { taskId } }))
      }, timeoutMs)
      this.outgoing.set(id, { peer: target.peer, resolve, reject, timer })
      target.peer.push!(hugai.request(id, 'agent/request', { ...p, taskId }))
    }).then((result) => ({ taskId, agent: String(p.targetAgent), status: 'completed', result }))
  }

  /** `event` notifications from a remote agent about a task are relayed to whoever asked for it. */
  private relayEvent(_peer: Peer, p: Params): unknown {
    const data = (p.data ?? {}) as Record<string, unknown>
    const requester = typeof data.taskId === 'string' ? this.taskRequesters.get(data.taskId) : undefined
    requester?.push?.(hugai.notification('event', { event: p.event, data }))
    return { relayed: Boolean(requester) }
  }

  /**
   * An approval in a task run: under `supervised`/`strict` governance, a checkpoint event goes to every
   * approver connection (and the requester); `autonomous` tasks are approved by the hub itself, audited.
   */
  private async checkpoint(peer: Peer, taskId: string, session: Session, e: Extract<StoredEvent, { type: 'approval.requested' }>, supervised: boolean): Promise<void> {
    const artifact = { tool: e.toolName, description: e.toolDescription, arguments: e.args, reasoning: e.reasoning, risk: e.risk }
    await this.audit.record({ action: 'checkpoint', actor: session.agentName, target: e.toolName, details: { checkpoint: e.approvalId, taskId, supervised, artifact: artifact as Json } })
    if (!supervised) {
      session.handle({ type: 'approval.response', sessionId: session.id, approvalId: e.approvalId, approved: true, feedback: 'auto-approved (autonomous governance)' })
      return
    }
    const msg = hugai.notification('event', { event: 'checkpoint', data: { checkpoint: e.approvalId, taskId, agent: session.agentName, artifact, timeoutMs: e.timeoutMs } })
    const targets = new Set([...this.peers].filter((x) => x.approver))
    targets.add(peer)
    for (const t of targets) t.push?.(msg)
  }

  private async approval(peer: Peer, p: Params): Promise<unknown> {
    const checkpoint = String(p.checkpoint)
    const session = this.deps.sessions.findPending(checkpoint)
    if (!session) throw new RpcFailure({ code: RPC.approvalNotPending, message: `approval not pending: ${checkpoint}`, data: { checkpoint } })
    if (!peer.approver && session.owner !== peer.principal) throw new RpcFailure({ code: RPC.forbidden, message: 'only an approver or the task owner may decide this checkpoint' })
    const decision = String(p.decision)
    const feedback = decision === 'needs_revision' ? `needs revision: ${String(p.feedback ?? '')}`.trim() : (p.feedback as string | undefined)
    session.handle({ type: 'approval.response', sessionId: session.id, approvalId: checkpoint, approved: decision === 'approved', ...(feedback ? { feedback } : {}) })
    await this.audit.record({ action: 'approval', actor: String(p.approver), target: checkpoint, details: { decision, feedback: feedback ?? null, artifact: p.artifact as Json } })
    return { checkpoint, decision, recorded: true }
  }

  /** Invokes a built-in agent's server tool named `tool` (or `action`) with `data`, outside a run. */
  private async tool(peer: Peer, p: Params): Promise<unknown> {
    const names = [String(p.tool), String(p.action)]
    let def
    for (const a of this.deps.sessions.agentNames()) {
      const tools = this.deps.sessions.agent(a)?.tools ?? {}
      for (const n of names) if (tools[n]?.execute) def ??= { name: n, execute: tools[n]!.execute! }
    }
    if (!def) throw new RpcFailure({ code: RPC.notFound, message: `no server tool named ${names.join(' or ')}`, data: { tool: p.tool, action: p.action } })
    const invocationId = `tool_${randomUUID().replace(/-/g, '')}`
    const invoke = async () => {
      const noCtx = new Proxy({} as never, {
        get: () => {
          throw new ParlanceError('execution_error', `tool ${def.name} needs a run context; call it from an agent instead`)
        },
      })
      try {
        const result = await def.execute((p.data ?? {}) as Record<string, unknown>, noCtx)
        await this.audit.record({ action: 'tool-integration', actor: peer.agentId ?? peer.id, target: def.name, details: { invocationId, action: String(p.action), ok: true } })
        return { invocationId, tool: String(p.tool), action: String(p.action), status: 'success', result: result ?? null }
      } catch (err) {
        await this.audit.record({ action: 'tool-integration', actor: peer.agentId ?? peer.id, target: def.name, details: { invocationId, action: String(p.action), ok: false, error: (err as Error).message } })
        throw new RpcFailure({ code: RPC.executionFailed, message: `tool ${def.name} failed: ${(err as Error).message}`, data: { invocationId } })
      }
    }
    if (p.callback === 'event' && peer.push) {
      void invoke().then(
        (r) => peer.push!(hugai.notification('event', { event: 'tool-result', data: r })),
        (e: RpcFailure) => peer.push!(hugai.notification('event', { event: 'tool-error', data: { invocationId, error: e.rpc } })),
      )
      return { invocationId, accepted: true, callback: 'event' }
    }
    return invoke()
  }
}
