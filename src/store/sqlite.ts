import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { StoredEvent } from '../core/index.js'
import { lockFile } from './file-lock.js'
import { OwnerCounts } from './sqlite-owners.js'
import { decodeBlock } from './sqlite-blocks.js'
import { recoverJournal, writeBlocks } from './sqlite-journal.js'
import { checkpointInBackground, type Checkpointer } from './sqlite-checkpointer.js'
import { openDatabase, prepareStatements, recordOf, sqliteRecords } from './sqlite-schema.js'
import type { SqliteStoreOptions } from './sqlite-options.js'
import type { SqliteDatabase } from './sqlite-driver.js'
import { COSTLY_COMMIT_WINDOW_MS, type CommitUnit, type ForkOrigin, type SessionSummary, type SessionWrite, type StoreBackend } from './types.js'
export type { SqliteStoreOptions }

/**
 * A session's committed events not yet in its blocks (they are in the journal). Kept as the objects, not
 * the JSON the journal made of them: per-event strings are larger than the objects (whose ids are shared
 * strings), and holding them cost more GC than the second stringify at compaction saves (measured: +5 % CPU
 * per token at 1,000 paced sessions).
 */
interface Tail {
  /** Consecutive seqs (checked on write). */
  events: StoredEvent[]
  /** Journal row of the oldest of them. */
  firstJournal: number
  /** When the oldest was committed (ms). */
  since: number
}

/** What this process last wrote of a session's record. */
interface Written {
  agent: string
  owner: string
  createdAt: number
  activeRunId: string | null
  updatedAt: number
}

/** A record whose only changes are `lastSeq` (the log has it) and an `updatedAt` this recent is not rewritten (ms). */
const RECORD_REFRESH_MS = 1_000
/** Records remembered for that comparison; past it the memory starts over (and records are written again). */
const MAX_REMEMBERED = 50_000
/** WAL size (pages) from which the writer finishes a background checkpoint, so the WAL starts over (SQLite checkpoints at 1,000). */
const WAL_RESTART_PAGES = 1_000
/** Journaled events kept in memory in all; past it every tail is compacted at the next commit. */
const MAX_TAIL_EVENTS = 200_000
/**
 * Tails compacted by one commit at most: sessions started together come due together, and compacting all of
 * them in one commit stalled every stream for tens of ms (p99 token delay 30 ms at 400 sessions); spread over
 * the next commits, each commit stays short.
 */
const MAX_COMPACT_PER_COMMIT = 32
/** A commit of no events: compacts what is due. */
const NOTHING: CommitUnit = { events: [], sessions: [] }

/**
 * SQLite backend (WAL, over node:sqlite or better-sqlite3: sqlite-driver.ts), written for many sessions streaming at once.
 *
 * A commit unit (one event-loop tick, or one commit window, of every session) is one transaction that appends
 * ONE journal row holding all its events: an append at the end of one B-tree, a few pages whatever the number
 * of sessions. Writing each session's events into its own place in the log instead touches one page per
 * session per commit, and in WAL mode each touched page is written again at every commit and checkpoint: with
 * 400 sessions streaming tokens that cost ~37 µs per event, the append ~3 µs (measured here; see
 * BENCHMARKS.md "Paced token streams"). Each session's journaled events are kept in memory (its tail) and
 * moved into its blocks — rows of a JSON array keyed by (session, first seq), what reads page through — in a
 * later commit's transaction once `compactEvents` wait or the oldest is `compactAfterMs` old; journal rows
 * whose events are all in blocks are then deleted. A session with many events in one commit (a burst of
 * `directEvents`, or a busy stream reaching `compactEvents` with its tail) fills its own pages anyway: it skips
 * the journal and goes straight into its blocks. Reads see blocks, then the tail. On open, a journal left
 * by a crash is moved into blocks before anything else, so kill -9 loses nothing that was committed.
 *
 * The process holding the data directory's lock is its only writer, which makes the in-memory tails, last
 * seqs and remembered records authoritative. Seq continuity is checked on write, as the memory store does.
 */
export function createSqliteStore(options: SqliteStoreOptions): StoreBackend {
  let unlock = () => {}
  if (options.file !== ':memory:') {
    mkdirSync(dirname(options.file), { recursive: true })
    unlock = lockFile(options.file, `the data directory ${dirname(options.file)} (${options.file})`)
  }
  let db: SqliteDatabase
  try {
    db = openDatabase(options.file, options.synchronous ?? 'normal', options.onMigration, options.driver)
  } catch (err) {
    unlock()
    throw new Error(`cannot open the SQLite database ${options.file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  }
  const compactEvents = options.compactEvents ?? 128
  const compactAfterMs = options.compactAfterMs ?? 2_000
  const directEvents = Math.min(options.directEvents ?? 16, compactEvents)

  const st = prepareStatements(db)
  /** The block a page ended in, parsed: the next page of a replay starts there without parsing it again. */
  let lastBlock: { sessionId: string; firstSeq: number; events: StoredEvent[] } | null = null

  /** In creation order, which is ascending `firstJournal` (a tail is created by the commit of its first event). */
  const tails = new Map<string, Tail>()
  let tailEvents = 0
  /** Sessions whose tail holds `compactEvents` or more: due for compaction whatever their age. */
  const full = new Set<string>()
  const written = new Map<string, Written>()
  const owned = new OwnerCounts(
    (owner) => st.countOwned.get(owner) ?? 0,
    (id) => st.sessionExists.get(id) !== undefined,
    MAX_REMEMBERED,
  )
  /** Last seq of sessions whose events are all in blocks (their tail was compacted), so checking a commit needs no query. */
  const blockedLast = new Map<string, number>()

  /** Last committed seq of a session: its tail, else its blocks. */
  const lastSeqOf = (sid: string): number => {
    const t = tails.get(sid)
    return t ? t.events[t.events.length - 1]!.seq : (blockedLast.get(sid) ?? st.selectLastSeq.get(sid) ?? 0)
  }

  /**
   * Checks that each session's events continue its log, and finds the hot ones: a session with `directEvents`
   * in this unit (a burst), or whose events with its tail reach `compactEvents` (one busy stream), or with a whole
   * state (`state.snapshot`: as large as the state, up to `maxStateBytes`), skips the journal, its tail and these
   * events going into blocks now, so they are serialized and written once instead of twice. (Journaled, a 1.3 MB
   * state was serialized and written again when its tail was compacted, a later commit: 55 ms of one tick, in the
   * middle of the patches that followed it.) Returns those runs [session, from, to) of `events`, or null. A unit
   * holds each session's events together (the group commit appends them so): one lookup per run; a session in two
   * runs goes the ordinary way.
   */
  function checkUnit(events: readonly StoredEvent[]): Array<[sid: string, from: number, to: number]> | null {
    const seen = new Map<string, number>()
    let hot: Array<[string, number, number]> | null = null
    let i = 0
    while (i < events.length) {
      const sid = events[i]!.sessionId
      const again = seen.get(sid)
      let last = again ?? lastSeqOf(sid)
      let whole = false
      let j = i
      for (; j < events.length && events[j]!.sessionId === sid; j++) {
        if (events[j]!.seq !== last + 1) throw new Error(`seq gap in ${sid}: ${last} then ${events[j]!.seq}`)
        last = events[j]!.seq
        if (events[j]!.type === 'state.snapshot') whole = true
      }
      seen.set(sid, last)
      if (again === undefined && (whole || j - i >= directEvents || (tails.get(sid)?.events.length ?? 0) + (j - i) >= compactEvents))
        (hot ??= []).push([sid, i, j])
      else if (again !== undefined && hot) hot = hot.filter((h) => h[0] !== sid)
      i = j
    }
    return hot?.length ? hot : null
  }

  /**
   * One transaction: appends `journal` (the unit's events but the hot runs') to the journal, writes the
   * records that changed and the `blocks` (compacted tails, hot runs with their tails); then journal rows below
   * `floor` (the oldest row a remaining tail needs; Infinity: none) and below this unit's own row hold only
   * compacted events and are deleted. Returns the unit's journal id (0: nothing journaled).
   */
  const writeUnit = db.transaction(
    (
      unit: CommitUnit,
      journal: readonly StoredEvent[],
      records: SessionWrite[],
      created: string[],
      blocks: ReadonlyMap<string, readonly StoredEvent[]>,
      floor: number,
    ): number => {
      const journalId = journal.length ? Number(st.insertJournal.run(JSON.stringify(journal)).lastInsertRowid) : 0
      for (const r of unit.sessions) {
        const w = written.get(r.id)
        if (w === undefined) owned.creates(r.id, r.owner, created)
        const unchanged =
          w !== undefined &&
          w.agent === r.agent &&
          w.owner === r.owner &&
          w.createdAt === r.createdAt &&
          w.activeRunId === r.activeRunId &&
          r.updatedAt - w.updatedAt < RECORD_REFRESH_MS
        if (!unchanged) {
          // A row this process has not written may be an older version's (state_seq null): see upsertSession.
          const seq = r.stateSeq ?? null
          const older = w === undefined && seq === null ? lastSeqOf(r.id) : null
          st.upsertSession.run(r.id, r.agent, r.owner, r.createdAt, r.updatedAt, r.lastSeq, r.activeRunId, seq, seq, older)
          records.push(r)
        }
        const state = r.stateJson ?? (r.state !== undefined ? JSON.stringify(r.state) : undefined)
        if (state !== undefined) st.updateState.run(state, r.stateSeq ?? r.lastSeq, r.id)
        if (r.messages !== undefined) {
          // Only what changed: the history past the entries this session's earlier writes stored unchanged.
          const kept = Math.min(r.messagesKept ?? 0, r.messages.length)
          st.deleteMessages.run(r.id, kept)
          for (let i = kept; i < r.messages.length; i++) st.insertMessage.run(r.id, i, JSON.stringify(r.messages[i]))
        }
        if (r.queue !== undefined) st.updateQueue.run(JSON.stringify(r.queue), r.id)
        if (r.forkedFrom !== undefined) st.updateForkedFrom.run(JSON.stringify(r.forkedFrom), r.id)
      }
      if (blocks.size === 0) return journalId
      for (const [sid, list] of blocks) writeBlocks(st, sid, list)
      st.deleteJournal.run(Math.min(floor, journalId || Number.MAX_SAFE_INTEGER))
      return journalId
    },
  )

  /** Commits a unit; only once it is durable does memory (tails, records) change. */
  function commitUnit(unit: CommitUnit): void {
    const now = Date.now()
    const events = unit.events
    const hot = checkUnit(events)
    const blocks = dueTails(now)
    let journal: readonly StoredEvent[] = events
    if (hot) {
      // A hot session's run goes into blocks with its tail (a compaction), the rest of the unit to the journal.
      const rest: StoredEvent[] = []
      let at = 0
      for (const [sid, from, to] of hot) {
        for (let i = at; i < from; i++) rest.push(events[i]!)
        at = to
        const run = from === 0 && to === events.length ? events : events.slice(from, to)
        const t = tails.get(sid)
        blocks.set(sid, t ? t.events.concat(run) : run)
      }
      for (let i = at; i < events.length; i++) rest.push(events[i]!)
      journal = rest
    }
    // Journal rows below the oldest tail left hold only compacted events. Tails are in ascending firstJournal
    // order and the compacted ones are mostly a prefix, so this stops after a few.
    let floor = Infinity
    if (blocks.size) {
      for (const [sid, t] of tails) {
        if (blocks.has(sid)) continue
        floor = t.firstJournal
        break
      }
    }
    const records: SessionWrite[] = []
    const created: string[] = []
    const journalId = writeUnit(unit, journal, records, created, blocks, floor)
    owned.created(created)
    if (blockedLast.size > MAX_REMEMBERED) blockedLast.clear()
    for (const [sid, list] of blocks) {
      blockedLast.set(sid, list[list.length - 1]!.seq)
      const t = tails.get(sid)
      if (!t) continue
      tailEvents -= t.events.length
      tails.delete(sid)
      full.delete(sid)
    }
    if (written.size > MAX_REMEMBERED) written.clear()
    for (const r of records)
      written.set(r.id, { agent: r.agent, owner: r.owner, createdAt: r.createdAt, activeRunId: r.activeRunId, updatedAt: r.updatedAt })
    let t: Tail | undefined
    for (let i = 0; i < journal.length; i++) {
      const sid = journal[i]!.sessionId
      if (i === 0 || sid !== journal[i - 1]!.sessionId) {
        t = tails.get(sid)
        if (!t) tails.set(sid, (t = { events: [], firstJournal: journalId, since: now }))
      }
      t!.events.push(journal[i]!)
      if (t!.events.length === compactEvents) full.add(sid)
    }
    tailEvents += journal.length
  }

  /**
   * The tails this commit compacts, with their events: every one while the tails hold too much in all; else at
   * most MAX_COMPACT_PER_COMMIT, full ones first, then the oldest past `compactAfterMs` (a prefix of the map).
   */
  function dueTails(now: number): Map<string, readonly StoredEvent[]> {
    const out = new Map<string, readonly StoredEvent[]>()
    const all = tailEvents > MAX_TAIL_EVENTS
    for (const sid of full) {
      if (!all && out.size >= MAX_COMPACT_PER_COMMIT) return out
      out.set(sid, tails.get(sid)!.events)
    }
    for (const [sid, t] of tails) {
      if (!all && (out.size >= MAX_COMPACT_PER_COMMIT || now - t.since < compactAfterMs)) break
      out.set(sid, t.events)
    }
    return out
  }

  /** Moves every tail into blocks and empties the journal (on close). */
  function compactAll(): void {
    if (tails.size === 0) return
    db.transaction(() => {
      for (const [sid, t] of tails) writeBlocks(st, sid, t.events)
      st.deleteJournal.run(Number.MAX_SAFE_INTEGER)
    })()
    tails.clear()
    full.clear()
    tailEvents = 0
  }

  try {
    recoverJournal(db, st)
  } catch (err) {
    db.close()
    unlock()
    throw new Error(`cannot recover the journal of ${options.file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  }

  let checkpointer: Checkpointer | null =
    options.file !== ':memory:' && (options.checkpoint ?? 'worker') === 'worker'
      ? checkpointInBackground(db, options.file, WAL_RESTART_PAGES, options.onCheckpointError)
      : null

  /**
   * Tails are compacted by commits; when commits stop (a burst of streams ended), what they left would stay in
   * memory and in the journal until the next burst, whose first commits would then each compact
   * MAX_COMPACT_PER_COMMIT of them (measured at 400 sessions: a dozen commits in a row of ~1,350 block events
   * each, 3–15 ms apiece, as the next burst's streams start). So once commits have stopped for
   * `compactAfterMs`, the tails are compacted now, one commit's share per macrotask, stopping as soon as a
   * commit comes. A failure leaves them where they were (journal and memory); a later commit retries.
   */
  let commits = 0
  const quiet = setTimeout(function compactQuiet(seen = commits): void {
    if (!db.open || tails.size === 0 || commits !== seen) return
    const before = tails.size
    try {
      commitUnit(NOTHING)
    } catch {
      return
    }
    // None due yet (the wall clock is behind the timer's): wait again rather than spin.
    if (tails.size === 0) return
    if (tails.size < before) setImmediate(compactQuiet, seen)
    else quiet.refresh()
  }, compactAfterMs).unref()

  return {
    kind: 'sqlite',
    // With WAL and synchronous NORMAL a commit is an append to the WAL file, cheap enough for every tick; FULL fsyncs it.
    ...(options.synchronous === 'full' ? { commitWindowMs: COSTLY_COMMIT_WINDOW_MS } : {}),
    async commit(unit) {
      commitUnit(unit)
      commits++
      if (tails.size > 0) quiet.refresh()
    },
    async readEvents(sessionId, afterSeq, limit) {
      const out: StoredEvent[] = []
      if (limit <= 0) return out
      const from = st.selectBlockStart.get(sessionId, afterSeq + 1) ?? 0
      // iterate() materializes one block at a time, so a page parses only the blocks it returns.
      for (const b of st.selectBlocks.iterate(sessionId, from)) {
        const cached = lastBlock !== null && lastBlock.sessionId === sessionId && lastBlock.firstSeq === b.first_seq
        const events = cached ? lastBlock!.events : decodeBlock(b.body, sessionId)
        for (let i = Math.max(0, afterSeq + 1 - b.first_seq); i < events.length; i++) {
          out.push(events[i]!)
          if (out.length >= limit) {
            if (i < events.length - 1) lastBlock = { sessionId, firstSeq: b.first_seq, events }
            return out
          }
        }
      }
      const tail = tails.get(sessionId)
      if (tail) {
        const after = out.length ? out[out.length - 1]!.seq : afterSeq
        for (let i = Math.max(0, after + 1 - tail.events[0]!.seq); i < tail.events.length && out.length < limit; i++) out.push(tail.events[i]!)
      }
      return out
    },
    async getSession(id) {
      const row = st.selectSession.get(id)
      return row ? recordOf(row, lastSeqOf(id), st.selectMessages.all(id)) : undefined
    },
    async listSessions(limit) {
      return st.selectSessions.all(limit).map((row): SessionSummary => ({
        id: row.id,
        agent: row.agent,
        owner: row.owner,
        lastSeq: Math.max(row.last_seq, tails.has(row.id) ? lastSeqOf(row.id) : 0),
        updatedAt: row.updated_at,
        activeRunId: row.active_run_id,
        ...(row.forked_from ? { forkedFrom: JSON.parse(row.forked_from) as ForkOrigin } : {}),
      }))
    },
    async unfinished(limit) {
      // Plain objects: node:sqlite's rows have a null prototype.
      return st.selectUnfinished.all(limit).map((r) => ({ id: r.id, owner: r.owner }))
    },
    ...sqliteRecords(db),
    async countSessions(owner) {
      return owned.get(owner)
    },
    async ping() {
      return db.open
    },
    async close() {
      clearTimeout(quiet)
      const stopping = checkpointer
      checkpointer = null
      await stopping?.stop()
      try {
        if (db.open) compactAll()
      } finally {
        if (db.open) db.close()
        unlock()
      }
    },
  }
}
