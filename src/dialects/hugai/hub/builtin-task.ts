import { newId, ParlanceError, stringOf, type Json, type OnBusy, type StoredEvent } from '../../../core/index.js'
import { follow, type Follower } from '../../../binding/index.js'
import type { Session, SessionManager } from '../../../session/index.js'
import type { TaskRef } from './governance.js'
import type { Params } from './peer.js'

/** What a built-in task run reports while it runs. */
export interface TaskHooks {
  /** `task-progress` data (progress %, status). */
  progress(data: Record<string, unknown>): void
  /** Every event of the task's run, for governance (approvals), client tools and history cuts. */
  event(session: Session, e: StoredEvent): void
  /** The session is open and the run about to start (for cancel). */
  started(session: Session): void
}

/** The answer to an `agent/request` (or `task/regenerate`) run by a built-in agent. */
export interface BuiltinResult {
  taskId: string
  /** The session the task ran in: pass it as `sessionId` to continue the conversation. */
  sessionId: string
  agent: string
  status: 'completed'
  output: string
  toolResults: Array<{ tool: string; result: Json }>
  state: Json
}

/** What a task asks of its session: a new user turn (`agent/request`), or the last one answered again (`task/regenerate`). */
export type Turn = { kind: 'message' } | { kind: 'regenerate'; messageId?: string }

/**
 * Runs a task through the normal agent API: a turn of session `p.sessionId` when given (owned by the requester's
 * principal), else of a session of its own (`task.taskId`); the task (plus `context` as JSON) is the user message.
 * While another run of that session is active, `p.onBusy` (else the agent's, else the server's policy) decides;
 * a queued task waits for its own run (`task-progress` `queued` with `queue: "session"`). Resolves on its run's
 * `run.finished` with the final text and tool results; rejects with the run's error on `run.error`, with the
 * refusal (`busy` …) when the session refuses the turn, and with `cancelled` when `signal` aborts.
 */
export async function runBuiltinTask(
  sessions: SessionManager,
  task: TaskRef,
  agent: string,
  p: Params,
  turn: Turn,
  hooks: TaskHooks,
  signal: AbortSignal,
): Promise<BuiltinResult> {
  const sessionId = typeof p.sessionId === 'string' ? p.sessionId : task.taskId
  const session = await sessions.open(sessionId, task.requester.principal, { agent, ...(turn.kind === 'regenerate' ? { create: false } : {}) })
  const onBusy = p.onBusy as OnBusy | undefined
  return new Promise((resolve, reject) => {
    let text = ''
    let settled = false
    const toolResults: BuiltinResult['toolResults'] = []
    const settle = (outcome: BuiltinResult | Error) => {
      if (settled) return
      settled = true
      follower?.close()
      signal.removeEventListener('abort', onAbort)
      if (outcome instanceof Error) reject(outcome)
      else resolve(outcome)
    }
    const on = (e: StoredEvent) => {
      if (settled) return
      hooks.event(session, e)
      if (e.type === 'text.delta') text += e.delta
      else if (e.type === 'message.sent') text += `${e.message}\n`
      else if (e.type === 'text.end') text += '\n'
      else if (e.type === 'tool.result') toolResults.push({ tool: e.toolName, result: e.result })
      else if (e.type === 'progress') hooks.progress({ progress: e.percent, message: e.message ?? null })
      else if (e.type === 'status') hooks.progress({ status: e.status, message: e.message ?? null })
      else if (e.type === 'run.finished') {
        hooks.progress({ progress: 100, status: 'completed' })
        settle({
          taskId: task.taskId,
          sessionId: session.id,
          agent,
          status: 'completed',
          output: text.trim(),
          toolResults,
          state: session.model.state,
        })
      } else if (e.type === 'run.error') settle(new ParlanceError(e.code, e.message, { taskId: task.taskId, ...(e.details ?? {}) }))
    }
    // A refusal (busy, an unknown message to regenerate) names the task and its session.
    const failed = (err: Error) =>
      settle(
        err instanceof ParlanceError
          ? new ParlanceError(err.code, err.message, { ...(err.details ?? {}), taskId: task.taskId, sessionId: session.id })
          : err,
      )
    let messageId: string | null = null
    const onAbort = () => {
      // A task whose message still waits in its session's queue: the message is withdrawn, so it never runs.
      if (messageId !== null && follower?.runId() === null) {
        // Async, so a refusal thrown at once (a writer's handle is synchronous) is caught too: it is an abort listener.
        void (async () => session.handle({ type: 'run.cancel', sessionId: session.id, messageId, reason: `task ${task.taskId} cancelled` }))().catch(
          () => {},
        )
      }
      settle(new ParlanceError('cancelled', `task cancelled: ${String(signal.reason ?? 'cancelled')}`, { taskId: task.taskId }))
    }
    let follower: Follower | undefined
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) return onAbort()
    hooks.started(session)
    const handlers = { event: on, failed, queued: () => hooks.progress({ status: 'queued', queue: 'session', sessionId: session.id }) }
    if (turn.kind === 'regenerate') {
      const cmd = {
        type: 'run.regenerate' as const,
        sessionId: session.id,
        agent,
        ...(turn.messageId ? { messageId: turn.messageId } : {}),
        ...(onBusy ? { onBusy } : {}),
      }
      follower = follow(session, cmd, `hugai:${task.taskId}`, handlers)
    } else {
      const name = String(p.task)
      const content = p.context ? `${name}\n\ncontext: ${JSON.stringify(p.context)}` : name
      const metadata = {
        sourceAgent: stringOf(p.sourceAgent),
        priority: stringOf(p.priority, 'medium'),
        context: (p.context ?? {}) as Json,
        taskId: task.taskId,
      }
      messageId = newId('msg')
      const cmd = { type: 'user.message' as const, sessionId: session.id, content, agent, metadata, messageId, ...(onBusy ? { onBusy } : {}) }
      follower = follow(session, cmd, `hugai:${task.taskId}`, handlers)
    }
  })
}
