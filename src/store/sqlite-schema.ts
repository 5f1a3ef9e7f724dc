import type { Json } from '../core/index.js'
import type { ForkOrigin, SessionRecord, StoreBackend } from './types.js'
import { openSqlite, type SqliteDatabase, type SqliteDriverName, type SqliteStatement } from './sqlite-driver.js'

// The SQLite store's tables, their migrations, its prepared statements and the row → record mapping
// (src/store/sqlite.ts holds the store itself: the journal, the tails and the checkpoints).

export interface SessionRow {
  id: string
  agent: string
  owner: string
  created_at: number
  updated_at: number
  last_seq: number
  active_run_id: string | null
  state: string
  /** The last event `state` includes; null in rows an older version wrote (their state was always current). */
  state_seq: number | null
  messages: string
  queue: string
  forked_from: string | null
}

export const SCHEMA = `
-- A session's events, a block (a JSON array of consecutive seqs) per row. Rows go in commit order (rowid) and
-- event_blocks_key (made by data migration 3) finds a session's: blocks are 1-20 KB, and a table clustered on
-- (session_id, first_seq), as before version 3, inserted each at a random place with page splits and made
-- every lookup of a session without blocks read a leaf of block bodies (measured: 54 against 21 µs an insert of
-- a 2.8 KB block, 16 against 3 µs to find that a new session has none).
CREATE TABLE IF NOT EXISTS event_blocks (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  first_seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS journal (
  id INTEGER PRIMARY KEY,
  body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  owner TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  active_run_id TEXT,
  state TEXT NOT NULL,
  messages TEXT NOT NULL,
  queue TEXT NOT NULL DEFAULT '[]',
  forked_from TEXT,
  state_seq INTEGER
);
-- A session's history, one row per message: a turn appends its messages instead of rewriting the history
-- (sessions.messages, where an older version kept it whole, is '[]' once migrated).
CREATE TABLE IF NOT EXISTS messages (
  session_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (session_id, idx)
) WITHOUT ROWID;
-- Small JSON values beside the logs (StoreBackend.getRecord): a dialect's own index and settings.
CREATE TABLE IF NOT EXISTS records (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(updated_at);
CREATE INDEX IF NOT EXISTS sessions_owner ON sessions(owner);
`

/** Columns added since the first schema, for database files an older version made (each added once, in order). */
const MIGRATIONS: ReadonlyArray<[column: string, ddl: string]> = [
  ['queue', "ALTER TABLE sessions ADD COLUMN queue TEXT NOT NULL DEFAULT '[]'"],
  ['forked_from', 'ALTER TABLE sessions ADD COLUMN forked_from TEXT'],
  // The state is a snapshot as of this seq, the changes after it in the log (null: an older row, always current).
  ['state_seq', 'ALTER TABLE sessions ADD COLUMN state_seq INTEGER'],
]

/**
 * Data migrations, by the `user_version` they bring the file to (each runs once, in its own transaction), with
 * a query counting the rows it moves (told before and after, as it may take a while on a large file).
 */
const DATA_MIGRATIONS: ReadonlyArray<[version: number, sql: string, rows?: string]> = [
  // 1: histories move from the sessions.messages column (a JSON array) into the messages table.
  [
    1,
    `INSERT INTO messages (session_id, idx, body) SELECT s.id, CAST(j.key AS INTEGER), j.value FROM sessions s, json_each(s.messages) j WHERE s.messages != '[]';
     UPDATE sessions SET messages = '[]' WHERE messages != '[]';`,
    "SELECT COUNT(*) FROM sessions WHERE messages != '[]'",
  ],
  // 2: blocks this version writes omit each event's sessionId and repeated runIds (sqlite-blocks.ts); older
  // blocks stay as they are and read the same. Nothing moves: the version marks files an older reader must not open.
  [2, ''],
  // 3: event_blocks becomes a rowid table with an index on (session_id, first_seq) instead of a table clustered
  // on that key (see SCHEMA). Its rows are copied once, in key order; a new file copies nothing.
  [
    3,
    `CREATE TABLE event_blocks_v3 (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL, body TEXT NOT NULL);
     INSERT INTO event_blocks_v3 (session_id, first_seq, last_seq, body) SELECT session_id, first_seq, last_seq, body FROM event_blocks ORDER BY session_id, first_seq;
     DROP TABLE event_blocks;
     ALTER TABLE event_blocks_v3 RENAME TO event_blocks;
     CREATE UNIQUE INDEX event_blocks_key ON event_blocks(session_id, first_seq);`,
    'SELECT COUNT(*) FROM event_blocks',
  ],
]

/** The newest `user_version` this version knows; a file past it was written by a newer version and is refused. */
const SCHEMA_VERSION = DATA_MIGRATIONS[DATA_MIGRATIONS.length - 1]![0]

/**
 * Opens the database file (created if missing) in WAL mode with this version's tables, an older file migrated;
 * a file a newer version wrote is refused before anything is written to it. Closed again if any of it fails.
 * `onMigration` hears what a data migration moves, before and once it is done.
 */
export function openDatabase(
  file: string,
  synchronous: 'normal' | 'full',
  onMigration?: (message: string) => void,
  driver?: SqliteDriverName,
): SqliteDatabase {
  const db = openSqlite(file, { driver })
  try {
    const version = db.pragma('user_version') as number
    if (version > SCHEMA_VERSION) {
      throw new Error(
        `its data format is version ${version}, written by a newer Parlance; this one reads up to version ${SCHEMA_VERSION}: run that newer version (data is never downgraded)`,
      )
    }
    db.pragma('journal_mode = WAL')
    db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
    db.pragma('busy_timeout = 5000')
    db.exec(SCHEMA)
    migrate(db, version, onMigration)
    return db
  } catch (err) {
    db.close()
    throw err
  }
}

function migrate(db: SqliteDatabase, version: number, onMigration?: (message: string) => void): void {
  const have = new Set(
    db
      .prepare<[], { name: string }>('PRAGMA table_info(sessions)')
      .all()
      .map((c) => c.name),
  )
  for (const [column, ddl] of MIGRATIONS) if (!have.has(column)) db.exec(ddl)
  for (const [to, sql, rows] of DATA_MIGRATIONS) {
    if (version >= to) continue
    const n = rows && onMigration ? (db.prepareValue<[], number>(rows).get() ?? 0) : 0
    const tell = n > 0 ? onMigration : undefined
    const started = performance.now()
    tell?.(`upgrading the data to version ${to}: moving ${n.toLocaleString('en-US')} rows, once`)
    db.transaction(() => {
      db.exec(sql)
      db.pragma(`user_version = ${to}`)
    })()
    tell?.(`data version ${to}: ${n.toLocaleString('en-US')} rows moved in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  }
}

type Stmt<P extends unknown[], R = unknown> = SqliteStatement<P, R>

/** Every statement the store runs. */
export interface Statements {
  insertBlock: Stmt<[string, number, number, string]>
  selectLastSeq: Stmt<[string], number>
  insertJournal: Stmt<[string]>
  deleteJournal: Stmt<[number]>
  selectJournal: Stmt<[], { id: number; body: string }>
  upsertSession: Stmt<[string, string, string, number, number, number, string | null, number | null, number | null, number | null]>
  updateState: Stmt<[string, number, string]>
  deleteMessages: Stmt<[string, number]>
  insertMessage: Stmt<[string, number, string]>
  selectMessages: Stmt<[string], string>
  updateQueue: Stmt<[string, string]>
  updateForkedFrom: Stmt<[string, string]>
  selectBlockStart: Stmt<[string, number], number>
  selectBlocks: Stmt<[string, number], { first_seq: number; body: string }>
  selectSession: Stmt<[string], SessionRow>
  selectSessions: Stmt<[number], SessionRow>
  countOwned: Stmt<[string], number>
  sessionExists: Stmt<[string], number>
  selectUnfinished: Stmt<[number], { id: string; owner: string }>
}

/** Every statement the store runs, prepared once per database. */
export function prepareStatements(db: SqliteDatabase): Statements {
  const insertBlock = db.prepare<[string, number, number, string]>(
    'INSERT INTO event_blocks (session_id, first_seq, last_seq, body) VALUES (?, ?, ?, ?)',
  )
  const selectLastSeq = db.prepareValue<[string], number>('SELECT last_seq FROM event_blocks WHERE session_id = ? ORDER BY first_seq DESC LIMIT 1')
  const insertJournal = db.prepare<[string]>('INSERT INTO journal (body) VALUES (?)')
  const deleteJournal = db.prepare<[number]>('DELETE FROM journal WHERE id < ?')
  const selectJournal = db.prepare<[], { id: number; body: string }>('SELECT id, body FROM journal ORDER BY id')
  // The state seq twice: a new row's state '{}' is as of seq 0 unless told; an update keeps the row's unless told,
  // and a row an older version wrote (null: its state was written with every change) gets the log's last seq
  // before this write (the last parameter).
  const upsertSession = db.prepare<[string, string, string, number, number, number, string | null, number | null, number | null, number | null]>(
    `INSERT INTO sessions (id, agent, owner, created_at, updated_at, last_seq, active_run_id, state, messages, state_seq)
     VALUES (?, ?, ?, ?, ?, ?, ?, '{}', '[]', coalesce(?, 0))
     ON CONFLICT(id) DO UPDATE SET agent = excluded.agent, updated_at = excluded.updated_at,
       last_seq = excluded.last_seq, active_run_id = excluded.active_run_id, state_seq = coalesce(?, sessions.state_seq, ?)`,
  )
  const updateState = db.prepare<[string, number, string]>('UPDATE sessions SET state = ?, state_seq = ? WHERE id = ?')
  const deleteMessages = db.prepare<[string, number]>('DELETE FROM messages WHERE session_id = ? AND idx >= ?')
  const insertMessage = db.prepare<[string, number, string]>('INSERT INTO messages (session_id, idx, body) VALUES (?, ?, ?)')
  const selectMessages = db.prepareValue<[string], string>('SELECT body FROM messages WHERE session_id = ? ORDER BY idx')
  const updateQueue = db.prepare<[string, string]>('UPDATE sessions SET queue = ? WHERE id = ?')
  const updateForkedFrom = db.prepare<[string, string]>('UPDATE sessions SET forked_from = ? WHERE id = ?')
  const selectBlockStart = db.prepareValue<[string, number], number>(
    'SELECT first_seq FROM event_blocks WHERE session_id = ? AND first_seq <= ? ORDER BY first_seq DESC LIMIT 1',
  )
  const selectBlocks = db.prepare<[string, number], { first_seq: number; body: string }>(
    'SELECT first_seq, body FROM event_blocks WHERE session_id = ? AND first_seq >= ? ORDER BY first_seq',
  )
  const selectSession = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?')
  // A row's last_seq may lag its log (the store does not rewrite a record for lastSeq alone): listings take the log's.
  const selectSessions = db.prepare<[number], SessionRow>(
    `SELECT id, agent, owner, created_at, updated_at, active_run_id, forked_from,
       max(last_seq, coalesce((SELECT b.last_seq FROM event_blocks b WHERE b.session_id = sessions.id ORDER BY b.first_seq DESC LIMIT 1), 0)) AS last_seq
     FROM sessions ORDER BY updated_at DESC LIMIT ?`,
  )
  const countOwned = db.prepareValue<[string], number>('SELECT COUNT(*) FROM sessions WHERE owner = ?')
  const sessionExists = db.prepareValue<[string], number>('SELECT 1 FROM sessions WHERE id = ?')
  const selectUnfinished = db.prepare<[number], { id: string; owner: string }>(
    "SELECT id, owner FROM sessions WHERE active_run_id IS NOT NULL OR queue != '[]' LIMIT ?",
  )

  return {
    insertBlock,
    selectLastSeq,
    insertJournal,
    deleteJournal,
    selectJournal,
    upsertSession,
    updateState,
    deleteMessages,
    insertMessage,
    selectMessages,
    updateQueue,
    updateForkedFrom,
    selectBlockStart,
    selectBlocks,
    selectSession,
    selectSessions,
    countOwned,
    sessionExists,
    selectUnfinished,
  }
}

/** A sessions row and its history's rows as a record; `lastSeq` is the log's when it is ahead of the row's. */
export function recordOf(row: SessionRow, logLastSeq: number, messages: readonly string[]): SessionRecord {
  return {
    id: row.id,
    agent: row.agent,
    owner: row.owner,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastSeq: Math.max(row.last_seq, logLastSeq),
    activeRunId: row.active_run_id,
    state: JSON.parse(row.state) as SessionRecord['state'],
    stateSeq: row.state_seq ?? Math.max(row.last_seq, logLastSeq),
    messages: JSON.parse(`[${messages.join(',')}]`) as SessionRecord['messages'],
    queue: JSON.parse(row.queue) as SessionRecord['queue'],
    forkedFrom: row.forked_from ? (JSON.parse(row.forked_from) as ForkOrigin) : null,
  }
}

/**
 * `StoreBackend`'s records over the `records` table. Each write is its own statement (autocommit), so it is
 * durable when it returns, like a commit.
 */
export function sqliteRecords(db: SqliteDatabase): Pick<StoreBackend, 'getRecord' | 'putRecord' | 'listRecords'> {
  const select = db.prepareValue<[string, string], string>('SELECT value FROM records WHERE scope = ? AND key = ?')
  const upsert = db.prepare<[string, string, string]>(
    'INSERT INTO records (scope, key, value) VALUES (?, ?, ?) ON CONFLICT(scope, key) DO UPDATE SET value = excluded.value',
  )
  const remove = db.prepare<[string, string]>('DELETE FROM records WHERE scope = ? AND key = ?')
  const list = db.prepare<[string, string, number], { key: string; value: string }>(
    'SELECT key, value FROM records WHERE scope = ? AND key > ? ORDER BY key LIMIT ?',
  )
  return {
    async getRecord(scope, key) {
      const v = select.get(scope, key)
      return v === undefined ? undefined : (JSON.parse(v) as Json)
    },
    async putRecord(scope, key, value) {
      if (value === undefined) remove.run(scope, key)
      else upsert.run(scope, key, JSON.stringify(value))
    },
    async listRecords(scope, afterKey, limit) {
      return limit <= 0 ? [] : list.all(scope, afterKey, limit).map((r) => ({ key: r.key, value: JSON.parse(r.value) as Json }))
    },
  }
}
