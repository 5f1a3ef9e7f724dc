import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from '@a2a-js/sdk'
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server'
import { catchUpState, type Json, type StoredEvent } from '../../core/index.js'
import { stateArtifact } from './mapping.js'
import { emptyView, foldEvent, refusalOf, taskOf, type TaskEntry, type TaskView, type Waiting } from './task-fold.js'
import { copyTask, keptTask } from './running-task.js'
import type { TaskPosition } from './task-updates.js'

/** Record scope of the task index: task id → `TaskEntry`. */
export const TASK_SCOPE = 'a2a.task'

/** What the task store reads: the session logs and records, and the store's records (`StoreBackend`). */
export interface TaskLog {
  readEvents(sessionId: string, afterSeq: number, limit: number): Promise<StoredEvent[]>
  sessionState(sessionId: string): Promise<Json | undefined>
  getRecord(scope: string, key: string): Promise<Json | undefined>
  putRecord(scope: string, key: string, value: Json | undefined): Promise<void>
  listRecords(scope: string, afterKey: string, limit: number): Promise<Array<{ key: string; value: Json }>>
}

/** Tuning of `LogTaskStore`. */
export interface LogTaskStoreOptions {
  /** Events read per page while folding a task. @default 1000 */
  pageSize?: number
  /** Folded tasks remembered (the least recently used beyond it are folded again when asked). @default 1000 */
  maxViews?: number
  /** Task index records a listing scans at most. @default 10000 */
  maxListed?: number
}

interface Memo {
  entry: TaskEntry
  view: TaskView
  /** The fold in progress (folds of one task never overlap). */
  folding: Promise<void> | null
}

/** The principal a call is made by (as the executor names a session's owner). */
export const ownerOf = (context: ServerCallContext): string => context.user?.userName ?? 'anonymous'

/**
 * The SDK's `TaskStore` over Parlance's store, so that a task is its run: the task id names an index record
 * (written once by the executor before the task's message is sent: its session, its message), and everything
 * else — status, artifacts, history — is folded from the session's log, from the seq the record names to the end
 * of the run. Any node and any later process reads the same task. `save` writes nothing once the log knows the
 * task; before that (the moment between the SDK's first save and the message's commit, or a request refused
 * before it reached the session) the SDK's copy is kept in memory on this node. Folds are remembered per task
 * and continued from where they stopped, so a GetTask reads only the events since the last one.
 */
export class LogTaskStore implements TaskStore {
  private readonly memos = new Map<string, Memo>()
  /** Tasks as the SDK saved them while the log does not know them (bounded, oldest dropped first). */
  private readonly unlogged = new Map<string, { task: Task; owner: string }>()
  /**
   * The requests carrying out a task on this node (by their call context) and the task as their own result
   * manager built it: the SDK folds each update into what it loads, so it must load its own copy, not the log,
   * which is ahead of the updates it has yet to process (and would have it apply them twice). Kept and handed out
   * so that an update costs the same however long the task is (`running-task.ts`).
   */
  private readonly running = new WeakMap<ServerCallContext, Map<string, Task | null>>()
  private readonly pageSize: number
  private readonly maxViews: number
  private readonly maxListed: number

  constructor(
    private readonly log: TaskLog,
    private readonly agent: string,
    options: LogTaskStoreOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 1000
    this.maxViews = options.maxViews ?? 1000
    this.maxListed = options.maxListed ?? 10_000
  }

  /** Records a new task (the executor, before it sends the task's message). */
  async created(taskId: string, entry: TaskEntry): Promise<void> {
    await this.log.putRecord(TASK_SCOPE, taskId, entry as unknown as Json)
    this.remember(taskId, { entry, view: emptyView(entry), folding: null })
  }

  /** The request of `context` carries out the task (the executor, as it starts or continues the task). */
  attach(taskId: string, context: ServerCallContext): void {
    let own = this.running.get(context)
    if (!own) this.running.set(context, (own = new Map<string, Task | null>()))
    if (!own.has(taskId)) own.set(taskId, null)
  }

  /** Records that the task's message was refused (the log never holds it): `rejected` (busy) or `failed`. */
  async refused(taskId: string, kind: 'rejected' | 'failed', text: string, data: Json): Promise<void> {
    const memo = await this.memo(taskId)
    if (!memo) return
    memo.entry = { ...memo.entry, [kind]: { text, data, at: Date.now() } }
    await this.log.putRecord(TASK_SCOPE, taskId, memo.entry as unknown as Json)
  }

  /** The session, run and what the task waits for, from the log: for an answer arriving on a node that did not start it. */
  async waiting(taskId: string): Promise<{ entry: TaskEntry; runId: string; waiting: Waiting } | undefined> {
    const memo = await this.folded(taskId)
    return memo?.view.waiting && memo.view.runId ? { entry: memo.entry, runId: memo.view.runId, waiting: memo.view.waiting } : undefined
  }

  /**
   * The task as the log shows it now and where in the log that is, for a follower to go on from (SubscribeToTask,
   * CancelTask on any node). `entry` is null for a task the log does not know (one the SDK saved on this node
   * before its record was written); undefined: no such task for this caller.
   */
  async snapshot(taskId: string, context: ServerCallContext): Promise<{ task: Task; entry: TaskEntry | null; at: TaskPosition } | undefined> {
    const memo = await this.folded(taskId)
    const none: TaskPosition = { readTo: 0, runId: null, seen: false, artifacts: new Set() }
    if (!memo) {
      const held = this.unloggedTask(taskId, context)
      return held && { task: held, entry: null, at: none }
    }
    if (!this.visible(memo.entry, context)) return undefined
    const { entry, view } = memo
    // Read in one step, so the task and its position agree; the state artifact (the whole state, now) is added after.
    const held = view.seen || refusalOf(entry) ? undefined : this.unloggedTask(taskId, context)
    const task = held ?? taskOf(taskId, entry, view, undefined)
    const at: TaskPosition = { readTo: view.readTo, runId: view.runId, seen: view.seen, artifacts: new Set(view.texts.keys()) }
    if (!held && view.stateChanged) {
      const state = await this.log.sessionState(entry.sessionId)
      if (state !== undefined) task.artifacts.push(stateArtifact(taskId, entry.sessionId, state).artifact!)
    }
    return { task, entry, at }
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const own = this.running.get(context)?.get(taskId)
    if (own) return copyTask(own)
    const memo = await this.folded(taskId)
    if (!memo) return this.unloggedTask(taskId, context)
    if (!this.visible(memo.entry, context)) return undefined
    const { entry, view } = memo
    if (!view.seen && !refusalOf(entry)) {
      const held = this.unloggedTask(taskId, context)
      if (held) return held
    } else this.unlogged.delete(taskId)
    return taskOf(taskId, entry, view, view.stateChanged ? await this.log.sessionState(entry.sessionId) : undefined)
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const own = this.running.get(context)
    let copy: Task | undefined
    if (own?.has(task.id)) own.set(task.id, (copy = keptTask(task)))
    const memo = this.memos.get(task.id)
    if (memo && (memo.view.seen || refusalOf(memo.entry))) return // the log (or the record) holds it
    if (!memo && !copy && (await this.folded(task.id))?.view.seen) return
    if (memo && !this.visible(memo.entry, context)) return
    // Shared with the request's own copy when there is one: neither is changed in place (loads clone).
    this.unlogged.delete(task.id)
    this.unlogged.set(task.id, { task: copy ?? structuredClone(task), owner: ownerOf(context) })
    if (this.unlogged.size > this.maxViews) this.unlogged.delete(this.unlogged.keys().next().value!)
  }

  /**
   * The caller's tasks of this agent, newest status first (as the SDK's in-memory store orders them), filtered
   * as asked. Scans the task index (at most `maxListed` records) and folds each task it keeps.
   */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const tasks: Task[] = []
    let after = ''
    for (let scanned = 0; scanned < this.maxListed;) {
      const page = await this.log.listRecords(TASK_SCOPE, after, Math.min(500, this.maxListed - scanned))
      if (page.length === 0) break
      scanned += page.length
      after = page[page.length - 1]!.key
      for (const r of page) {
        const entry = r.value as unknown as TaskEntry
        if (!this.visible(entry, context) || (params.contextId && entry.sessionId !== params.contextId)) continue
        const task = await this.load(r.key, context)
        if (task) tasks.push(task)
      }
    }
    let kept = tasks
    if (params.status !== undefined && params.status !== TaskState.TASK_STATE_UNSPECIFIED)
      kept = kept.filter((t) => t.status?.state === params.status)
    if (params.statusTimestampAfter) {
      const since = Date.parse(params.statusTimestampAfter)
      kept = kept.filter((t) => Date.parse(t.status?.timestamp ?? '') > since)
    }
    const key = (t: Task) => `${t.status?.timestamp ?? ''}\u0000${t.id}`
    kept.sort((a, b) => key(b).localeCompare(key(a)))
    const totalSize = kept.length
    let start = 0
    if (params.pageToken) {
      const cursor = Buffer.from(params.pageToken, 'base64url').toString()
      const i = kept.findIndex((t) => key(t) === cursor)
      start = i === -1 ? kept.length : i + 1
    }
    const pageSize = params.pageSize ?? 50
    const page = kept.slice(start, start + pageSize)
    if (!params.includeArtifacts) for (const t of page) t.artifacts = []
    const last = page[page.length - 1]
    const nextPageToken = last && start + page.length < kept.length ? Buffer.from(key(last)).toString('base64url') : ''
    return { tasks: page, nextPageToken, pageSize, totalSize }
  }

  private visible(entry: TaskEntry, context: ServerCallContext): boolean {
    return entry.agent === this.agent && entry.owner === ownerOf(context)
  }

  private unloggedTask(taskId: string, context: ServerCallContext): Task | undefined {
    const held = this.unlogged.get(taskId)
    return held && held.owner === ownerOf(context) ? structuredClone(held.task) : undefined
  }

  private remember(taskId: string, memo: Memo): Memo {
    this.memos.delete(taskId)
    this.memos.set(taskId, memo)
    if (this.memos.size > this.maxViews) this.memos.delete(this.memos.keys().next().value!)
    return memo
  }

  /** The task's memo (its index record read once), or undefined for an unknown task id. */
  private async memo(taskId: string): Promise<Memo | undefined> {
    const known = this.memos.get(taskId)
    if (known) return this.remember(taskId, known)
    const entry = (await this.log.getRecord(TASK_SCOPE, taskId)) as unknown as TaskEntry | undefined
    if (!entry) return undefined
    return this.memos.get(taskId) ?? this.remember(taskId, { entry, view: emptyView(entry), folding: null })
  }

  /** The memo with its view folded to the end of the log (or of the run). */
  private async folded(taskId: string): Promise<Memo | undefined> {
    const memo = await this.memo(taskId)
    if (!memo) return undefined
    while (memo.folding) await memo.folding
    if (memo.view.done) return memo
    const fold = (async () => {
      const { entry, view } = memo
      for (;;) {
        const page = await this.log.readEvents(entry.sessionId, view.readTo, this.pageSize)
        for (const e of page) foldEvent(taskId, entry, view, e)
        if (page.length < this.pageSize || view.done) break
      }
      // Not in the log: the message may have been refused since (on any node), which only the record says.
      if (!view.seen && !refusalOf(memo.entry)) {
        const now = (await this.log.getRecord(TASK_SCOPE, taskId)) as unknown as TaskEntry | undefined
        if (now && refusalOf(now)) memo.entry = now
      }
    })()
    memo.folding = fold
    try {
      await fold
    } finally {
      memo.folding = null
    }
    return memo
  }
}

/** The calls of Parlance's `EventStore` (and its backend) a task store makes. */
export interface EventStoreLike {
  read(sessionId: string, afterSeq: number, limit: number): Promise<StoredEvent[]>
  readonly backend: Pick<TaskLog, 'getRecord' | 'putRecord' | 'listRecords'> & {
    getSession(id: string): Promise<{ state: Json; stateSeq?: number; lastSeq: number } | undefined>
  }
}

/** A `TaskLog` over Parlance's event store. */
export function taskLogOf(store: EventStoreLike): TaskLog {
  const b = store.backend
  return {
    readEvents: (id, after, limit) => store.read(id, after, limit),
    // The stored snapshot with the state events after it (the store writes the state whole only now and then).
    sessionState: async (id) => {
      const r = await b.getSession(id)
      return r && catchUpState((sid, after, limit) => store.read(sid, after, limit), id, r.state, r.stateSeq ?? r.lastSeq, r.lastSeq)
    },
    getRecord: (scope, key) => b.getRecord(scope, key),
    putRecord: (scope, key, value) => b.putRecord(scope, key, value),
    listRecords: (scope, after, limit) => b.listRecords(scope, after, limit),
  }
}
