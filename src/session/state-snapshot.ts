import { ConversationModel } from '../core/index.js'
import type { SessionRecord, SessionWrite } from '../store/index.js'

/**
 * Events after a state snapshot at which the next state change writes a new one, whatever their size, so that
 * loading a session folds at most about this many events (`loadSession`). Half a trimmed log's length at most.
 */
export const STATE_SNAPSHOT_EVENTS = 4096

/**
 * The model of a loaded record (its state as of `lastSeq`, see `loadSession`). A stored snapshot older than the
 * record counts as a pending change, so no write claims it current before a new snapshot is written.
 */
export function modelOf(record: SessionRecord): ConversationModel {
  const model = new ConversationModel(record.messages, record.state, record.queue)
  model.stateSeq = record.stateSeq ?? record.lastSeq
  if (model.stateSeq < record.lastSeq) model.stateSince.events = 1
  return model
}

/**
 * What a commit writes of the state, at `seq` (the session's last event, all of it in this commit or before):
 * nothing changed since the last snapshot: only that the stored one is current at `seq`; changes that would
 * cost less to replay than the state itself, within `maxLag` events of the snapshot: nothing (the log has them);
 * else a new snapshot, serialized here once, its size then exact. So a patch costs its own size here, and a
 * snapshot (O(state)) is written only after patches of about the state's size, or `maxLag` events.
 */
export function stateWrite(model: ConversationModel, seq: number, maxLag: number): Pick<SessionWrite, 'stateJson' | 'stateSeq'> {
  const since = model.stateSince
  if (since.events === 0) {
    model.stateSeq = seq
    return { stateSeq: seq }
  }
  if (since.bytes < model.stateBytes && seq - model.stateSeq < maxLag) return {}
  const json = JSON.stringify(model.state)
  model.snapshotWritten(json)
  model.stateSeq = seq
  return { stateJson: json, stateSeq: seq }
}
