import { Role, TaskState, type Artifact, type Message, type Task } from '@a2a-js/sdk'
import type { Json, StoredEvent } from '../../core/index.js'
import { approvalQuestion, clientToolQuestion, dataPart, queuedStatus, stateArtifact, status, textPart, workingUpdate } from './mapping.js'

/**
 * What the store keeps of a task beside the log (its record in scope `a2a.task`, keyed by the task id): which
 * session and which user message it is, written once before the message is sent. Only a refusal (`rejected` or
 * `failed`), which the log never records, is added later. Everything else about the task is folded from the log.
 */
export interface TaskEntry {
  sessionId: string
  agent: string
  owner: string
  /** The id of the task's user message in the session (`message.user`, `message.queued`). */
  messageId: string
  /** The session's last seq before the message was sent: the task's events all come after it. */
  afterSeq: number
  /** The A2A client's id of that message (the first entry of the task's history). */
  clientMessageId: string
  /** ms since epoch */
  createdAt: number
  /** The message was refused (`busy` under the reject policy): the task never ran. */
  rejected?: { text: string; data: Json; at: number }
  /** The message was refused for another reason (the node's run cap, a store that cannot commit): the task failed before it ran. */
  failed?: { text: string; data: Json; at: number }
}

/** How the task's message was refused, if it was (the record says; the log never holds such a message). */
export function refusalOf(entry: TaskEntry): { state: TaskState; text: string; data: Json; at: number } | undefined {
  if (entry.rejected) return { state: TaskState.TASK_STATE_REJECTED, ...entry.rejected }
  if (entry.failed) return { state: TaskState.TASK_STATE_FAILED, ...entry.failed }
  return undefined
}

/** What a task is waiting for from the client while `input-required`. */
export type Waiting = { kind: 'approval'; id: string } | { kind: 'tool'; id: string; name: string }

/** A task as folded from its session's log up to `readTo`. */
export interface TaskView {
  /** The last seq of the session folded in. */
  readTo: number
  /** The task's message is in the log (queued or answered). */
  seen: boolean
  runId: string | null
  state: TaskState
  /** ms since epoch of the last state change */
  at: number
  statusMessage: Message | undefined
  waiting: Waiting | null
  /** Text artifacts in order of appearance: artifact id (the Parlance message id) → its text. */
  texts: Map<string, string>
  /** The run changed the session's shared state (the task then carries the `state` artifact). */
  stateChanged: boolean
  history: Message[]
  /** The ids of `history`'s messages (a status message is added once; a lookup, not a scan, per event). */
  historyIds: Set<string>
  /** The run ended (or the message was withdrawn): nothing after `readTo` changes the task. */
  done: boolean
}

/** The view of a task nothing of which is in the log yet. */
export function emptyView(entry: TaskEntry): TaskView {
  return {
    readTo: entry.afterSeq,
    seen: false,
    runId: null,
    state: TaskState.TASK_STATE_SUBMITTED,
    at: entry.createdAt,
    statusMessage: undefined,
    waiting: null,
    texts: new Map(),
    stateChanged: false,
    history: [],
    historyIds: new Set(),
    done: false,
  }
}

const message = (id: string, taskId: string, contextId: string, role: Role, parts: Message['parts']): Message => ({
  messageId: id,
  contextId,
  taskId,
  role,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
})

/**
 * Folds one event of the task's session into its view (events of other runs and other messages change nothing).
 * The same mapping as the executor's live updates (codec.ts), so a task read back is the task that was streamed.
 */
export function foldEvent(taskId: string, entry: TaskEntry, v: TaskView, e: StoredEvent): void {
  if (e.seq <= v.readTo) return
  v.readTo = e.seq
  if (v.done) return
  if (e.type === 'text.delta') {
    // Most of a run's events: kept out of the general path below.
    if (e.runId === v.runId) v.texts.set(e.messageId, (v.texts.get(e.messageId) ?? '') + e.delta)
    return
  }
  const ctx = entry.sessionId
  const set = (state: TaskState, msg?: Message) => {
    v.state = state
    v.at = e.ts
    v.statusMessage = msg
    if (msg && !v.historyIds.has(msg.messageId)) {
      v.historyIds.add(msg.messageId)
      v.history.push(msg)
    }
  }
  const user = (content: string) => {
    if (!v.seen) v.history.unshift(message(entry.clientMessageId, taskId, ctx, Role.ROLE_USER, [textPart(content)]))
    v.seen = true
  }
  if (v.runId === null) {
    if (e.type === 'message.queued' && e.messageId === entry.messageId) {
      user(e.content)
      set(TaskState.TASK_STATE_SUBMITTED, queuedStatus(taskId, ctx).status?.message)
    } else if (e.type === 'message.withdrawn' && e.messageId === entry.messageId) {
      set(
        TaskState.TASK_STATE_CANCELED,
        status(taskId, ctx, TaskState.TASK_STATE_CANCELED, `the queued message was withdrawn: ${e.reason}`).status?.message,
      )
      v.done = true
    } else if (e.type === 'message.user' && e.messageId === entry.messageId) {
      user(e.content)
      v.runId = e.runId
    }
    return
  }
  if (e.runId !== v.runId) return
  const working = workingUpdate(taskId, ctx, e)
  if (working) set(TaskState.TASK_STATE_WORKING, working.status?.message)
  switch (e.type) {
    case 'run.started':
      return set(TaskState.TASK_STATE_WORKING)
    case 'text.start':
      if (!v.texts.has(e.messageId)) v.texts.set(e.messageId, '')
      return
    case 'message.sent':
      v.texts.set(e.messageId, e.message)
      return
    case 'state.snapshot':
    case 'state.delta':
      v.stateChanged = true
      return
    case 'approval.requested': {
      v.waiting = { kind: 'approval', id: e.approvalId }
      const q = approvalQuestion(e)
      return set(
        TaskState.TASK_STATE_INPUT_REQUIRED,
        status(taskId, ctx, TaskState.TASK_STATE_INPUT_REQUIRED, q.text, q.data, e.approvalId).status?.message,
      )
    }
    case 'approval.resolved':
      if (v.waiting?.id !== e.approvalId) return
      v.waiting = null
      v.history.push(
        message(`${taskId}-answer-${e.seq}`, taskId, ctx, Role.ROLE_USER, [
          dataPart({ approved: e.approved, ...(e.feedback ? { feedback: e.feedback } : {}) }),
        ]),
      )
      return set(TaskState.TASK_STATE_WORKING)
    case 'tool.call': {
      if (e.target !== 'client') return
      v.waiting = { kind: 'tool', id: e.toolCallId, name: e.toolName }
      const q = clientToolQuestion(e)
      return set(
        TaskState.TASK_STATE_INPUT_REQUIRED,
        status(taskId, ctx, TaskState.TASK_STATE_INPUT_REQUIRED, q.text, q.data, e.toolCallId).status?.message,
      )
    }
    case 'tool.result':
    case 'tool.error':
    case 'tool.cancel':
      if (v.waiting?.id !== e.toolCallId) return
      v.waiting = null
      if (e.type !== 'tool.cancel')
        v.history.push(
          message(`${taskId}-answer-${e.seq}`, taskId, ctx, Role.ROLE_USER, [
            dataPart(e.type === 'tool.result' ? { result: e.result } : { error: e.error }),
          ]),
        )
      return
    case 'run.finished':
      v.done = true
      return set(TaskState.TASK_STATE_COMPLETED)
    case 'run.error': {
      v.done = true
      v.waiting = null
      const state = e.code === 'cancelled' ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED
      return set(state, status(taskId, ctx, state, `${e.code}: ${e.message}`).status?.message)
    }
  }
}

/** The A2A task of a view (a fresh object the caller may change); `state`: the session's shared state now. */
export function taskOf(taskId: string, entry: TaskEntry, v: TaskView, state: Json | undefined): Task {
  const ctx = entry.sessionId
  const artifacts: Artifact[] = []
  for (const [id, text] of v.texts)
    artifacts.push({ artifactId: id, name: 'response', description: '', parts: [textPart(text)], metadata: undefined, extensions: [] })
  if (v.stateChanged && state !== undefined) artifacts.push(stateArtifact(taskId, ctx, state).artifact!)
  let statusMessage = v.statusMessage
  let state_ = v.state
  let at = v.at
  const refused = v.seen ? undefined : refusalOf(entry)
  if (refused) {
    state_ = refused.state
    at = refused.at
    statusMessage = status(taskId, ctx, refused.state, refused.text, refused.data).status?.message
  }
  return {
    id: taskId,
    contextId: ctx,
    status: { state: state_, message: statusMessage && structuredClone(statusMessage), timestamp: new Date(at).toISOString() },
    artifacts,
    history: structuredClone(v.history),
    metadata: { parlance: { sessionId: ctx, runId: v.runId, agent: entry.agent } },
  }
}
