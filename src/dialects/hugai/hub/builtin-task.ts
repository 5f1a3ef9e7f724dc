import { ParlanceError, stringOf, type Json, type StoredEvent } from '../../../core/index.js'
import { RAW_EVENTS, type Session, type SessionManager } from '../../../session/index.js'
import type { TaskRef } from './governance.js'
import type { Params } from './peer.js'

/** What a built-in task run reports while it runs. */
export interface TaskHooks {
  /** `task-progress` data (progress %, status). */
  progress(data: Record<string, unknown>): void
  /** Every event of the run, for governance (approvals) and client tools. */
  event(session: Session, e: StoredEvent): void
  /** The session is open and the run about to start (for cancel). */
  started(session: Session): void
}

/** The answer to an `agent/request` run by a built-in agent. */
export interface BuiltinResult {
  taskId: string
  agent: string
  status: 'completed'
  output: string
  toolResults: Array<{ tool: string; result: Json }>
  state: Json
}

/**
 * Runs a task through the normal agent API: a session of its own (`task.taskId`, owned by the requester's
 * principal), the task (plus `context` as JSON) as the user message; resolves on `run.finished` with the final
 * text and tool results, rejects with the run's error on `run.error`.
 */
export async function runBuiltinTask(sessions: SessionManager, task: TaskRef, agent: string, p: Params, hooks: TaskHooks): Promise<BuiltinResult> {
  const session = await sessions.open(task.taskId, task.requester.principal, { agent })
  const name = String(p.task)
  const content = p.context ? `${name}\n\ncontext: ${JSON.stringify(p.context)}` : name
  return new Promise((resolve, reject) => {
    let text = ''
    const toolResults: BuiltinResult['toolResults'] = []
    const sub = session.subscribe(
      {
        codecKey: `hugai:${task.taskId}`,
        encoder: RAW_EVENTS,
        view: null,
        write: (events) => {
          for (const e of events as StoredEvent[]) {
            hooks.event(session, e)
            if (e.type === 'text.delta') text += e.delta
            else if (e.type === 'message.sent') text += `${e.message}\n`
            else if (e.type === 'text.end') text += '\n'
            else if (e.type === 'tool.result') toolResults.push({ tool: e.toolName, result: e.result })
            else if (e.type === 'progress') hooks.progress({ progress: e.percent, message: e.message ?? null })
            else if (e.type === 'status') hooks.progress({ status: e.status, message: e.message ?? null })
            else if (e.type === 'run.finished') {
              sub.close()
              hooks.progress({ progress: 100, status: 'completed' })
              resolve({ taskId: task.taskId, agent, status: 'completed', output: text.trim(), toolResults, state: session.model.state })
            } else if (e.type === 'run.error') {
              sub.close()
              reject(new ParlanceError(e.code, e.message, { taskId: task.taskId, ...(e.details ?? {}) }))
            }
          }
          return true
        },
      },
      session.lastSeq,
    )
    const fail = (err: unknown) => {
      sub.close()
      reject(err instanceof Error ? err : new Error(String(err)))
    }
    try {
      hooks.started(session)
      const metadata = { sourceAgent: stringOf(p.sourceAgent), priority: stringOf(p.priority, 'medium'), context: (p.context ?? {}) as Json, taskId: task.taskId }
      session.handle({ type: 'user.message', sessionId: session.id, content, agent, metadata })?.catch(fail)
    } catch (err) {
      fail(err)
    }
  })
}
