import {
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
} from '@a2a-js/sdk'
import { A2AError, RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors'
import {
  DefaultRequestHandler,
  type AgentExecutionEvent,
  type ExecutionEventBusManager,
  type PushNotificationSender,
  type PushNotificationStore,
  type ServerCallContext,
} from '@a2a-js/sdk/server'
import { ParlanceError } from '../../core/index.js'
import type { EndpointDeps } from '../../binding/index.js'
import type { SessionManager } from '../../session/index.js'
import type { ParlanceExecutor } from './executor.js'
import type { LogTaskStore } from './task-store.js'
import { followTask, type TaskFollower } from './task-updates.js'

const TERMINAL: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
])

/** How long a CancelTask served from the log waits for the log to show the run's end. */
const CANCEL_WAIT_MS = 10_000
/** How often a SubscribeToTask stream checks on what the log cannot tell it (its task refused before it was logged). */
const CHECK_MS = 1_000

/** Longest stretch (ms) a request reading a task's updates keeps the event loop before it lets other work run. */
const SLICE_MS = 10

/**
 * A yield point for a loop reading a task's updates: resolves at once until `SLICE_MS` of work has passed, then
 * after the event loop has run (I/O, timers, every other client). The SDK's event queue hands over a backlog of
 * updates in microtasks only, so a long answer read without it held the server for the whole answer.
 */
export function fairShare(): () => Promise<void> | undefined {
  let since = performance.now()
  return () => {
    if (performance.now() - since < SLICE_MS) return undefined
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now()
        resolve()
      }),
    )
  }
}

/** What a subscription's wait ends on: the binding aborts it when the client goes away. */
const closedSignals = new WeakMap<ServerCallContext, AbortSignal>()

/** Tells the handler that the request of `context` is over once `signal` aborts (its client disconnected). */
export function closesWith(context: ServerCallContext, signal: AbortSignal): void {
  closedSignals.set(context, signal)
}

/**
 * The SDK's request handler with SubscribeToTask and CancelTask served from the session log, so both work on any
 * node of a cluster. The SDK serves them through its in-process event bus, which only the node running the task's
 * execution has; Parlance's session subscription delivers the same run's events on every node (each follows the
 * writer's log), and a cancel sent to the session reaches its writer wherever that is.
 *
 * - SubscribeToTask: the task as the log shows it, then its updates from that point of the log to the run's end
 *   (the same mapping as the executor's stream, `RunUpdates`). A task in a terminal state cannot be subscribed to,
 *   as in the SDK.
 * - CancelTask: when this node's execution follows the run, the SDK's own path (its stream then ends canceled);
 *   otherwise `run.cancel` of the task's message goes to its session, and the answer is the task once the log
 *   shows its end (canceled, or not cancelable when the run ended otherwise first).
 * - SendMessage: the SDK's streaming path, read to its end (or, with `returnImmediately`, to the task and then on in
 *   the background), answered with the task as that request kept it. The SDK's own blocking path deep-copies the
 *   whole task for every update (for push notifications), which made a long answer cost O(N²) and stop the server.
 */
export class ParlanceRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tasks: LogTaskStore,
    private readonly executor: ParlanceExecutor,
    private readonly buses: ExecutionEventBusManager,
    pushes: PushNotificationStore,
    sender: PushNotificationSender,
    private readonly sessions: SessionManager,
    private readonly log: EndpointDeps['log'],
  ) {
    super(card, tasks, executor, buses, pushes, sender)
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const config = params.configuration
    const stream = this.sendMessageStream(params, context)
    let taskId: string | undefined
    const turn = fairShare()
    // A failure before the first result throws out of the stream, as out of the SDK's blocking path: a JSON-RPC error.
    for (let next = await stream.next(); !next.done; next = await stream.next()) {
      await turn()
      const p = next.value.payload
      if (p?.$case === 'message') return this.drained(stream, p.value)
      if (p?.$case === 'task') taskId ??= p.value.id
      // Answered early, the rest read in the background: a non-blocking send once the task exists (the SDK's rule),
      // a blocking one when the task waits for credentials (the SDK's AUTH_REQUIRED snapshot).
      const early =
        config?.returnImmediately === true
          ? p?.$case === 'task'
          : p?.$case === 'statusUpdate' && p.value.status?.state === TaskState.TASK_STATE_AUTH_REQUIRED
      if (early && taskId !== undefined) {
        const now = await this.tasks.load(taskId, context)
        if (now) return this.drained(stream, withHistoryLength(now, config?.historyLength))
      }
    }
    const task = taskId === undefined ? undefined : await this.tasks.load(taskId, context)
    if (!task) throw new A2AError('Agent execution finished without a result, and no task context found.')
    return withHistoryLength(task, config?.historyLength)
  }

  /** `result`, once the rest of `stream` is read in the background (the run goes on; its updates reach the task and webhooks). */
  private drained<T>(stream: AsyncGenerator<StreamResponse, void, undefined>, result: T): T {
    void (async () => {
      const turn = fairShare()
      for await (const _ of stream) await turn()
    })().catch((err: unknown) => this.log.error({ err }, "A2A: reading a task's updates in the background failed"))
    return result
  }

  override async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const taskId = params.id
    if (!taskId?.trim()) throw new RequestMalformedError('Task ID is required')
    const found = await this.tasks.snapshot(taskId, context)
    if (!found) throw new TaskNotFoundError(`Task not found: ${taskId}`)
    // A task only this node's SDK knows (its record not written yet): only this node's event bus can tell more.
    if (!found.entry) return yield* super.resubscribe(params, context)
    const { task, entry, at } = found
    const state = task.status?.state
    if (state !== undefined && TERMINAL.has(state))
      throw new UnsupportedOperationError(`Task ${taskId} is in a terminal state (${state}) and cannot be subscribed to.`)
    yield { payload: { $case: 'task', value: task } }

    const session = await this.sessions.open(entry.sessionId, entry.owner)
    const queue: StreamResponse[] = []
    let ended = false
    let wake: (() => void) | null = null
    const signal = closedSignals.get(context)
    const rouse = () => wake?.()
    signal?.addEventListener('abort', rouse)
    const follower: TaskFollower = followTask(
      session,
      taskId,
      entry,
      at,
      (u) => {
        queue.push(responseOf(u))
        rouse()
      },
      () => {
        ended = true
        rouse()
      },
    )
    try {
      for (;;) {
        while (queue.length > 0) yield queue.shift()!
        if (ended || signal?.aborted || follower.closed()) return
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, CHECK_MS)
          wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        wake = null
        if (!follower.seen() && queue.length === 0 && !ended) {
          // Not in the log yet: a refused message (busy, the run cap) is recorded beside the log, never in it.
          const now = await this.tasks.load(taskId, context)
          const s = now?.status
          if (s && TERMINAL.has(s.state)) {
            yield { payload: { $case: 'statusUpdate', value: { taskId, contextId: entry.sessionId, status: s, metadata: undefined } } }
            return
          }
        }
      }
    } finally {
      signal?.removeEventListener('abort', rouse)
      follower.close()
    }
  }

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const taskId = params.id
    if (!taskId?.trim()) throw new RequestMalformedError('Task ID is required')
    // This node's execution follows the run: the SDK's path, which ends that execution's stream too.
    if (this.executor.follows(taskId)) return super.cancelTask(params, context)
    const found = await this.tasks.snapshot(taskId, context)
    if (!found) throw new TaskNotFoundError(`Task not found: ${taskId}`)
    if (!found.entry) return super.cancelTask(params, context)
    const { task, entry, at } = found
    const state = task.status?.state
    if (state === TaskState.TASK_STATE_CANCELED) return task
    if (state !== undefined && TERMINAL.has(state)) throw new TaskNotCancelableError(`Task not cancelable: ${taskId}`)
    const session = await this.sessions.open(entry.sessionId, entry.owner)
    // Followed from the snapshot's point of the log before the cancel is sent, so its end is seen however soon it comes.
    let follower: TaskFollower | undefined
    const ended = new Promise<void>((resolve) => (follower = followTask(session, taskId, entry, at, () => {}, resolve)))
    let timer: NodeJS.Timeout | undefined
    try {
      // By the task's message: its run (also one waiting for input), or the message itself while it is queued.
      await session.handle({ type: 'run.cancel', sessionId: session.id, messageId: entry.messageId, reason: 'cancelled by the A2A client' })
      await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, CANCEL_WAIT_MS)))])
    } catch (err) {
      // Neither queued nor answered: the run ended first (the task below says how), or the message is not in the log yet.
      if (!(err instanceof ParlanceError && err.code === 'not_found')) throw err
    } finally {
      clearTimeout(timer)
      follower?.close()
    }
    // An execution of this node that stopped at input-required left the SDK's event bus open for the task: done now.
    this.executor.forget(taskId)
    const bus = this.buses.getByTaskId(taskId, context)
    if (bus) {
      bus.finished()
      this.buses.cleanupByTaskId(taskId, context)
    }
    const latest = await this.tasks.load(taskId, context)
    if (latest?.status?.state !== TaskState.TASK_STATE_CANCELED) throw new TaskNotCancelableError(`Task not cancelable: ${taskId}`)
    return latest
  }
}

/** A2A's `historyLength`: absent, the whole history; 0 or less, none; else the last N messages. */
function withHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength !== undefined) task.history = historyLength <= 0 ? [] : task.history.slice(-historyLength)
  return task
}

function responseOf(u: AgentExecutionEvent): StreamResponse {
  switch (u.kind) {
    case 'statusUpdate':
      return { payload: { $case: 'statusUpdate', value: u.data } }
    case 'artifactUpdate':
      return { payload: { $case: 'artifactUpdate', value: u.data } }
    case 'task':
      return { payload: { $case: 'task', value: u.data } }
    case 'message':
      return { payload: { $case: 'message', value: u.data } }
  }
}
