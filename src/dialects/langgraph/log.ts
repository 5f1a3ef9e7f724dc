// What the LangGraph API reads back from a session's log: a run's status, what a thread waits for, the messages at a
// seq and the checkpoints of its history. Everything is derived from the committed log (so every node and every
// later process reads the same), a page at a time.
import type { StoredEvent } from '../../core/index.js'
import type { Session } from '../../session/index.js'
import type { Pending } from './decode-resume.js'
import { foldMessages, interruptOf, type OpenTexts } from './encode-messages.js'
import type { LcInterrupt, LcMessage, RunStatus, ThreadStatus } from './wire.js'

/** Calls `fn` for each committed event with seq in (after, upTo], in order; `fn` returning false stops. */
export async function eachEvent(session: Session, after: number, upTo: number, fn: (e: StoredEvent) => boolean | void): Promise<void> {
  if (session.committedSeq < upTo) await session.deps.store.flush()
  const page = session.deps.limits.replayPageSize
  for (let at = after; at < upTo;) {
    const events = await session.deps.store.read(session.id, at, Math.min(page, upTo - at))
    if (events.length === 0) return
    for (const e of events) if (e.seq > upTo || fn(e) === false) return
    at = events.at(-1)!.seq
  }
}

/** A LangGraph run read from the log: the part of Parlance run `runId` after seq `after`, up to its end or pause. */
export interface RunRead {
  status: RunStatus
  assistantId: string | null
  createdAt: number | null
  updatedAt: number | null
  error: string | null
}

/** The status of a LangGraph run (a pause is `interrupted`, a cancel too, as the Agent Server reports it). */
export async function readRun(session: Session, runId: string, after: number): Promise<RunRead | null> {
  const r: RunRead = {
    status: session.activeRunId === runId ? 'running' : 'pending',
    assistantId: null,
    createdAt: null,
    updatedAt: null,
    error: null,
  }
  let seen = false
  let done = false
  await eachEvent(session, after, session.committedSeq, (e) => {
    if (e.runId !== runId) return
    seen = true
    r.createdAt ??= e.ts
    r.updatedAt = e.ts
    if (e.type === 'run.started') r.assistantId = e.agent
    if (interruptOf(e)) r.status = 'interrupted'
    else if (e.type === 'run.finished') r.status = 'success'
    else if (e.type === 'run.error') {
      r.status = e.code === 'cancelled' || e.code === 'interrupted' ? 'interrupted' : e.code === 'timeout' ? 'timeout' : 'error'
      r.error = e.message
    } else return
    done = true
    return false
  })
  if (!seen && !done && session.activeRunId !== runId) return null
  return r
}

/** What a thread is doing: its status, the interrupts it waits on (and their kinds), the last run's error. */
export interface ThreadRead {
  status: ThreadStatus
  interrupts: LcInterrupt[]
  pending: Pending[]
  error: string | null
}

/** Session-level events a session may record after its last run ended: skipped when looking for that run's end. */
const TAIL = 16

export async function readThread(session: Session): Promise<ThreadRead> {
  const start = session.activeRunStartSeq
  const active = session.activeRunId
  if (active !== null && start !== null) {
    const open = new Map<string, { i: LcInterrupt; kind: Pending['kind'] }>()
    await eachEvent(session, start - 1, session.committedSeq, (e) => {
      if (e.runId !== active) return
      const i = interruptOf(e)
      if (i) open.set(i.id, { i, kind: e.type === 'approval.requested' ? 'approval' : 'tool' })
      else if (e.type === 'approval.resolved') open.delete(e.approvalId)
      else if (e.type === 'tool.result' || e.type === 'tool.error' || e.type === 'tool.cancel') open.delete(e.toolCallId)
    })
    const waits = [...open.values()]
    return {
      status: waits.length > 0 ? 'interrupted' : 'busy',
      interrupts: waits.map((w) => w.i),
      pending: waits.map((w) => ({ id: w.i.id, kind: w.kind })),
      error: null,
    }
  }
  const end = session.committedSeq
  let last: StoredEvent | undefined
  await eachEvent(session, Math.max(0, end - TAIL), end, (e) => {
    if (e.type === 'run.finished' || e.type === 'run.error') last = e
  })
  const failed = last?.type === 'run.error' && last.code !== 'cancelled'
  return { status: failed ? 'error' : 'idle', interrupts: [], pending: [], error: failed && last?.type === 'run.error' ? last.message : null }
}

/** The thread's messages as of seq `upTo` (a fold of the log from its start). */
export async function messagesAt(session: Session, upTo: number): Promise<readonly LcMessage[]> {
  let messages: readonly LcMessage[] = []
  let texts: OpenTexts = {}
  await eachEvent(session, 0, upTo, (e) => {
    const f = foldMessages(messages, texts, e)
    messages = f.messages
    texts = f.texts
  })
  return messages
}

/** One checkpoint of a thread's history: a point where its messages changed, or a run paused. */
export interface CheckpointRead {
  seq: number
  /** The checkpoint it follows: the one before, or, after an edit cut the history back, the one it branched from. */
  parentSeq: number | null
  ts: number
  messages: readonly LcMessage[]
  interrupts: LcInterrupt[]
}

export const checkpointId = (seq: number) => `ckpt_${String(seq).padStart(12, '0')}`
export function seqOfCheckpoint(id: string): number | null {
  const m = /^ckpt_(\d{1,15})$/.exec(id)
  return m ? Number(m[1]) : null
}

/**
 * The thread's checkpoints before seq `before` (Infinity: all), newest first, at most `limit`. One pass over the
 * log; only the checkpoints returned keep their messages.
 */
export async function readCheckpoints(session: Session, limit: number, before = Infinity): Promise<CheckpointRead[]> {
  let messages: readonly LcMessage[] = []
  let texts: OpenTexts = {}
  let parent: number | null = null
  /** The latest checkpoint whose history ends with each message id (where an edit branches from). */
  const endsWith = new Map<string, number>()
  const kept: CheckpointRead[] = []
  await eachEvent(session, 0, session.committedSeq, (e) => {
    if (e.seq >= before) return false
    const f = foldMessages(messages, texts, e)
    const interrupt = interruptOf(e)
    messages = f.messages
    texts = f.texts
    if (!f.changed && !interrupt) return
    const from = e.type === 'history.rewound' && e.toMessageId !== null ? (endsWith.get(e.toMessageId) ?? parent) : parent
    kept.push({ seq: e.seq, parentSeq: from, ts: e.ts, messages, interrupts: interrupt ? [interrupt] : [] })
    if (kept.length > limit) kept.shift()
    const lastId = messages.at(-1)?.id
    if (lastId !== undefined) endsWith.set(lastId, e.seq)
    parent = e.seq
  })
  return kept.reverse()
}
