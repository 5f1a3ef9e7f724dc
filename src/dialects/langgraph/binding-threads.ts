import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ParlanceError, type Json, type Principal } from '../../core/index.js'
import { readBody, sendJson, type EndpointDeps } from '../../binding/index.js'
import type { Session } from '../../session/index.js'
import { decodeHistoryRequest, decodeThreadCreate, decodeThreadSearch } from './decode.js'
import { lcMessage } from './encode-messages.js'
import { stateObject, threadObject } from './encode-state.js'
import { checkpointId, readCheckpoints, readThread, seqOfCheckpoint } from './log.js'
import type { Thread, ThreadSearch } from './wire.js'

/** Record scope of threads: key `<owner, URI-encoded>/<thread id>` → `ThreadRecord` (so a search lists one owner's). */
export const THREAD_SCOPE = 'langgraph.thread'

/** What a thread keeps beside its session: its metadata and when it was made. */
export interface ThreadRecord {
  thread_id: string
  created_at: number
  metadata: Record<string, Json>
}

const prefixOf = (owner: Principal) => `${encodeURIComponent(owner)}/`
const keyOf = (owner: Principal, threadId: string) => `${prefixOf(owner)}${threadId}`

/** The caller, admitted by the rate limit. */
export function admitted(deps: EndpointDeps, req: IncomingMessage): Principal {
  const principal = deps.principal(req)
  const refused = deps.admission(principal, deps.clientAddress(req))()
  if (refused) throw refused
  return principal
}

export async function threadRecord(deps: EndpointDeps, owner: Principal, threadId: string): Promise<ThreadRecord | undefined> {
  return (await deps.sessions.store.backend.getRecord(THREAD_SCOPE, keyOf(owner, threadId))) as ThreadRecord | undefined
}

export function putThreadRecord(deps: EndpointDeps, owner: Principal, r: ThreadRecord): Promise<void> {
  return deps.sessions.store.backend.putRecord(THREAD_SCOPE, keyOf(owner, r.thread_id), r as unknown as Json)
}

const notFound = (threadId: string) => new ParlanceError('not_found', `Thread with ID ${threadId} not found`, { threadId })

/** The thread's record and session, or `not_found` (a thread of someone else's is not found either). */
export async function openThread(deps: EndpointDeps, owner: Principal, threadId: string): Promise<{ record: ThreadRecord; session: Session }> {
  const record = await threadRecord(deps, owner, threadId)
  if (!record) throw notFound(threadId)
  return { record, session: await deps.sessions.open(threadId, owner, { create: false }) }
}

/** Creates a thread: its session (agent: `metadata.graph_id` when it names one) and its record. */
export async function createThread(deps: EndpointDeps, owner: Principal, threadId: string, metadata: Record<string, Json>): Promise<ThreadRecord> {
  if (await deps.sessions.store.backend.getSession(threadId))
    throw new ParlanceError('conflict', `a session with ID ${threadId} already exists (a deleted thread's log is kept): choose another thread_id`, {
      threadId,
    })
  const graph = typeof metadata.graph_id === 'string' && deps.sessions.agent(metadata.graph_id) ? metadata.graph_id : undefined
  await deps.sessions.open(threadId, owner, graph ? { agent: graph } : {})
  const record: ThreadRecord = { thread_id: threadId, created_at: Date.now(), metadata }
  await putThreadRecord(deps, owner, record)
  return record
}

/** A thread as the API shows it: status and interrupts from the log, values from the session's history. */
export async function threadOf(deps: EndpointDeps, record: ThreadRecord, session: Session): Promise<Thread> {
  const t = await readThread(session)
  const stored = await deps.sessions.store.backend.getSession(session.id)
  return threadObject({
    threadId: record.thread_id,
    createdAt: record.created_at,
    updatedAt: stored?.updatedAt ?? record.created_at,
    metadata: record.metadata,
    status: t.status,
    messages: session.model.messages.map(lcMessage),
    interrupts: t.interrupts,
    error: t.error,
  })
}

export async function create(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const principal = admitted(deps, req)
  const decoded = decodeThreadCreate(await readBody(req, deps.limits.maxFrameBytes, { json: true }), deps.limits)
  if (!decoded.ok) throw decoded.error
  const body = decoded.value
  const threadId = body.thread_id ?? randomUUID()
  const existing = await threadRecord(deps, principal, threadId)
  if (existing) {
    if (body.if_exists !== 'do_nothing') throw new ParlanceError('conflict', `Thread with ID ${threadId} already exists`, { threadId })
    return sendJson(res, 200, await threadOf(deps, existing, await deps.sessions.open(threadId, principal, { create: false })))
  }
  const record = await createThread(deps, principal, threadId, (body.metadata ?? {}) as Record<string, Json>)
  sendJson(res, 200, await threadOf(deps, record, await deps.sessions.open(threadId, principal, { create: false })))
}

export async function get(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, threadId: string): Promise<void> {
  const { record, session } = await openThread(deps, admitted(deps, req), threadId)
  sendJson(res, 200, await threadOf(deps, record, session))
}

/** `PATCH /threads/{id}`: metadata merged in. */
export async function patch(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, threadId: string): Promise<void> {
  const principal = admitted(deps, req)
  const decoded = decodeThreadCreate(await readBody(req, deps.limits.maxFrameBytes, { json: true }), deps.limits)
  if (!decoded.ok) throw decoded.error
  const { record, session } = await openThread(deps, principal, threadId)
  const next = { ...record, metadata: { ...record.metadata, ...((decoded.value.metadata ?? {}) as Record<string, Json>) } }
  await putThreadRecord(deps, principal, next)
  sendJson(res, 200, await threadOf(deps, next, session))
}

/** `DELETE /threads/{id}`: its active run is cancelled and the thread is gone from the API (the log is kept). */
export async function remove(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, threadId: string): Promise<void> {
  const principal = admitted(deps, req)
  const { session } = await openThread(deps, principal, threadId)
  if (session.activeRunId !== null) await session.handle({ type: 'run.cancel', sessionId: session.id, reason: 'the thread was deleted' })
  await deps.sessions.store.backend.putRecord(THREAD_SCOPE, keyOf(principal, threadId), undefined)
  res.writeHead(204).end()
}

/** The thread's state now: the newest checkpoint's values, and what its run waits on. */
export async function state(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, threadId: string): Promise<void> {
  const { session } = await openThread(deps, admitted(deps, req), threadId)
  const [head] = await readCheckpoints(session, 1)
  const t = await readThread(session)
  sendJson(
    res,
    200,
    stateObject({
      threadId,
      messages: head?.messages ?? [],
      interrupts: t.interrupts,
      checkpointId: head ? checkpointId(head.seq) : null,
      parentId: head?.parentSeq ? checkpointId(head.parentSeq) : null,
      createdAt: head?.ts ?? null,
      error: t.error,
      running: t.status === 'busy',
    }),
  )
}

/** `POST /threads/{id}/history`: the checkpoints, newest first (the newest with what the run waits on now). */
export async function history(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, threadId: string): Promise<void> {
  const principal = admitted(deps, req)
  const decoded = decodeHistoryRequest(await readBody(req, deps.limits.maxFrameBytes, { json: true }), deps.limits)
  if (!decoded.ok) throw decoded.error
  const { session } = await openThread(deps, principal, threadId)
  const b = decoded.value.before
  const beforeId = typeof b === 'string' ? b : (b?.checkpoint_id ?? null)
  const before = beforeId === null ? Infinity : seqOfCheckpoint(beforeId)
  if (before === null) throw new ParlanceError('invalid_message', `before: no checkpoint "${beforeId}" in this thread`, { field: 'before' })
  const points = await readCheckpoints(session, decoded.value.limit ?? 10, before)
  const now = before === Infinity ? await readThread(session) : null
  sendJson(
    res,
    200,
    points.map((p, i) =>
      stateObject({
        threadId,
        messages: p.messages,
        interrupts: i === 0 && now ? now.interrupts : [],
        checkpointId: checkpointId(p.seq),
        parentId: p.parentSeq === null ? null : checkpointId(p.parentSeq),
        createdAt: p.ts,
      }),
    ),
  )
}

/** Threads scanned per search at most (a search reads each of the owner's thread records). */
const MAX_SCANNED = 10_000

const matches = (meta: Record<string, Json>, filter: Record<string, unknown>) =>
  Object.entries(filter).every(([k, v]) => JSON.stringify(meta[k]) === JSON.stringify(v))

/** `POST /threads/search`: the caller's threads, filtered by metadata, ids and status, sorted and paged. */
export async function search(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const principal = admitted(deps, req)
  const decoded = decodeThreadSearch(await readBody(req, deps.limits.maxFrameBytes, { json: true }), deps.limits)
  if (!decoded.ok) throw decoded.error
  const q: ThreadSearch = decoded.value
  const prefix = prefixOf(principal)
  const backend = deps.sessions.store.backend
  const found: ThreadRecord[] = []
  for (let after = prefix, scanned = 0; scanned < MAX_SCANNED;) {
    const page = await backend.listRecords(THREAD_SCOPE, after, 500)
    const own = page.filter((r) => r.key.startsWith(prefix))
    for (const r of own) found.push(r.value as unknown as ThreadRecord)
    scanned += page.length
    if (page.length < 500 || own.length < page.length) break
    after = page.at(-1)!.key
  }
  const ids = q.ids ? new Set(q.ids) : null
  const picked = found.filter((r) => (!ids || ids.has(r.thread_id)) && (!q.metadata || matches(r.metadata, q.metadata)))
  const threads: Thread[] = []
  for (const r of picked) threads.push(await threadOf(deps, r, await deps.sessions.open(r.thread_id, principal, { create: false })))
  const by = q.sort_by ?? 'created_at'
  const sign = (q.sort_order ?? 'desc') === 'asc' ? 1 : -1
  const out = threads
    .filter((t) => !q.status || t.status === q.status)
    .sort((a, b) => sign * (a[by] < b[by] ? -1 : a[by] > b[by] ? 1 : 0))
    .slice(q.offset ?? 0, (q.offset ?? 0) + (q.limit ?? 10))
  sendJson(res, 200, out)
}
