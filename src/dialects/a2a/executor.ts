import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server'
import { TaskState } from '@a2a-js/sdk'
import { TaskNotCancelableError } from '@a2a-js/sdk/errors'
import { newId, ParlanceError, type Command, type Json, type Principal, type StoredEvent } from '../../core/index.js'
import { follow } from '../../binding/index.js'
import type { Session, SessionManager } from '../../session/index.js'
import { approvalAnswerOf, newTask, onBusyOfMessage, queuedStatus, status, textOf, toolAnswerOf } from './mapping.js'
import type { LogTaskStore } from './task-store.js'
import { RunUpdates } from './task-updates.js'

/** A task (= a Parlance run) as this node knows it: its session, its run, and what it waits for. */
interface Running {
  session: Session
  runId: string | null
  /** The id of the task's user message (a queued one is withdrawn by it). */
  messageId: string | null
  /** What the run waits for from the client (the task is `input-required`): an approval, or a client tool's result. */
  waiting: { kind: 'approval'; id: string } | { kind: 'tool'; id: string; name: string } | null
  /** The execution following the run now, if any (none while the task waits for input). */
  following: boolean
}

/**
 * Runs A2A tasks as Parlance runs: a task's `contextId` is the session id, its first message the run's user
 * turn; the run's events become status and artifact updates on the SDK's event bus (see docs/dialects/a2a.md).
 * A run waiting for an approval puts its task in `input-required`; the next message of that task answers it
 * and the same task (the same run) goes on. A message into a context whose task is still working follows its
 * `metadata.onBusy` (else the agent's, else the server's policy): a queued one's task stays `submitted` until
 * its run starts; a refused one (`busy`) is a `rejected` task; `interrupt` and `rollback` end the working task.
 * A message refused for another reason (the run cap) is a `failed` task, recorded as such for every node.
 */
export class ParlanceExecutor implements AgentExecutor {
  private readonly tasks = new Map<string, Running>()

  constructor(
    private readonly sessions: SessionManager,
    private readonly agent: string,
    private readonly principalOf: (rc: RequestContext) => Principal,
    /** Where tasks are recorded and read back from (the log). */
    private readonly store: LogTaskStore,
  ) {}

  execute = async (rc: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = rc
    this.store.attach(taskId, rc.context)
    const known = this.tasks.get(taskId) ?? (rc.task ? await this.fromLog(taskId) : undefined)
    if (rc.task && known?.waiting) return this.answer(rc, known, bus)
    if (rc.task)
      throw new ParlanceError('conflict', `task ${taskId} is ${known ? 'running' : 'over'}: send a new message without taskId to start another`, {
        taskId,
      })
    // Checked before the session is opened, so a message that cannot run creates none (the binding refuses it first).
    const text = textOf(rc.userMessage)
    if (!text.trim()) throw new ParlanceError('invalid_message', 'the message has no text part', { field: 'message.parts' })
    const session = await this.sessions.open(contextId, this.principalOf(rc), { agent: this.agent })
    const asked = onBusyOfMessage(rc.userMessage.metadata) // checked by the binding; a direct caller gets the default
    const messageId = newId('msg')
    const running: Running = { session, runId: null, messageId, waiting: null, following: true }
    // The task's record goes first: from now on any node finds the task's session, and the log tells the rest.
    await this.store.created(taskId, {
      sessionId: session.id,
      agent: this.agent,
      owner: session.owner,
      messageId,
      afterSeq: session.lastSeq,
      clientMessageId: rc.userMessage.messageId,
      createdAt: Date.now(),
    })
    this.tasks.set(taskId, running)
    bus.publish(AgentEvent.task(newTask(taskId, contextId, rc.userMessage, { sessionId: session.id, runId: null, agent: this.agent })))
    const cmd: Command = {
      type: 'user.message',
      sessionId: session.id,
      content: text,
      agent: this.agent,
      messageId,
      ...(asked.ok && asked.onBusy ? { onBusy: asked.onBusy } : {}),
    }
    await this.follow(running, taskId, contextId, bus, cmd)
  }

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const running = this.tasks.get(taskId)
    if (!running) throw new ParlanceError('not_found', `task ${taskId} is not running`, { taskId })
    // A task queued behind its context's working task has no run yet: its message is withdrawn from the queue (the
    // execution following it then reports the task canceled). The moment its run starts, the run is cancelled.
    const cancel = running.runId === null && running.messageId !== null ? { messageId: running.messageId } : {}
    const done = await Promise.resolve(
      running.session.handle({ type: 'run.cancel', sessionId: running.session.id, reason: 'cancelled by the A2A client', ...cancel }),
    ).then(
      () => true,
      () => false,
    )
    if (!done && running.runId === null)
      throw new TaskNotCancelableError(`task ${taskId} could not be cancelled: its message is neither queued nor being answered`)
    if (running.following) return // the execution following the run reports its end (canceled)
    this.tasks.delete(taskId)
    bus.publish(AgentEvent.statusUpdate(status(taskId, running.session.id, TaskState.TASK_STATE_CANCELED, 'cancelled by the A2A client')))
    bus.finished()
  }

  /** An execution on this node follows the task's run now (its CancelTask is this node's, through the SDK's event bus). */
  follows(taskId: string): boolean {
    return this.tasks.get(taskId)?.following === true
  }

  /** The task ended without this node's execution seeing it (cancelled through another node while it waited for input). */
  forget(taskId: string): void {
    if (!this.follows(taskId)) this.tasks.delete(taskId)
  }

  /**
   * A task this node did not start (another node did, or this process before a restart) that waits for input,
   * as the log shows it: the answer goes to its session, which forwards it to the session's writer.
   */
  private async fromLog(taskId: string): Promise<Running | undefined> {
    const found = await this.store.waiting(taskId)
    if (!found) return undefined
    const session = await this.sessions.open(found.entry.sessionId, found.entry.owner)
    return { session, runId: found.runId, messageId: found.entry.messageId, waiting: found.waiting, following: false }
  }

  /** The next message of an `input-required` task: the answer to its approval or client tool; the run goes on. */
  private async answer(rc: RequestContext, running: Running, bus: ExecutionEventBus): Promise<void> {
    if (this.principalOf(rc) !== running.session.owner)
      throw new ParlanceError('forbidden', 'this task belongs to someone else', { taskId: rc.taskId })
    const waiting = running.waiting!
    const sessionId = running.session.id
    let cmd: Command
    if (waiting.kind === 'approval') {
      const { approved, feedback } = approvalAnswerOf(rc.userMessage)
      cmd = { type: 'approval.response', sessionId, approvalId: waiting.id, approved, ...(feedback ? { feedback } : {}) }
    } else {
      const outcome = toolAnswerOf(rc.userMessage)
      cmd = {
        type: 'tool.result',
        sessionId,
        toolCallId: waiting.id,
        toolName: waiting.name,
        ...('error' in outcome ? { outcome: 'failure', error: outcome.error } : { outcome: 'success', result: outcome.result }),
      }
    }
    running.waiting = null
    running.following = true
    this.tasks.set(rc.taskId, running) // a task found in the log is this node's to cancel while it follows it
    bus.publish(AgentEvent.task(rc.task!))
    await this.follow(running, rc.taskId, rc.contextId, bus, cmd)
  }

  /**
   * Carries out `cmd` and relays the run's events until it ends or waits for input: a user message's own run
   * (found by its id, also when queued), else the run `cmd` continues.
   */
  private follow(running: Running, taskId: string, contextId: string, bus: ExecutionEventBus, cmd: Command): Promise<void> {
    const { session } = running
    return new Promise<void>((resolve, reject) => {
      let done = false
      const end = (final: boolean, err?: Error) => {
        if (done) return
        done = true
        follower.close()
        running.following = false
        if (final) this.tasks.delete(taskId)
        if (err) reject(err)
        else resolve()
      }
      const updates = new RunUpdates(
        taskId,
        contextId,
        (u) => bus.publish(u),
        () => session.model.state,
      )
      const on = (e: StoredEvent) => {
        if (done) return
        running.runId = e.runId
        const step = updates.event(e)
        if (step === null) return
        if (step === 'end') return end(true)
        running.waiting = step
        end(false)
      }
      const failed = (err: Error) => {
        if (err instanceof ParlanceError && err.code === 'cancelled') {
          // A queued message withdrawn by tasks/cancel: the task never ran.
          bus.publish(AgentEvent.statusUpdate(status(taskId, contextId, TaskState.TASK_STATE_CANCELED, err.message)))
          return end(true)
        }
        if (cmd.type !== 'user.message') return end(true, err) // a refused answer: the log shows the run as it is
        // Refused before it ran, so the log never holds the message: the refusal is recorded with the task's record
        // first (every node reads it there). Under the reject policy (busy) the agent decides not to perform this
        // task and the working one goes on (`rejected`); any other refusal (this node's run cap, a store that
        // cannot commit) fails it.
        const e = err instanceof ParlanceError ? err : new ParlanceError('internal', err.message)
        const kind = e.code === 'busy' ? 'rejected' : 'failed'
        const text = `${e.code}: ${e.message}`
        const data: Json = { code: e.code, ...((e.details ?? {}) as Record<string, Json>) }
        void this.store
          .refused(taskId, kind, text, data)
          .catch(() => {})
          .finally(() => {
            bus.publish(
              AgentEvent.statusUpdate(
                status(taskId, contextId, kind === 'rejected' ? TaskState.TASK_STATE_REJECTED : TaskState.TASK_STATE_FAILED, text, data),
              ),
            )
            end(true)
          })
      }
      const queued = () => bus.publish(AgentEvent.statusUpdate(queuedStatus(taskId, contextId)))
      const follower = follow(session, cmd, 'a2a', { event: on, failed, queued }, running.runId)
    })
  }
}
