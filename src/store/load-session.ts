import { catchUpState, type SessionId } from '../core/index.js'
import type { SessionRecord, StoreBackend } from './types.js'

/**
 * A session's record with its state as of `lastSeq`: the stored snapshot (as of `stateSeq`) with the state
 * events logged after it folded in — a few thousand events at most, since a session writes a new snapshot
 * before its changes since the last one cost more to replay than the state itself (`session/state-snapshot.ts`).
 * `stateSeq` stays what the store holds. Undefined when there is no such session.
 */
export async function loadSession(backend: StoreBackend, id: SessionId): Promise<SessionRecord | undefined> {
  const record = await backend.getSession(id)
  if (!record) return undefined
  const from = record.stateSeq ?? record.lastSeq
  if (from >= record.lastSeq) return record
  const state = await catchUpState((sid, after, limit) => backend.readEvents(sid, after, limit), id, record.state, from, record.lastSeq)
  return { ...record, state }
}
