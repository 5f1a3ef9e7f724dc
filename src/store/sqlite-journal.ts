import type { StoredEvent } from '../core/index.js'
import { encodeBlock } from './sqlite-blocks.js'
import type { Statements } from './sqlite-schema.js'
import type { SqliteDatabase } from './sqlite-driver.js'

/** Writes `events` (one session's, ascending) as blocks of consecutive seqs. */
export function writeBlocks(st: Pick<Statements, 'insertBlock'>, sid: string, events: readonly StoredEvent[]): void {
  let i = 0
  while (i < events.length) {
    let j = i + 1
    while (j < events.length && events[j]!.seq === events[j - 1]!.seq + 1) j++
    st.insertBlock.run(sid, events[i]!.seq, events[j - 1]!.seq, encodeBlock(events, i, j))
    i = j
  }
}

/**
 * A journal left by a process that stopped without compacting (a crash, kill -9): its events move into blocks
 * (those past what the blocks already hold) and the journal is emptied, in one transaction.
 */
export function recoverJournal(db: SqliteDatabase, st: Pick<Statements, 'insertBlock' | 'selectJournal' | 'selectLastSeq' | 'deleteJournal'>): void {
  const pending = new Map<string, StoredEvent[]>()
  let last = 0
  for (const row of st.selectJournal.iterate()) {
    last = row.id
    for (const e of JSON.parse(row.body) as StoredEvent[]) {
      let list = pending.get(e.sessionId)
      if (!list) pending.set(e.sessionId, (list = []))
      list.push(e)
    }
  }
  if (last === 0) return
  db.transaction(() => {
    for (const [sid, list] of pending) {
      const stored = st.selectLastSeq.get(sid) ?? 0
      writeBlocks(
        st,
        sid,
        list.filter((e) => e.seq > stored),
      )
    }
    st.deleteJournal.run(last + 1)
  })()
}
