import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { Principal, SessionId, StoredEvent } from '../core/index.js'
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

/** Events per multi-row INSERT statement. */
const ROWS = 64

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
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
`

/**
 * SQLite backend (better-sqlite3, WAL). One transaction per commit unit, which
 * the shared writer makes one per event-loop tick, so durability costs one
 * fsync per tick rather than per event. Each event is stored as its JSON.
 */
export function createSqliteStore(options: SqliteStoreOptions): StoreBackend {
  if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true })
  const db = new Database(options.file)
  db.pragma('journal_mode = WAL')
  db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
  db.pragma('busy_timeout = 5000')
  db.exec(SCHEMA)

  const insertEvent = db.prepare<[string, number, string]>('INSERT INTO events (session_id, seq, body) VALUES (?, ?, ?)')
  // Multi-row insert: one statement per ROWS events cuts per-call overhead (~30% faster measured).
  const insertRows = db.prepare<unknown[]>(`INSERT INTO events (session_id, seq, body) VALUES ${Array(ROWS).fill('(?, ?, ?)').join(', ')}`)
  const rowArgs = new Array<unknown>(ROWS * 3)
  const upsertSession = db.prepare<[string, string, string, number, number, number, string | null]>(
    `INSERT INTO sessions (id, agent, owner, created_at, updated_at, last_seq, active_run_id, state, messages)
     VALUES (?, ?, ?, ?, ?, ?, ?, '{}', '[]')
     ON CONFLICT(id) DO UPDATE SET agent = excluded.agent, updated_at = excluded.updated_at,
       last_seq = excluded.last_seq, active_run_id = excluded.active_run_id`,
  )
  const updateState = db.prepare<[string, string]>('UPDATE sessions SET state = ? WHERE id = ?')
  const updateMessages = db.prepare<[string, string]>('UPDATE sessions SET messages = ? WHERE id = ?')
  const selectEvents = db
    .prepare<[string, number, number], string>('SELECT body FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?')
    .pluck()
  const selectSession = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?')
  const selectSessions = db.prepare<[number], SessionRow>(
    'SELECT id, agent, owner, created_at, updated_at, last_seq, active_run_id FROM sessions ORDER BY updated_at DESC LIMIT ?',
  )

  const writeUnit = db.transaction((unit: CommitUnit) => {
    const events = unit.events
    let i = 0
    for (; i + ROWS <= events.length; i += ROWS) {
      for (let k = 0; k < ROWS; k++) {
        const e = events[i + k]!
        rowArgs[k * 3] = e.sessionId
        rowArgs[k * 3 + 1] = e.seq
        rowArgs[k * 3 + 2] = JSON.stringify(e)
      }
      insertRows.run(rowArgs)
    }
    for (; i < events.length; i++) {
      const e = events[i]!
      insertEvent.run(e.sessionId, e.seq, JSON.stringify(e))
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
      const rows = selectEvents.all(sessionId, afterSeq, limit)
      const out = new Array<StoredEvent>(rows.length)
      for (let i = 0; i < rows.length; i++) out[i] = JSON.parse(rows[i]!) as StoredEvent
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
        state: JSON.parse(row.state),
        messages: JSON.parse(row.messages),
      } satisfies SessionRecord
    },
    async listSessions(limit) {
      return selectSessions.all(limit).map(
        (row): SessionSummary => ({
          id: row.id as SessionId,
          agent: row.agent,
          owner: row.owner as Principal,
          lastSeq: row.last_seq,
          updatedAt: row.updated_at,
          activeRunId: row.active_run_id,
        }),
      )
    },
    async ping() {
      return db.open
    },
    async close() {
      if (db.open) db.close()
    },
  }
}
