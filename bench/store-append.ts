// (6) Store append, in-process: events/s through the shared group-commit writer (EventStore) into SQLite
// (WAL, synchronous=normal, one transaction per tick) against the memory store. Interleaved repetitions.
import { join } from 'node:path'
import { newId, type SessionId, type StoredEvent } from '../src/core/index.js'
import { EventStore, createMemoryStore, type CommitListener, type StoreBackend } from '../src/store/index.js'
import { createSqliteStore } from '../src/store/sqlite.js'
import { machine, rowOf, table, type BenchContext, type BenchResult } from './lib/result.js'

export const title = 'Store append'

/** Appends `n` text.delta events round-robin over `sessions` sessions, as fast as the writer admits them. */
export async function append(backend: StoreBackend, tag: string, n: number, sessions: number): Promise<number> {
  const store = new EventStore(backend)
  let committed = 0
  const listeners = Array.from({ length: sessions }, (_, i): CommitListener & { id: SessionId; seq: number; runId: string; messageId: string } => {
    const id = `${tag}-${i}` as SessionId
    const now = Date.now()
    const l = {
      id,
      seq: 0,
      // Ids as a run makes them (36 characters), so each event is as large as a real token's.
      runId: newId('run'),
      messageId: newId('msg'),
      onCommitted: (events: StoredEvent[]) => void (committed += events.length),
      record: () => ({ id, agent: 'demo', owner: 'anonymous', createdAt: now, updatedAt: Date.now(), lastSeq: l.seq, activeRunId: 'run_1' }),
    }
    return l
  })
  const started = performance.now()
  for (let i = 1; i <= n; i++) {
    const l = listeners[i % sessions]!
    const event = {
      type: 'text.delta',
      messageId: l.messageId,
      delta: `${i} `,
      sessionId: l.id,
      runId: l.runId,
      seq: ++l.seq,
      ts: Date.now(),
    } as StoredEvent
    if (store.append(l, event)) await store.drained(l)
  }
  await store.flush()
  const seconds = (performance.now() - started) / 1000
  if (committed !== n) throw new Error(`committed ${committed} of ${n}`)
  return n / seconds
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const n = ctx.quick ? 50_000 : 500_000
  const memory = createMemoryStore()
  const sqlite = createSqliteStore({ file: join(ctx.tmp, 'append.db') })
  const sqliteFull = createSqliteStore({ file: join(ctx.tmp, 'append-full.db'), synchronous: 'full' })
  const tables = []
  try {
    for (const sessions of [1, 100]) {
      const s: Record<string, number[]> = { memory: [], sqlite: [], full: [] }
      await append(memory, `warm-${sessions}`, 20_000, sessions)
      await append(sqlite, `warm-${sessions}`, 20_000, sessions)
      for (let r = 0; r < ctx.reps; r++) {
        s.memory!.push(await append(memory, `m${sessions}-${r}`, n, sessions))
        s.sqlite!.push(await append(sqlite, `s${sessions}-${r}`, n, sessions))
        s.full!.push(await append(sqliteFull, `f${sessions}-${r}`, n, sessions))
        ctx.log(
          `    rep ${r + 1}/${ctx.reps}, ${sessions} session(s): memory ${Math.round(s.memory!.at(-1)!)}, sqlite ${Math.round(s.sqlite!.at(-1)!)}, sqlite full ${Math.round(s.full!.at(-1)!)} events/s`,
        )
      }
      tables.push(
        table(`${n.toLocaleString('en-US')} events over ${sessions} session${sessions > 1 ? 's' : ''}`, 'events/s', true, [
          ['memory store', s.memory!],
          ['SQLite WAL, synchronous=normal (default)', s.sqlite!],
          ['SQLite WAL, synchronous=full', s.full!],
        ]),
      )
    }
  } finally {
    await memory.close()
    await sqlite.close()
    await sqliteFull.close()
  }
  const one = rowOf(tables[0]!, 'SQLite WAL, synchronous=normal (default)')
  return {
    name: 'store-append',
    title,
    command: `npm run bench -- store-append${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { events: n, repetitions: ctx.reps },
    description:
      'In one process: `EventStore.append` of `text.delta` events (awaiting `drained()` whenever the writer asks, at 256 pending), then `flush()`; events/s until every event is committed and its listener told. ' +
      'The EventStore batches everything appended in one tick into one backend commit. Baseline: the same writer over the memory store.',
    tables,
    targets: [
      {
        text: 'no number in issue 10 (durable vs memory)',
        measured: `SQLite ${one.ratio.toFixed(2)}× memory, ${Math.round(one.median).toLocaleString('en-US')} events/s`,
        met: null,
      },
    ],
    limits:
      "CPU of the one thread: SQLite appends each commit's events as one journal row (one `JSON.stringify` of the batch and one INSERT), and later moves each session's events into its blocks (a second stringify, without the session id and repeated run ids, and one INSERT per block); a session with 128 events in one commit goes straight into a block. The session record is upserted when more than its last seq changed. " +
      'with synchronous=normal the WAL is not fsynced per commit (survives a process crash, not power loss); synchronous=full adds an fsync per commit, i.e. per tick, not per event.',
    notes: [],
  }
}
