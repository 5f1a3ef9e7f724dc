import { randomUUID } from 'node:crypto'
import { ParlanceError, type Json, type StoredEvent } from '../../../core/index.js'
import { hugai } from '../codec.js'
import { RPC } from '../errors.js'
import type { Session, SessionManager } from '../../../session/index.js'
import type { Audit } from './audit.js'
import { runBuiltinTask, type Turn } from './builtin-task.js'
import type { Governance, TaskRef } from './governance.js'
import type { HubLink } from './link.js'
import type { Outbound } from './outbound.js'
import { RpcFailure, type Params, type Peer } from './peer.js'
import { TaskQueue, type Priority } from './queue.js'
import type { Registry, Target } from './registry.js'

/** Tasks one target runs at once; more wait in its priority queue. A remote agent gets one at a time. */
export const CONCURRENCY = { builtin: 4, remote: 1 } as const

interface Task extends TaskRef {
  target: string
  abort: AbortController
  session?: Session
  /** The task continues a session others may share (`sessionId`): only its own run is cancelled. */
  shared: boolean
  /** The run answering the task, once it started. */
  runId?: string
  /** The id of the hub's request to a remote target, while it waits. */
  outboundId?: string
  remotePeer?: Peer
}

/** Deps of the router. */
export interface RouterDeps {
  sessions: SessionManager
  registry: Registry
  outbound: Outbound
  governance: Governance
  audit: Audit
  /** How long a remote agent and a client tool may take to answer (ms). */
  timeoutMs: number
  /** The other nodes (cluster): each task's node is recorded, so a cancel from any node finds it. */
  link: HubLink | null
}

/**
 * `agent/request`: routes a task from `sourceAgent` to `targetAgent` through that target's priority queue.
 * A built-in target runs it as a session of its own; a remote one gets it as a JSON-RPC request on its
 * connection, and its response is relayed back.
 */
export class Router {
  private readonly queues = new Map<string, TaskQueue>()
  private readonly tasks = new Map<string, Task>()

  constructor(private readonly d: RouterDeps) {}

  request(peer: Peer, p: Params): Promise<unknown> {
    return this.route(peer, p, String(p.targetAgent), { kind: 'message' })
  }

  /**
   * `task/regenerate` (extension): a new task answering the last user turn (or `messageId`) of session
   * `sessionId` again, run by `targetAgent` or the session's own agent; only a built-in agent has sessions.
   */
  async regenerate(peer: Peer, p: Params): Promise<unknown> {
    const targetId =
      typeof p.targetAgent === 'string'
        ? p.targetAgent
        : (await this.d.sessions.open(String(p.sessionId), peer.principal, { create: false })).agentName
    const source = typeof p.sourceAgent === 'string' ? p.sourceAgent : (peer.agentId ?? peer.id)
    if (this.d.registry.find(targetId)?.kind === 'remote') {
      throw new RpcFailure({
        code: RPC.invalidParams,
        message: `Invalid params: params.targetAgent ${targetId} is a registered agent; only a built-in agent's session can be answered again`,
        data: { field: 'params.targetAgent' },
      })
    }
    return this.route(peer, { ...p, sourceAgent: source, task: 'regenerate' }, targetId, {
      kind: 'regenerate',
      ...(typeof p.messageId === 'string' ? { messageId: p.messageId } : {}),
    })
  }

  private async route(peer: Peer, p: Params, targetId: string, turn: Turn): Promise<unknown> {
    const target = this.d.registry.find(targetId)
    if (!target) throw new ParlanceError('not_found', `agent not found: ${targetId}`, { agentId: targetId })
    const priority = (p.priority as Priority | undefined) ?? 'medium'
    const task: Task = {
      taskId: `task_${randomUUID().replace(/-/g, '')}`,
      requester: peer,
      level: peer.governanceLevel,
      target: targetId,
      abort: new AbortController(),
      shared: typeof p.sessionId === 'string',
    }
    const source = String(p.sourceAgent)
    const details = {
      taskId: task.taskId,
      task: String(p.task),
      priority,
      kind: target.kind,
      ...(typeof p.sessionId === 'string' ? { sessionId: p.sessionId } : {}),
    }
    await this.d.audit.record({ action: 'agent-request', actor: source, target: targetId, details })
    this.tasks.set(task.taskId, task)
    await this.d.link?.placeTask(task.taskId)
    peer.push?.(hugai.event('task-progress', { taskId: task.taskId, task: String(p.task), status: 'queued', priority }))
    try {
      const out = await this.queue(target).run(priority, () => this.start(task, target, p, turn), task.abort.signal)
      await this.d.audit.record({ action: 'agent-response', actor: targetId, target: source, details: { taskId: task.taskId, ok: true } })
      return out
    } catch (err) {
      await this.d.audit.record({
        action: 'agent-response',
        actor: targetId,
        target: source,
        details: { taskId: task.taskId, ok: false, error: (err as Error).message },
      })
      throw err
    } finally {
      this.tasks.delete(task.taskId)
      this.d.link?.forgetTask(task.taskId)
    }
  }

  /** Whether task `taskId` runs (or waits) on this node. */
  has(taskId: string): boolean {
    return this.tasks.has(taskId)
  }

  /** `task/cancel` (extension): the requester's principal cancels a queued or running task. */
  async cancel(peer: Peer, p: Params): Promise<unknown> {
    const taskId = String(p.taskId)
    const task = this.tasks.get(taskId)
    if (!task) throw new ParlanceError('not_found', `no running task ${taskId}`, { taskId })
    if (task.requester.principal !== peer.principal) throw new ParlanceError('forbidden', 'this task belongs to someone else', { taskId })
    const reason = typeof p.reason === 'string' ? p.reason : 'cancelled by the requester'
    await this.d.audit.record({ action: 'task-cancel', actor: peer.agentId ?? peer.id, target: task.target, details: { taskId, reason } })
    this.stop(task, reason)
    return { taskId, cancelled: true }
  }

  /** An `event` notification from a remote agent about a task (`data.taskId`) is relayed to its requester. */
  relayEvent(from: Peer, p: Params): unknown {
    const data = (p.data ?? {}) as Record<string, unknown>
    const task = typeof data.taskId === 'string' ? this.tasks.get(data.taskId) : undefined
    if (!task || task.remotePeer !== from) return { relayed: false }
    task.requester.push?.(hugai.event(String(p.event), data))
    return { relayed: true }
  }

  /** A connection left: the tasks it requested are cancelled (its remote targets' requests fail via Outbound). */
  disconnected(peer: Peer): void {
    for (const task of this.tasks.values()) if (task.requester === peer) this.stop(task, 'the requester disconnected')
  }

  private stop(task: Task, reason: string): void {
    task.abort.abort(reason)
    // In a shared session only the task's own run, while it is the active one: never another task's (or, while the
    // task is queued there, the run it waits for). The task's request fails cancelled at once either way.
    const own = !task.shared || (task.runId !== undefined && task.session?.activeRunId === task.runId)
    if (task.session && own) {
      // A run that already ended has nothing to cancel (the command is refused).
      void Promise.resolve()
        .then(() => task.session?.handle({ type: 'run.cancel', sessionId: task.session.id, reason }))
        .catch(() => {})
    }
    if (task.outboundId) {
      task.remotePeer?.push?.(hugai.notification('task/cancel', { taskId: task.taskId, reason }))
      this.d.outbound.fail(task.outboundId, {
        code: RPC.cancelled,
        message: `task cancelled: ${reason}`,
        data: { code: 'cancelled', taskId: task.taskId },
      })
    }
  }

  private queue(target: Target): TaskQueue {
    let q = this.queues.get(target.agentId)
    if (!q) this.queues.set(target.agentId, (q = new TaskQueue(CONCURRENCY[target.kind])))
    return q
  }

  private start(task: Task, target: Target, p: Params, turn: Turn): Promise<unknown> {
    if (target.kind === 'remote') return this.runRemote(task, target.peer, p)
    const progress = (data: Record<string, unknown>) =>
      task.requester.push?.(hugai.event('task-progress', { taskId: task.taskId, task: String(p.task), ...data }))
    const hooks = {
      progress,
      started: (session: Session) => (task.session = session),
      event: (session: Session, e: StoredEvent) => this.onEvent(task, session, e),
    }
    return runBuiltinTask(this.d.sessions, task, target.agentId, p, turn, hooks, task.abort.signal)
  }

  private onEvent(task: Task, session: Session, e: StoredEvent): void {
    task.runId = e.runId
    if (e.type === 'history.rewound') {
      // The history the agent sees was cut (a rollback, a regenerate): the superseded turns stay in the log.
      const cut = {
        taskId: task.taskId,
        sessionId: session.id,
        reason: e.reason,
        toMessageId: e.toMessageId,
        ...(e.droppedRunId ? { droppedRunId: e.droppedRunId } : {}),
      }
      task.requester.push?.(hugai.event('history-rewound', cut))
    } else if (e.type === 'approval.requested') void this.d.governance.requested(task, session, e).catch(() => {})
    else if (e.type === 'approval.resolved') void this.d.governance.resolved(e).catch(() => {})
    else if (e.type === 'tool.call' && e.target === 'client') this.clientTool(task, session, e)
  }

  /**
   * A client tool of a built-in agent runs at the requester: the hub sends it `tool/integration`
   * `{tool, action: "call", data: args, taskId, toolCallId}` and feeds the answer back to the run.
   */
  private clientTool(task: Task, session: Session, e: Extract<StoredEvent, { type: 'tool.call' }>): void {
    const params = { tool: e.toolName, action: 'call', data: e.args, taskId: task.taskId, toolCallId: e.toolCallId }
    const answer = (outcome: { result: Json } | { error: string }) => {
      const cmd =
        'result' in outcome ? { outcome: 'success' as const, result: outcome.result } : { outcome: 'failure' as const, error: outcome.error }
      // Refused when the run no longer waits for it (cancelled, timed out).
      void Promise.resolve()
        .then(() => session.handle({ type: 'tool.result', sessionId: session.id, toolCallId: e.toolCallId, toolName: e.toolName, ...cmd }))
        .catch(() => {})
    }
    this.d.outbound.send(task.requester, 'tool/integration', params, this.d.timeoutMs).done.then(
      (result) => answer({ result: (result ?? null) as Json }),
      (err: Error) => answer({ error: err.message }),
    )
  }

  /** A remote agent gets the task as a JSON-RPC request on its own connection; its answer is relayed back. */
  private async runRemote(task: Task, target: Peer, p: Params): Promise<unknown> {
    if (task.abort.signal.aborted) throw new ParlanceError('cancelled', 'task cancelled')
    // A task that waited in the queue of a target which has since left fails at once.
    const still = this.d.registry.find(task.target)
    if (still?.kind !== 'remote' || still.peer !== target) {
      throw new RpcFailure({
        code: RPC.targetDisconnected,
        message: `target agent ${task.target} disconnected before the task started`,
        data: { taskId: task.taskId },
      })
    }
    const sent = this.d.outbound.send(target, 'agent/request', { ...p, taskId: task.taskId }, this.d.timeoutMs)
    task.outboundId = sent.id
    task.remotePeer = target
    try {
      const result = await sent.done
      return { taskId: task.taskId, agent: task.target, status: 'completed', result: result ?? null }
    } finally {
      task.outboundId = undefined
    }
  }
}
