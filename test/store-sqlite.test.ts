import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, test } from 'node:test'
import { createSqliteStore } from '../src/store/sqlite.js'
import { openSqlite } from '../src/store/sqlite-driver.js'
import { sqliteDrivers } from './support/sqlite-drivers.js'
import { ev, rec, runStoreContract } from './store-contract.js'
import { deferred, FlakyBackend } from './support/delegating-backend.js'
import { waitFor } from './support/wait.js'
import { say, setup } from '../src/session/fixtures/harness.js'
import { defineAgent } from '../src/agent-api/index.js'
import type { CommitUnit } from '../src/store/index.js'
import type { HistoryMessage, StoredEvent } from '../src/core/index.js'

const root = mkdtempSync(join(tmpdir(), 'parlance-sqlite-'))
after(() => rmSync(root, { recursive: true, force: true }))
let n = 0
const file = (): string => join(root, `db-${++n}`, 'parlance.db')

// Each driver this Node runs passes the contract; the tests below use the one chosen by default (or by PARLANCE_SQLITE_DRIVER).
for (const driver of sqliteDrivers) runStoreContract(`sqlite (${driver})`, () => Promise.resolve(createSqliteStore({ file: file(), driver })))

test('sqlite store: events and records survive closing and reopening the file', async () => {
  const path = file()
  const first = createSqliteStore({ file: path })
  const events = [ev('s1', 1), ev('s2', 1, { type: 'text.delta', messageId: 'm', delta: 'héllo 😀' }), ev('s1', 2)]
  await first.commit({
    events,
    sessions: [
      rec('s1', { lastSeq: 2, updatedAt: 2000, activeRunId: 'run_1', state: { a: [1] }, messages: [{ id: 'u', role: 'user', content: 'hi' }] }),
      rec('s2', { lastSeq: 1, updatedAt: 1500 }),
    ],
  })
  await first.close()

  const second = createSqliteStore({ file: path, synchronous: 'full' })
  try {
    assert.deepEqual(await second.readEvents('s1', 0, 10), [events[0], events[2]])
    assert.deepEqual(await second.readEvents('s2', 0, 10), [events[1]])
    const r = await second.getSession('s1')
    assert.deepEqual([r?.lastSeq, r?.activeRunId, r?.state, r?.messages], [2, 'run_1', { a: [1] }, [{ id: 'u', role: 'user', content: 'hi' }]])
    assert.deepEqual(
      (await second.listSessions(10)).map((x) => x.id),
      ['s1', 's2'],
    )
    // It continues where the first process stopped, and still refuses a seq it already has.
    await second.commit({ events: [ev('s1', 3)], sessions: [rec('s1', { lastSeq: 3, updatedAt: 3000 })] })
    assert.deepEqual(
      (await second.readEvents('s1', 0, 10)).map((e) => e.seq),
      [1, 2, 3],
    )
    await assert.rejects(second.commit({ events: [ev('s1', 3)], sessions: [] }), /seq gap in s1: 3 then 3/)
  } finally {
    await second.close()
  }
})

test('sqlite store: the per-owner session count, kept in memory once asked, counts sessions of an earlier process once and every new one', async () => {
  const path = file()
  const first = createSqliteStore({ file: path })
  await first.commit({ events: [], sessions: [rec('a1'), rec('b1', { owner: 'bob' })] })
  await first.close()

  const second = createSqliteStore({ file: path })
  try {
    assert.equal(await second.countSessions('alice'), 1)
    // a1 is not new, though this process never wrote it; a2 and a3 are; a failed unit counts nothing.
    await second.commit({ events: [], sessions: [rec('a1', { updatedAt: 5000 }), rec('a2')] })
    await assert.rejects(second.commit({ events: [ev('a3', 2)], sessions: [rec('a3')] }), /seq gap in a3: 0 then 2/)
    assert.equal(await second.countSessions('alice'), 2)
    await second.commit({ events: [], sessions: [rec('a3'), rec('b2', { owner: 'bob' })] })
    assert.equal(await second.countSessions('alice'), 3)
    assert.equal(await second.countSessions('bob'), 2)
  } finally {
    await second.close()
  }
  const third = createSqliteStore({ file: path })
  try {
    assert.equal(await third.countSessions('alice'), 3)
  } finally {
    await third.close()
  }
})

test('sqlite store: a file from before the messages table has its histories moved into it on open, once', async () => {
  const path = file()
  const first = createSqliteStore({ file: path })
  await first.commit({ events: [ev('s1', 1)], sessions: [rec('s1', { lastSeq: 1 }), rec('s2', { lastSeq: 0 })] })
  await first.close()
  // As an older version left it: the history whole in sessions.messages, no messages table, user_version 0.
  const old = openSqlite(path)
  const history: HistoryMessage[] = [
    { id: 'u1', role: 'user', content: 'hi "there"' },
    { id: 'a1', role: 'assistant', content: 'héllo 😀', toolCalls: [{ id: 'c1', name: 'search', arguments: '{"q":1}' }] },
  ]
  old.exec('DROP TABLE messages')
  old.prepare("UPDATE sessions SET messages = ? WHERE id = 's1'").run(JSON.stringify(history))
  old.pragma('user_version = 0')
  old.close()

  const second = createSqliteStore({ file: path })
  try {
    assert.deepEqual((await second.getSession('s1'))?.messages, history)
    assert.deepEqual((await second.getSession('s2'))?.messages, [])
    await second.commit({
      events: [],
      sessions: [rec('s1', { lastSeq: 1, messages: [...history, { id: 'u2', role: 'user', content: 'again' }], messagesKept: 2 })],
    })
  } finally {
    await second.close()
  }
  const check = openSqlite(path, { readonly: true })
  try {
    assert.equal(check.pragma('user_version'), 3, 'migrated to this version (1: the messages table, 2: compact blocks, 3: blocks by rowid)')
    assert.equal(check.prepareValue("SELECT messages FROM sessions WHERE id = 's1'").get(), '[]')
  } finally {
    check.close()
  }
  const third = createSqliteStore({ file: path })
  try {
    assert.deepEqual(
      (await third.getSession('s1'))?.messages.map((m) => m.id),
      ['u1', 'a1', 'u2'],
    )
  } finally {
    await third.close()
  }
})

test('sqlite store: a block holds each event without its session id and repeated run ids, and reads back whole; blocks an older version wrote read the same', async () => {
  const path = file()
  const s = createSqliteStore({ file: path, directEvents: 4 })
  // Run ids change within the block, and a session-level event (runId '') sits between two runs.
  const events = [
    ev('s1', 1),
    { ...ev('s1', 2), runId: 'run_2' },
    { ...ev('s1', 3), runId: '' },
    { ...ev('s1', 4), runId: 'run_2' },
    { ...ev('s1', 5), runId: 'run_2' },
  ]
  await s.commit({ events, sessions: [rec('s1', { lastSeq: 5 })] })
  await s.close()
  const db = openSqlite(path)
  try {
    const body = db.prepareValue<[], string>("SELECT body FROM event_blocks WHERE session_id = 's1'").get()!
    const stored = JSON.parse(body) as Array<Record<string, unknown>>
    assert.ok(
      stored.every((e) => !('sessionId' in e)),
      body,
    )
    assert.deepEqual(
      stored.map((e) => e.runId),
      ['run_1', 'run_2', '', 'run_2', undefined],
      'a run id is written where it changes',
    )
    // As an older version wrote a block: every event whole.
    db.prepare('INSERT INTO event_blocks (session_id, first_seq, last_seq, body) VALUES (?, ?, ?, ?)').run(
      's2',
      1,
      2,
      JSON.stringify([ev('s2', 1), { ...ev('s2', 2), runId: '' }]),
    )
    db.prepare(
      "INSERT INTO sessions (id, agent, owner, created_at, updated_at, last_seq, state, messages) VALUES ('s2', 'echo', 'alice', 1, 1, 2, '{}', '[]')",
    ).run()
  } finally {
    db.close()
  }
  const again = createSqliteStore({ file: path })
  try {
    assert.deepEqual(await again.readEvents('s1', 0, 10), events)
    assert.deepEqual(
      await again.readEvents('s1', 2, 2),
      events.slice(2, 4),
      'a page starting inside the block gets the run ids of the events before it',
    )
    assert.deepEqual(await again.readEvents('s2', 0, 10), [ev('s2', 1), { ...ev('s2', 2), runId: '' }])
  } finally {
    await again.close()
  }
})

test('sqlite store: a version 2 file (blocks clustered on session and seq) has its blocks moved into the rowid table on open, once, and reads the same', async () => {
  const path = file()
  // As version 2 left it: event_blocks WITHOUT ROWID keyed by (session_id, first_seq), user_version 2.
  mkdirSync(dirname(path), { recursive: true })
  const old = openSqlite(path)
  old.exec(`CREATE TABLE event_blocks (session_id TEXT NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (session_id, first_seq)) WITHOUT ROWID;
    CREATE TABLE sessions (id TEXT PRIMARY KEY, agent TEXT NOT NULL, owner TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, last_seq INTEGER NOT NULL, active_run_id TEXT, state TEXT NOT NULL, messages TEXT NOT NULL, queue TEXT NOT NULL DEFAULT '[]', forked_from TEXT);
    CREATE TABLE messages (session_id TEXT NOT NULL, idx INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (session_id, idx)) WITHOUT ROWID;`)
  const put = old.prepare('INSERT INTO event_blocks (session_id, first_seq, last_seq, body) VALUES (?, ?, ?, ?)')
  put.run('s2', 1, 2, JSON.stringify([ev('s2', 1), ev('s2', 2)]))
  put.run('s1', 3, 3, JSON.stringify([ev('s1', 3)]))
  put.run('s1', 1, 2, JSON.stringify([ev('s1', 1), ev('s1', 2)]))
  old
    .prepare(
      "INSERT INTO sessions (id, agent, owner, created_at, updated_at, last_seq, active_run_id, state, messages) VALUES ('s1', 'demo', 'anonymous', 1, 1, 3, NULL, '{}', '[]')",
    )
    .run()
  old.pragma('user_version = 2')
  old.close()

  const told: string[] = []
  const store = createSqliteStore({ file: path, onMigration: (m) => told.push(m) })
  try {
    assert.equal(told.length, 2, 'told before and after')
    assert.match(told[0]!, /upgrading the data to version 3: moving 3 rows, once/)
    assert.match(told[1]!, /data version 3: 3 rows moved in \d+\.\d s/)
    assert.deepEqual(
      (await store.readEvents('s1', 0, 10)).map((e) => e.seq),
      [1, 2, 3],
    )
    assert.deepEqual(
      (await store.readEvents('s1', 1, 10)).map((e) => e.seq),
      [2, 3],
      'a page starting inside a block',
    )
    assert.deepEqual(
      (await store.readEvents('s2', 0, 10)).map((e) => e.seq),
      [1, 2],
    )
    assert.equal((await store.getSession('s1'))?.lastSeq, 3)
    // The log continues where the moved blocks end, and a gap is still refused.
    await store.commit({ events: [ev('s1', 4)], sessions: [rec('s1', { lastSeq: 4 })] })
    await assert.rejects(store.commit({ events: [ev('s2', 4)], sessions: [] }), /seq gap in s2: 2 then 4/)
  } finally {
    await store.close()
  }
  const again: string[] = []
  await createSqliteStore({ file: path, onMigration: (m) => again.push(m) }).close()
  assert.deepEqual(again, [], 'nothing to move the second time')
  const check = openSqlite(path, { readonly: true })
  try {
    assert.equal(check.pragma('user_version'), 3)
    const sql = check.prepareValue<[], string>("SELECT sql FROM sqlite_master WHERE name = 'event_blocks'").get()!
    assert.doesNotMatch(sql, /WITHOUT ROWID/)
    assert.deepEqual(check.prepareValue("SELECT name FROM sqlite_master WHERE tbl_name = 'event_blocks' AND type = 'index'").all(), [
      'event_blocks_key',
    ])
    // A second (session, first seq) is refused by the index, as the old primary key refused it.
    const rw = openSqlite(path)
    try {
      assert.throws(
        () => rw.prepare("INSERT INTO event_blocks (session_id, first_seq, last_seq, body) VALUES ('s2', 1, 1, '[]')").run(),
        /UNIQUE constraint failed/,
      )
    } finally {
      rw.close()
    }
  } finally {
    check.close()
  }
})

test('sqlite store: a file a newer version wrote is refused with a clear error and left untouched', async () => {
  const path = file()
  await createSqliteStore({ file: path }).close()
  const db = openSqlite(path)
  db.pragma('user_version = 99')
  db.close()
  const size = statSync(path).size
  for (let i = 0; i < 2; i++) {
    // Twice: the first refusal released the data directory's lock.
    assert.throws(() => createSqliteStore({ file: path }), /data format is version 99, written by a newer Parlance; this one reads up to version 3/)
  }
  const check = openSqlite(path, { readonly: true })
  try {
    assert.equal(check.pragma('user_version'), 99)
  } finally {
    check.close()
  }
  assert.equal(statSync(path).size, size)
})

test('sqlite store: :memory: works as a throwaway database', async () => {
  const s = createSqliteStore({ file: ':memory:' })
  await s.commit({ events: [ev('s1', 1)], sessions: [rec('s1', { lastSeq: 1 })] })
  assert.equal((await s.readEvents('s1', 0, 10)).length, 1)
  await s.close()
})

test("sqlite store: commits every tick by default (a WAL append), and asks for a 2 ms commit window when synchronous 'full' fsyncs each commit", async () => {
  const normal = createSqliteStore({ file: ':memory:' })
  const full = createSqliteStore({ file: ':memory:', synchronous: 'full' })
  assert.equal(normal.commitWindowMs, undefined)
  assert.equal(full.commitWindowMs, 2)
  await normal.close()
  await full.close()
})

/** Rows of a table, read through a second connection (WAL lets it read while the store writes). */
function rows(path: string, table: 'journal' | 'event_blocks'): number {
  const db = openSqlite(path, { readonly: true })
  try {
    return db.prepareValue<[], number>(`SELECT COUNT(*) FROM ${table}`).get() ?? 0
  } finally {
    db.close()
  }
}

test("sqlite store: each commit is one journal row; a session's events move into its blocks once enough wait, and reads page across blocks and the journal", async () => {
  const path = file()
  const s = createSqliteStore({ file: path, compactEvents: 4, compactAfterMs: 60_000 })
  try {
    for (let seq = 1; seq <= 10; seq++) {
      await s.commit({ events: [ev('a', seq), ev('b', seq)], sessions: [rec('a', { lastSeq: seq }), rec('b', { lastSeq: seq })] })
    }
    // a and b reached 4 waiting events at commits 5 and 9: blocks [1–4], [5–8] each; 9 and 10 still journaled.
    assert.equal(rows(path, 'event_blocks'), 4)
    assert.equal(rows(path, 'journal'), 2, 'rows holding only compacted events are deleted')
    for (let after = 0; after <= 10; after++) {
      for (let limit = 1; limit <= 11; limit++) {
        const want = Array.from({ length: Math.min(limit, 10 - after) }, (_, i) => after + 1 + i)
        assert.deepEqual(
          (await s.readEvents('a', after, limit)).map((e) => e.seq),
          want,
          `after ${after}, limit ${limit}`,
        )
      }
    }
    await assert.rejects(s.commit({ events: [ev('a', 10)], sessions: [] }), /seq gap in a: 10 then 10/)
    await assert.rejects(s.commit({ events: [ev('a', 12)], sessions: [] }), /seq gap in a: 10 then 12/)
  } finally {
    await s.close()
  }
  assert.equal(rows(path, 'journal'), 0, 'close moves everything into blocks')
  const again = createSqliteStore({ file: path })
  try {
    assert.deepEqual(
      (await again.readEvents('a', 0, 100)).map((e) => e.seq),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    )
  } finally {
    await again.close()
  }
})

test('sqlite store: once commits stop, the tails they left are compacted without waiting for the next commit, a slice per macrotask', async () => {
  const path = file()
  // compactAfterMs leaves the three commits below time to finish before any tail is due, on a loaded machine too
  // (at 40 ms, a CI run under load saw 64 tails compacted by the commits themselves before the first check).
  const s = createSqliteStore({ file: path, compactAfterMs: 1_000, directEvents: 1000 })
  try {
    // 100 sessions with 3 journaled events each: more tails than one commit compacts (32).
    for (let seq = 1; seq <= 3; seq++) {
      const ids = Array.from({ length: 100 }, (_, i) => `q${i}`)
      await s.commit({ events: ids.map((id) => ev(id, seq)), sessions: ids.map((id) => rec(id, { lastSeq: seq })) })
    }
    assert.equal(rows(path, 'journal'), 3)
    assert.equal(rows(path, 'event_blocks'), 0)
    // Watched from the same phase the slices run in, so the event loop turns between them are seen.
    const seen = new Set<number>()
    const deadline = Date.now() + 5_000
    while (rows(path, 'journal') > 0 && Date.now() < deadline) {
      seen.add(rows(path, 'event_blocks'))
      await new Promise((r) => setImmediate(r))
    }
    assert.equal(rows(path, 'journal'), 0, 'every tail was compacted while no commit came')
    assert.equal(rows(path, 'event_blocks'), 100)
    assert.ok(
      [...seen].some((n) => n > 0 && n < 100),
      `the event loop ran between slices (block counts seen: ${[...seen].join(', ')})`,
    )
    assert.deepEqual(
      (await s.readEvents('q99', 0, 10)).map((e) => e.seq),
      [1, 2, 3],
    )
  } finally {
    await s.close()
  }
})

test('sqlite store: a session with compactEvents or more in one commit skips the journal (its events are written once, as a block, with its tail)', async () => {
  const path = file()
  const s = createSqliteStore({ file: path, compactEvents: 4, compactAfterMs: 60_000 })
  const many = (id: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ev(id, from + i))
  try {
    // a: 10 events in one unit (hot); b: 1 (journaled).
    await s.commit({ events: [...many('a', 1, 10), ev('b', 1)], sessions: [] })
    assert.equal(rows(path, 'event_blocks'), 1, "a's run is one block")
    assert.equal(rows(path, 'journal'), 1, "only b's event is journaled")
    // b waits with 2 in its tail, then 2 more: the tail and the run become one block; c appears in two runs of
    // one unit and goes the ordinary way (journaled) even though it has 4 events.
    await s.commit({ events: [ev('b', 2)], sessions: [] })
    await s.commit({ events: [ev('c', 1), ev('c', 2), ...many('b', 3, 4), ev('c', 3), ev('c', 4)], sessions: [] })
    assert.equal(rows(path, 'event_blocks'), 2)
    assert.deepEqual(
      (await s.readEvents('a', 0, 100)).map((e) => e.seq),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    )
    assert.deepEqual(
      (await s.readEvents('b', 0, 100)).map((e) => e.seq),
      [1, 2, 3, 4],
    )
    assert.deepEqual(
      (await s.readEvents('c', 1, 100)).map((e) => e.seq),
      [2, 3, 4],
    )
    await assert.rejects(s.commit({ events: many('a', 10, 14), sessions: [] }), /seq gap in a: 10 then 10/)
    await s.commit({ events: many('a', 11, 14), sessions: [] })
    assert.deepEqual(
      (await s.readEvents('a', 9, 100)).map((e) => e.seq),
      [10, 11, 12, 13, 14],
    )
  } finally {
    await s.close()
  }
  const again = createSqliteStore({ file: path })
  try {
    for (const [id, n] of [
      ['a', 14],
      ['b', 4],
      ['c', 4],
    ] as const) {
      assert.deepEqual(
        (await again.readEvents(id, 0, 100)).map((e) => e.seq),
        Array.from({ length: n }, (_, i) => i + 1),
      )
    }
  } finally {
    await again.close()
  }
})

test('sqlite store: a burst of directEvents in one commit (a short answer whole) skips the journal too; fewer are journaled', async () => {
  const path = file()
  const s = createSqliteStore({ file: path, compactEvents: 128, directEvents: 5, compactAfterMs: 60_000 })
  const many = (id: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ev(id, from + i))
  try {
    await s.commit({ events: [...many('a', 1, 5), ...many('b', 1, 4)], sessions: [] })
    assert.equal(rows(path, 'event_blocks'), 1, "a's burst is one block")
    assert.equal(rows(path, 'journal'), 1, "b's 4 events are journaled")
    // b's next burst goes into blocks with its tail; a continues after its block (the seq check knows where it ended).
    await s.commit({ events: [...many('b', 5, 9), ev('a', 6)], sessions: [] })
    assert.equal(rows(path, 'event_blocks'), 2)
    await assert.rejects(s.commit({ events: [ev('b', 9)], sessions: [] }), /seq gap in b: 9 then 9/)
    assert.deepEqual(
      (await s.readEvents('a', 0, 100)).map((e) => e.seq),
      [1, 2, 3, 4, 5, 6],
    )
    assert.deepEqual(
      (await s.readEvents('b', 3, 100)).map((e) => e.seq),
      [4, 5, 6, 7, 8, 9],
    )
  } finally {
    await s.close()
  }
  const again = createSqliteStore({ file: path })
  try {
    assert.deepEqual(
      (await again.readEvents('b', 0, 100)).map((e) => e.seq),
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    )
  } finally {
    await again.close()
  }
})

test('sqlite store: a whole state (state.snapshot) skips the journal, so it is serialized and written once, not again when its tail is compacted', async () => {
  const path = file()
  const s = createSqliteStore({ file: path, compactEvents: 128, directEvents: 16, compactAfterMs: 60_000 })
  const snapshot = ev('a', 2, { type: 'state.snapshot', snapshot: { items: { k0: { v: 0 } } } })
  try {
    await s.commit({ events: [ev('b', 1)], sessions: [] })
    await s.commit({ events: [ev('a', 1), snapshot, ev('a', 3)], sessions: [] })
    assert.equal(rows(path, 'event_blocks'), 1, "a's three events (the state among them) are one block")
    assert.equal(rows(path, 'journal'), 1, "only b's event is journaled")
    await s.commit({ events: [ev('a', 4)], sessions: [] })
    assert.deepEqual(
      (await s.readEvents('a', 0, 100)).map((e) => [e.seq, e.type]),
      [
        [1, 'custom'],
        [2, 'state.snapshot'],
        [3, 'custom'],
        [4, 'custom'],
      ],
    )
    assert.deepEqual((await s.readEvents('a', 1, 1))[0], snapshot)
  } finally {
    await s.close()
  }
})

test('sqlite store: committed events still in the journal survive kill -9, and the next process moves them into blocks', async () => {
  const path = file()
  // A process that commits 3 units for two sessions (nothing compacted yet), says so and waits to be killed.
  const script = `
    import { createSqliteStore } from ${JSON.stringify(new URL('../src/store/sqlite.ts', import.meta.url).href)}
    const s = createSqliteStore({ file: ${JSON.stringify(path)}, compactAfterMs: 600000 })
    const ev = (id, seq) => ({ type: 'custom', name: 'n', value: seq, sessionId: id, runId: 'r', seq, ts: seq })
    const rec = (id, lastSeq) => ({ id, agent: 'demo', owner: 'anonymous', createdAt: 1, updatedAt: 1, lastSeq, activeRunId: 'r' })
    for (let seq = 1; seq <= 3; seq++) await s.commit({ events: [ev('a', seq), ev('b', seq)], sessions: [rec('a', seq), rec('b', seq)] })
    process.stdout.write('committed\\n')
    setInterval(() => {}, 1000)
  `
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('committed') && resolve())
    child.once('exit', (code) => reject(new Error(`child exited ${code}`)))
  })
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))
  assert.equal(rows(path, 'journal'), 3)
  assert.equal(rows(path, 'event_blocks'), 0)

  const s = createSqliteStore({ file: path })
  try {
    assert.equal(rows(path, 'journal'), 0)
    assert.deepEqual(
      (await s.readEvents('a', 0, 10)).map((e) => e.seq),
      [1, 2, 3],
    )
    assert.deepEqual(
      (await s.readEvents('b', 1, 10)).map((e) => e.seq),
      [2, 3],
    )
    assert.equal((await s.getSession('a'))?.lastSeq, 3)
    await s.commit({ events: [ev('a', 4)], sessions: [rec('a', { lastSeq: 4 })] })
    assert.deepEqual(
      (await s.readEvents('a', 2, 10)).map((e) => e.seq),
      [3, 4],
    )
  } finally {
    await s.close()
  }
})

test("sqlite store: a record whose only change is lastSeq is not rewritten per commit, and readers still get the log's last seq", async () => {
  const path = file()
  const s = createSqliteStore({ file: path })
  try {
    await s.commit({ events: [ev('a', 1)], sessions: [rec('a', { lastSeq: 1, updatedAt: 1000 })] })
    await s.commit({ events: [ev('a', 2)], sessions: [rec('a', { lastSeq: 2, updatedAt: 1100 })] })
    const db = openSqlite(path, { readonly: true })
    try {
      assert.deepEqual(
        { ...db.prepare<[string], { last_seq: number; updated_at: number }>('SELECT last_seq, updated_at FROM sessions WHERE id = ?').get('a') },
        { last_seq: 1, updated_at: 1000 },
        'the row was not rewritten',
      )
    } finally {
      db.close()
    }
    assert.equal((await s.getSession('a'))?.lastSeq, 2)
    assert.equal((await s.listSessions(10))[0]?.lastSeq, 2)
    // A changed field (the run ended) or a second since the last write is written.
    await s.commit({ events: [ev('a', 3)], sessions: [rec('a', { lastSeq: 3, updatedAt: 1200, activeRunId: null })] })
    assert.equal((await s.getSession('a'))?.activeRunId, null)
    await s.commit({ events: [ev('a', 4)], sessions: [rec('a', { lastSeq: 4, updatedAt: 2300, activeRunId: null })] })
    assert.equal((await s.getSession('a'))?.updatedAt, 2300)
  } finally {
    await s.close()
  }
})

test('sqlite store: a database file from before the queue and forkedFrom columns opens, keeps its sessions, and takes them', async () => {
  const path = file()
  mkdirSync(dirname(path), { recursive: true })
  // The sessions table as the first release made it.
  const old = openSqlite(path)
  old.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, agent TEXT NOT NULL, owner TEXT NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, last_seq INTEGER NOT NULL, active_run_id TEXT, state TEXT NOT NULL, messages TEXT NOT NULL)`)
  old.prepare(`INSERT INTO sessions VALUES ('s1', 'echo', 'alice', 1000, 1000, 0, NULL, '{"a":1}', '[]')`).run()
  old.close()
  const store = createSqliteStore({ file: path })
  const r = await store.getSession('s1')
  assert.deepEqual([r?.state, r?.queue, r?.forkedFrom], [{ a: 1 }, [], null])
  await store.commit({ events: [], sessions: [rec('s1', { updatedAt: 5000, queue: [{ messageId: 'q', content: 'later' }] })] })
  assert.deepEqual((await store.getSession('s1'))?.queue, [{ messageId: 'q', content: 'later' }])
  await store.close()
  // Opening again does not add the columns twice.
  const again = createSqliteStore({ file: path })
  assert.deepEqual((await again.getSession('s1'))?.queue, [{ messageId: 'q', content: 'later' }])
  await again.close()
})

test('sqlite store: WAL pages are checkpointed by a worker thread, not by the commits on the event loop', async () => {
  const path = file()
  const errors: string[] = []
  const s = createSqliteStore({ file: path, onCheckpointError: (m) => errors.push(m) })
  try {
    // ~1,200 pages of WAL, over SQLite's automatic threshold (1,000 pages), which the store turned off for its
    // writer: only the worker (and the writer finishing after it) can have copied them into the database file.
    const big = 'x'.repeat(4000)
    for (let seq = 1; seq <= 600; seq++) {
      await s.commit({ events: [ev('s1', seq, { type: 'text.delta', messageId: 'm', delta: big })], sessions: [] })
    }
    const dbBytes = () => statSync(path).size
    await waitFor(() => dbBytes() >= 2_000_000, {
      what: 'the database file to hold the checkpointed pages (2 MB)',
      timeoutMs: 10_000,
      intervalMs: 50,
    })
    assert.deepEqual(errors, [])
    assert.equal((await s.readEvents('s1', 550, 100)).length, 50)
  } finally {
    await s.close()
  }
})

test('sqlite store: with checkpoint inline, the writer checkpoints by itself (SQLite default)', async () => {
  const path = file()
  const s = createSqliteStore({ file: path, checkpoint: 'inline' })
  try {
    const big = 'x'.repeat(4000)
    for (let seq = 1; seq <= 600; seq++) {
      await s.commit({ events: [ev('s1', seq, { type: 'text.delta', messageId: 'm', delta: big })], sessions: [] })
    }
    assert.ok(statSync(path).size >= 2_000_000, 'the commit that crossed 1,000 WAL pages copied them')
  } finally {
    await s.close()
  }
})

test('sqlite store: a turn writes only its new messages (messagesKept), also when its commit failed and was retried', async () => {
  const path = file()
  /** Message rows each commit wrote: messages past the kept prefix. */
  const written: number[] = []
  class Watching extends FlakyBackend {
    override commit(unit: CommitUnit): Promise<void> {
      if (!this.broken) for (const r of unit.sessions) if (r.messages) written.push(r.messages.length - (r.messagesKept ?? 0))
      return super.commit(unit)
    }
  }
  const backend = new Watching(createSqliteStore({ file: path }))
  // Answers `late` once the test opens the gate: its user message and its answer reach the store in different commits.
  const gate = deferred()
  const late = defineAgent({
    name: 'late',
    async run(ctx) {
      if (ctx.input.text === 'late') await gate.promise
      await ctx.say(`Echo: ${ctx.input.text}`)
    },
  })
  const s = setup([late], { backend })
  const { session, rec: seen } = await s.open()
  for (const text of ['one', 'two']) await seen.end(say(session, text))
  await s.store.flush()
  assert.equal(
    written.reduce((a, b) => a + b, 0),
    4,
    'four messages, each written once',
  )
  // Turn three's user message fails to commit; its answer comes while the retry waits, and both are written by
  // the retry once the disk is back: from the prefix the failed write would have kept, not the later one.
  backend.broken = true
  const third = say(session, 'late')
  const failedWith = (pred: (e: StoredEvent) => boolean) => backend.failed.some((u) => u.events.some(pred))
  await waitFor(() => failedWith((e) => e.type === 'message.user' && e.content === 'late'), {
    what: "the failed commit of turn three's user message",
  })
  gate.resolve()
  await waitFor(() => failedWith((e) => e.type === 'text.delta'), { what: 'the answer reaching the store while the retry waits' })
  backend.broken = false
  await seen.end(third)
  await s.store.flush()
  assert.deepEqual(
    (await backend.getSession(session.id))?.messages.map((m) => m.content),
    ['one', 'Echo: one', 'two', 'Echo: two', 'late', 'Echo: late'],
  )
  await backend.close()
  const again = createSqliteStore({ file: path })
  try {
    assert.equal((await again.getSession(session.id))?.messages.length, 6)
  } finally {
    await again.close()
  }
})
