import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { Principal, SessionId, StoredEvent } from '../core/index.js'
import { lockFile } from './file-lock.js'
import type { CommitUnit, SessionRecord, SessionSummary, StoreBackend } from './types.js'

/** Options of the SQLite backend. */
export interface SqliteStoreOptions {
  /** Database file; ':memory:' for a throwaway database. */
  file: string
  /**
   * SQLite `synchronous` pragma. 'normal' (with WAL) survives a process crash
   * and kill -9; 'full' also survives power loss, at a cost per commit.
   * @default 'normal'
   */
  synchronous?: 'normal' | 'full'
}

interface SessionRow {
  id: string
  agent: string
  owner: string
  created_at: number
  updated_at: number
  last_seq: number
  active_run_id: string | null
  state: string
  messages: string
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS event_blocks (
  session_id TEXT NOT NULL,
  first_seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (session_id, first_seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  owner TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  active_run_id TEXT,
  state TEXT NOT NULL,
  messages TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(updated_at);
CREATE INDEX IF NOT EXISTS sessions_owner ON sessions(owner);
`

/**
 * SQLite backend (better-sqlite3, WAL). One transaction per commit unit, which
 * the shared writer makes one per event-loop tick, so durability costs one
 * commit per tick rather than per event. A session's events of one commit are
 * stored as one row (a JSON array, keyed by its seq range); reads page through
 * those blocks. Seq continuity is checked on write, as the memory store does.
 */
export function createSqliteStore(options: SqliteStoreOptions): StoreBackend {
  let unlock = () => {}
  if (options.file !== ':memory:') {
    mkdirSync(dirname(options.file), { recursive: true })
    unlock = lockFile(options.file, `the data directory ${dirname(options.file)} (${options.file})`)
  }
  let db: Database.Database
  try {
    db = new Database(options.file)
  } catch (err) {
    unlock()
    throw new Error(`cannot open the SQLite database ${options.file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  }
  db.pragma('journal_mode = WAL')
  db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
  db.pragma('busy_timeout = 5000')
  db.exec(SCHEMA)

  const insertBlock = db.prepare<[string, number, number, string]>(
    'INSERT INTO event_blocks (session_id, first_seq, last_seq, body) VALUES (?, ?, ?, ?)',
  )
  const selectLastSeq = db
    .prepare<[string], number>('SELECT last_seq FROM event_blocks WHERE session_id = ? ORDER BY first_seq DESC LIMIT 1')
    .pluck()
  const upsertSession = db.prepare<[string, string, string, number, number, number, string | null]>(
    `INSERT INTO sessions (id, agent, owner, created_at, updated_at, last_seq, active_run_id, state, messages)
     VALUES (?, ?, ?, ?, ?, ?, ?, '{}', '[]')
     ON CONFLICT(id) DO UPDATE SET agent = excluded.agent, updated_at = excluded.updated_at,
       last_seq = excluded.last_seq, active_run_id = excluded.active_run_id`,
  )
  const updateState = db.prepare<[string, string]>('UPDATE sessions SET state = ? WHERE id = ?')
  const updateMessages = db.prepare<[string, string]>('UPDATE sessions SET messages = ? WHERE id = ?')
  const selectBlockStart = db
    .prepare<[string, number], number>(
      'SELECT first_seq FROM event_blocks WHERE session_id = ? AND first_seq <= ? ORDER BY first_seq DESC LIMIT 1',
    )
    .pluck()
  const selectBlocks = db.prepare<[string, number], { first_seq: number; body: string }>(
    'SELECT first_seq, body FROM event_blocks WHERE session_id = ? AND first_seq >= ? ORDER BY first_seq',
  )
  /** The block a page ended in, parsed: the next page of a replay starts there without parsing it again. */
  let lastBlock: { sessionId: string; firstSeq: number; events: StoredEvent[] } | null = null
  const selectSession = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?')
  const selectSessions = db.prepare<[number], SessionRow>(
    'SELECT id, agent, owner, created_at, updated_at, last_seq, active_run_id FROM sessions ORDER BY updated_at DESC LIMIT ?',
  )

  const countOwned = db.prepare<[string], number>('SELECT COUNT(*) FROM sessions WHERE owner = ?').pluck()

  // One row per session per commit: the commit's run of events for that session as one JSON array.
  // The row count, not the bytes, is what SQLite pays for, so a tick's batch costs one insert per session.
  const writeUnit = db.transaction((unit: CommitUnit) => {
    const events = unit.events
    let i = 0
    while (i < events.length) {
      const first = events[i]!
      const sid = first.sessionId
      let j = i + 1
      while (j < events.length && events[j]!.sessionId === sid) {
        if (events[j]!.seq !== events[j - 1]!.seq + 1) throw new Error(`seq gap in ${sid}: ${events[j - 1]!.seq} then ${events[j]!.seq}`)
        j++
      }
      const stored = selectLastSeq.get(sid) ?? 0
      if (first.seq !== stored + 1) throw new Error(`seq gap in ${sid}: ${stored} then ${first.seq}`)
      insertBlock.run(sid, first.seq, events[j - 1]!.seq, JSON.stringify(i === 0 && j === events.length ? events : events.slice(i, j)))
      i = j
    }
    for (const r of unit.sessions) {
      upsertSession.run(r.id, r.agent, r.owner, r.createdAt, r.updatedAt, r.lastSeq, r.activeRunId)
      if (r.state !== undefined) updateState.run(JSON.stringify(r.state), r.id)
      if (r.messages !== undefined) updateMessages.run(JSON.stringify(r.messages), r.id)
    }
  })

  return {
    kind: 'sqlite',
    async commit(unit) {
      writeUnit(unit)
    },
    async readEvents(sessionId, afterSeq, limit) {
      const out: StoredEvent[] = []
      if (limit <= 0) return out
      const from = selectBlockStart.get(sessionId, afterSeq + 1) ?? 0
      // iterate() materializes one block at a time, so a page parses only the blocks it returns.
      for (const b of selectBlocks.iterate(sessionId, from)) {
        const cached = lastBlock !== null && lastBlock.sessionId === sessionId && lastBlock.firstSeq === b.first_seq
        const events = cached ? lastBlock!.events : (JSON.parse(b.body) as StoredEvent[])
        for (let i = Math.max(0, afterSeq + 1 - b.first_seq); i < events.length; i++) {
          out.push(events[i]!)
          if (out.length >= limit) {
            if (i < events.length - 1) lastBlock = { sessionId, firstSeq: b.first_seq, events }
            return out
          }
        }
      }
      return out
    },
    async getSession(id) {
      const row = selectSession.get(id)
      if (!row) return undefined
      return {
        id: row.id as SessionId,
        agent: row.agent,
        owner: row.owner as Principal,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        lastSeq: row.last_seq,
        activeRunId: row.active_run_id,
        state: JSON.parse(row.state) as SessionRecord['state'],
        messages: JSON.parse(row.messages) as SessionRecord['messages'],
      } satisfies SessionRecord
    },
    async listSessions(limit) {
      return selectSessions.all(limit).map(
        (row): SessionSummary => ({
          id: row.id,
          agent: row.agent,
          owner: row.owner,
          lastSeq: row.last_seq,
          updatedAt: row.updated_at,
          activeRunId: row.active_run_id,
        }),
      )
    },
    async countSessions(owner) {
      return countOwned.get(owner) ?? 0
    },
    async ping() {
      return db.open
    },
    async close() {
      if (db.open) db.close()
      unlock()
    },
  }
}
