import { ConversationModel, isRunEnd, ParlanceError, type Principal, type SessionId, type StoredEvent } from '../core/index.js'
import type { SessionRecord, StoreBackend } from './types.js'

/** What `forkSession` takes. */
export interface ForkOptions {
  /** The new session's id; it must not exist. */
  id: SessionId
  /** The last event of the source the fork keeps (1 ≤ atSeq ≤ the source's last committed seq). */
  atSeq: number
  /** Owner of the fork. @default the source's owner */
  owner?: Principal
  /** Events read per page. @default 1000 */
  pageSize?: number
}

/**
 * Forks a session: a new session whose log is exactly the source's events 1..`atSeq` (same seqs, types,
 * bodies and timestamps; only `sessionId` differs) and whose history and state are their fold — so a client
 * replaying the fork sees precisely what a client of the source had seen at that point. The source is not
 * touched. A run still active at `atSeq` stays active in the record and is closed as interrupted when the
 * fork is first opened, as after a restart; queued messages are not inherited. One commit: all or nothing.
 * Works on any backend (it uses only `readEvents`, `getSession` and `commit`).
 */
export async function forkSession(backend: StoreBackend, sourceId: SessionId, opts: ForkOptions): Promise<SessionRecord> {
  const source = await backend.getSession(sourceId)
  if (!source) throw new ParlanceError('not_found', `no session ${sourceId}`, { sessionId: sourceId })
  const { id, atSeq } = opts
  if (!Number.isSafeInteger(atSeq) || atSeq < 1 || atSeq > source.lastSeq) {
    throw new ParlanceError(
      'invalid_message',
      `atSeq must be a whole number from 1 to ${source.lastSeq} (the session's last event); got ${String(atSeq)}`,
      {
        field: 'atSeq',
        lastSeq: source.lastSeq,
      },
    )
  }
  if (id === sourceId || (await backend.getSession(id))) throw new ParlanceError('conflict', `session ${id} already exists`, { sessionId: id })
  const pageSize = opts.pageSize ?? 1000
  const events: StoredEvent[] = []
  const model = new ConversationModel()
  let activeRunId: string | null = null
  for (let after = 0; after < atSeq;) {
    const page = await backend.readEvents(sourceId, after, Math.min(pageSize, atSeq - after))
    if (page.length === 0 || page[0]!.seq !== after + 1) {
      throw new ParlanceError(
        'not_found',
        `events ${after + 1}..${atSeq} of session ${sourceId} are no longer stored (its log was trimmed); fork at a later seq`,
        {
          sessionId: sourceId,
          seq: after + 1,
        },
      )
    }
    for (const e of page) {
      if (e.seq > atSeq) break
      const copy = { ...e, sessionId: id }
      model.apply(copy)
      if (e.type === 'run.started') activeRunId = e.runId
      else if (isRunEnd(e) && e.runId === activeRunId) activeRunId = null
      events.push(copy)
      after = e.seq
    }
  }
  const now = Date.now()
  const record: SessionRecord = {
    id,
    agent: source.agent,
    owner: opts.owner ?? source.owner,
    createdAt: now,
    updatedAt: now,
    lastSeq: atSeq,
    activeRunId,
    state: model.state,
    stateSeq: atSeq,
    messages: model.messages,
    queue: [],
    forkedFrom: { sessionId: sourceId, atSeq },
  }
  await backend.commit({ events, sessions: [{ ...record, forkedFrom: record.forkedFrom! }] })
  return record
}
