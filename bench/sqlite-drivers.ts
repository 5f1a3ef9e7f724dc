// SQLite drivers: the SQLite store over node:sqlite against the same store over better-sqlite3, in one process
// and one run (append through the shared group-commit writer, then reading every session back from the file).
// Each driver this Node runs is measured; the ratio needs both (Node 24 with better-sqlite3 built for it).
import { join } from 'node:path'
import type { StoredEvent } from '../src/core/index.js'
import { createSqliteStore } from '../src/store/sqlite.js'
import { sqliteDriver, type SqliteDriverName } from '../src/store/sqlite-driver.js'
import { append } from './store-append.js'
import { machine, rowOf, table, type BenchContext, type BenchResult, type Table } from './lib/result.js'

export const title = 'SQLite drivers: node:sqlite and better-sqlite3'

/** Events read per `readEvents` call, as the server's replay pages (`replayPageSize`). */
const PAGE = 5_000

const LABEL: Record<SqliteDriverName, string> = { 'better-sqlite3': 'better-sqlite3', node: 'node:sqlite' }

function runnable(d: SqliteDriverName): boolean {
  try {
    return sqliteDriver(d) === d
  } catch {
    return false
  }
}

/** Reads every event of `sessions` back, a page at a time, from a store opened anew on `file`; events/s. */
async function readBack(file: string, driver: SqliteDriverName, sessions: readonly string[], expected: number): Promise<number> {
  const store = createSqliteStore({ file, driver })
  try {
    let read = 0
    const started = performance.now()
    for (const id of sessions) {
      for (let after = 0; ;) {
        const page: StoredEvent[] = await store.readEvents(id, after, PAGE)
        if (page.length === 0) break
        read += page.length
        after = page[page.length - 1]!.seq
      }
    }
    const seconds = (performance.now() - started) / 1000
    if (read !== expected) throw new Error(`read ${read} of ${expected} events`)
    return read / seconds
  } finally {
    await store.close()
  }
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const drivers = (['better-sqlite3', 'node'] as const).filter(runnable)
  if (drivers.length === 0) throw new Error('no SQLite driver runs on this Node')
  const n = ctx.quick ? 50_000 : 500_000
  const sessions = 100
  const appendSamples: Record<string, number[]> = {}
  const readSamples: Record<string, number[]> = {}
  for (const d of drivers) {
    appendSamples[d] = []
    readSamples[d] = []
    // Warm-up: the JIT, and the file's first pages.
    const warm = createSqliteStore({ file: join(ctx.tmp, `warm-${d}.db`), driver: d })
    await append(warm, `warm-${d}`, 20_000, sessions)
    await warm.close()
  }
  // Interleaved: each repetition measures every driver, so machine load moves them alike.
  for (let r = 0; r < ctx.reps; r++) {
    for (const d of drivers) {
      const file = join(ctx.tmp, `${d}-${r}.db`)
      const store = createSqliteStore({ file, driver: d })
      try {
        appendSamples[d]!.push(await append(store, `s${r}`, n, sessions))
      } finally {
        await store.close()
      }
      const ids = Array.from({ length: sessions }, (_, i) => `s${r}-${i}`)
      readSamples[d]!.push(await readBack(file, d, ids, n))
      ctx.log(
        `    rep ${r + 1}/${ctx.reps}, ${LABEL[d]}: append ${Math.round(appendSamples[d]!.at(-1)!)} events/s, read back ${Math.round(readSamples[d]!.at(-1)!)} events/s`,
      )
    }
  }
  const rows = (s: Record<string, number[]>) => drivers.map((d) => [LABEL[d], s[d]!] as const)
  const tables: Table[] = [
    table(`append: ${n.toLocaleString('en-US')} events over ${sessions} sessions`, 'events/s', true, rows(appendSamples)),
    table(`read back: the same events, pages of ${PAGE.toLocaleString('en-US')}, from the file reopened`, 'events/s', true, rows(readSamples)),
  ]
  const both = drivers.length === 2
  const measured = both
    ? tables.map((t) => `${t.title.split(':')[0]} ${rowOf(t, 'node:sqlite').ratio.toFixed(2)}×`).join(', ') + ' better-sqlite3'
    : `only ${LABEL[drivers[0]!]} runs on Node ${process.versions.node}: no ratio`
  const met = both ? tables.every((t) => rowOf(t, 'node:sqlite').ratio >= 0.85) : null
  return {
    name: 'sqlite-drivers',
    title,
    command: `npm run bench -- sqlite-drivers${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { node: process.versions.node, events: n, sessions, pageSize: PAGE, repetitions: ctx.reps, drivers: drivers.join(', ') },
    description:
      'In one process, the SQLite store (WAL, synchronous=normal, checkpoints in a worker) over each driver: `EventStore.append` of `text.delta` events ' +
      `round-robin over ${sessions} sessions until all are committed (as in "Store append"), then the store is closed, opened anew on the same file and ` +
      `every session read back with \`readEvents\` pages of ${PAGE.toLocaleString('en-US')} (what a replay does). Repetitions interleave the drivers. Baseline: better-sqlite3.`,
    tables,
    targets: [{ text: 'node:sqlite within 15 % of better-sqlite3 (issue 45)', measured, met }],
    limits:
      'Both drivers run the same SQLite C library code paths; what differs is the binding: how a statement call crosses into C++ and how rows become JS values. ' +
      "node:sqlite has no pluck(), so the store's single-column queries read rows as arrays and unwrap the value; it has no transaction helper, so BEGIN and COMMIT are prepared statements run around each commit unit. " +
      'better-sqlite3 bundles its own SQLite build; node:sqlite uses the one built into Node (versions differ).',
    notes: [],
  }
}
