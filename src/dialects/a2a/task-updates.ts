import { TaskState } from '@a2a-js/sdk'
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server'
import type { Json, StoredEvent } from '../../core/index.js'
import { RAW_EVENTS, type Session } from '../../session/index.js'
import { approvalQuestion, clientToolQuestion, queuedStatus, stateArtifact, status, textChunk, workingUpdate } from './mapping.js'
import type { TaskEntry, Waiting } from './task-fold.js'

/**
 * A task's run events as A2A updates, in order: the one mapping of the executor's stream (SendStreamingMessage)
 * and of SubscribeToTask, so both say the same. One per stream: it remembers the text artifact being streamed.
 */
export class RunUpdates {
  /** The text artifact being streamed (the run's message id) and whether its next chunk appends. */
  private artifact: string | null = null
  private append = false

  constructor(
    private readonly taskId: string,
    private readonly contextId: string,
    private readonly emit: (update: AgentExecutionEvent) => void,
    /** The session's shared state now (the `state` artifact is the whole state). */
    private readonly state: () => Json,
    /** Artifacts the client already has (a resubscriber's snapshot): their next chunk appends. */
    private readonly known: ReadonlySet<string> = new Set(),
  ) {}

  /** Emits the updates of `e`, an event of the task's run: what the task now waits for, `'end'` once the run ended, else null. */
  event(e: StoredEvent): Waiting | 'end' | null {
    const { taskId, contextId, emit } = this
    const working = workingUpdate(taskId, contextId, e)
    if (working) emit(AgentEvent.statusUpdate(working))
    switch (e.type) {
      case 'run.started':
        emit(AgentEvent.statusUpdate(status(taskId, contextId, TaskState.TASK_STATE_WORKING)))
        return null
      case 'text.start':
        this.open(e.messageId)
        return null
      case 'text.delta':
        if (this.artifact === null) this.open(e.messageId)
        emit(AgentEvent.artifactUpdate(textChunk(taskId, contextId, this.artifact!, e.delta, this.append, false)))
        this.append = true
        return null
      case 'text.end':
        if (this.artifact !== null) emit(AgentEvent.artifactUpdate(textChunk(taskId, contextId, this.artifact, '', true, true)))
        this.artifact = null
        return null
      case 'message.sent':
        emit(AgentEvent.artifactUpdate(textChunk(taskId, contextId, e.messageId, e.message, false, true)))
        return null
      case 'state.snapshot':
      case 'state.delta':
        emit(AgentEvent.artifactUpdate(stateArtifact(taskId, contextId, this.state())))
        return null
      case 'approval.requested': {
        const q = approvalQuestion(e)
        emit(AgentEvent.statusUpdate(status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, q.text, q.data, e.approvalId)))
        return { kind: 'approval', id: e.approvalId }
      }
      case 'tool.call': {
        if (e.target !== 'client') return null
        // A tool the client runs: the task waits for its result, the task's next message.
        const q = clientToolQuestion(e)
        emit(AgentEvent.statusUpdate(status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, q.text, q.data, e.toolCallId)))
        return { kind: 'tool', id: e.toolCallId, name: e.toolName }
      }
      case 'run.finished':
        emit(AgentEvent.statusUpdate(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED)))
        return 'end'
      case 'run.error': {
        const state = e.code === 'cancelled' ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED
        emit(AgentEvent.statusUpdate(status(taskId, contextId, state, `${e.code}: ${e.message}`)))
        return 'end'
      }
      default:
        return null
    }
  }

  private open(id: string): void {
    this.artifact = id
    this.append = this.known.has(id)
  }
}

/** Where a follower of a task starts: what the caller has seen of it (a task store's snapshot). */
export interface TaskPosition {
  /** The session's last seq already seen: the follower starts after it. */
  readTo: number
  /** The task's run, once its message was answered. */
  runId: string | null
  /** The task's message is in the log (queued or answered). */
  seen: boolean
  /** The response artifacts already seen (their next chunks append). */
  artifacts: ReadonlySet<string>
}

/** A task followed in its session's log (`followTask`). */
export interface TaskFollower {
  /** The task's message has been seen in the log (before, or by this follower). */
  seen(): boolean
  /** The session stopped delivering (closed here, or its subscription failed). */
  closed(): boolean
  close(): void
}

/**
 * Follows task `entry` in its session's log from `at` to the task's end, as A2A updates on `emit`: its message
 * queued, withdrawn or answered, then its run's events (`RunUpdates`); `ended` once the run ended or the message
 * was withdrawn. The session's subscription delivers committed events on every node of a cluster (a replica
 * follows its writer's log), so this works wherever the run is: SubscribeToTask and CancelTask on any node.
 */
export function followTask(
  session: Session,
  taskId: string,
  entry: TaskEntry,
  at: TaskPosition,
  emit: (update: AgentExecutionEvent) => void,
  ended: () => void,
): TaskFollower {
  const ctx = entry.sessionId
  const updates = new RunUpdates(taskId, ctx, emit, () => session.model.state, at.artifacts)
  let runId = at.runId
  let seen = at.seen
  let done = false
  const finish = () => {
    done = true
    sub.close()
    ended()
  }
  const sub = session.subscribe(
    {
      codecKey: 'a2a:subscribe',
      encoder: RAW_EVENTS,
      view: null,
      write(frames) {
        for (const e of frames as StoredEvent[]) {
          if (done) return false
          if (e.seq <= at.readTo) continue
          if (runId !== null) {
            if (e.runId === runId && updates.event(e) === 'end') finish()
          } else if (e.type === 'message.queued' && e.messageId === entry.messageId) {
            seen = true
            emit(AgentEvent.statusUpdate(queuedStatus(taskId, ctx)))
          } else if (e.type === 'message.withdrawn' && e.messageId === entry.messageId) {
            emit(AgentEvent.statusUpdate(status(taskId, ctx, TaskState.TASK_STATE_CANCELED, `the queued message was withdrawn: ${e.reason}`)))
            finish()
          } else if (e.type === 'message.user' && e.messageId === entry.messageId) {
            seen = true
            runId = e.runId
          }
        }
        return !done
      },
    },
    at.readTo,
  )
  return {
    seen: () => seen,
    closed: () => sub.closed,
    close() {
      done = true
      sub.close()
    },
  }
}
