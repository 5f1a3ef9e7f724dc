// A2A GetTask on a task of 10,000 events: the task is read back from its session's log (src/dialects/a2a/
// task-store.ts), so its cost is the fold of the run's events the first time, and of what came since after that.
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { TaskState } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import type { EventBody, StoredEvent } from '../src/core/index.js'
import { connectA2a } from '../src/client/index.js'
import { createServer, demoAgent } from '../src/index.js'
import { createMemoryStore, type StoreBackend } from '../src/store/index.js'
import { createSqliteStore } from '../src/store/sqlite.js'
import { machine, median, table, type BenchContext, type BenchResult, type Table } from './lib/result.js'

export const title = 'A2A GetTask from the log'

/** Writes a finished A2A task of `n` events (one run streaming n - 5 deltas) and its index record; returns its id. */
async function seed(backend: StoreBackend, n: number): Promise<string> {
  const taskId = randomUUID()
  const sessionId = `bench-${taskId}`
  const runId = `run_${taskId}`
  const bodies: EventBody[] = [
    { type: 'message.user', messageId: 'm1', content: `count ${n - 5}` },
    { type: 'run.started', agent: 'demo' },
    { type: 'text.start', messageId: 'a1' },
  ]
  for (let i = 1; i <= n - 5; i++) bodies.push({ type: 'text.delta', messageId: 'a1', delta: `${i} ` })
  bodies.push({ type: 'text.end', messageId: 'a1' }, { type: 'run.finished' })
  const now = Date.now()
  const events: StoredEvent[] = bodies.map((b, i) => ({ ...b, sessionId, runId, seq: i + 1, ts: now }))
  for (let i = 0; i < events.length; i += 2_000) {
    const page = events.slice(i, i + 2_000)
    await backend.commit({
      events: page,
      sessions: [{ id: sessionId, agent: 'demo', owner: 'anonymous', createdAt: now, updatedAt: now, lastSeq: page.at(-1)!.seq, activeRunId: null }],
    })
  }
  await backend.putRecord('a2a.task', taskId, {
    sessionId,
    agent: 'demo',
    owner: 'anonymous',
    messageId: 'm1',
    afterSeq: 0,
    clientMessageId: randomUUID(),
    createdAt: now,
  })
  return taskId
}

async function timed(c: Client, id: string): Promise<number> {
  const started = performance.now()
  const task = await c.getTask({ tenant: '', id, historyLength: undefined })
  const ms = performance.now() - started
  if (task.status?.state !== TaskState.TASK_STATE_COMPLETED) throw new Error(`task ${id} is not completed`)
  return ms
}

/** GetTask over a real socket with the official client: first reads (a fold of every event, each on its own task) and repeated reads. */
async function measure(backend: StoreBackend, n: number, reps: number): Promise<{ first: number[]; again: number[] }> {
  const ids: string[] = []
  for (let r = 0; r < reps + 1; r++) ids.push(await seed(backend, n))
  const server = await createServer({ agents: [demoAgent], store: backend, logger: false, heartbeatIntervalMs: 0 })
  try {
    const url = await server.listen(0, '127.0.0.1')
    const c = await connectA2a({ url })
    await timed(c, ids[0]!) // warm-up: JIT, connections
    const first: number[] = []
    const again: number[] = []
    for (const id of ids.slice(1)) {
      first.push(await timed(c, id))
      const repeated: number[] = []
      for (let i = 0; i < 20; i++) repeated.push(await timed(c, id))
      again.push(median(repeated))
    }
    return { first, again }
  } finally {
    await server.close()
  }
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const n = 10_000
  const tables: Table[] = []
  const rows: Array<[string, number[]]> = []
  for (const [name, make] of [
    ['memory', () => createMemoryStore()],
    ['SQLite', () => createSqliteStore({ file: join(ctx.tmp, `get-task-${randomUUID()}.db`) })],
  ] as const) {
    const small = await measure(make(), 10, ctx.reps)
    const big = await measure(make(), n, ctx.reps)
    ctx.log(
      `    ${name}: 10 events first ${median(small.first).toFixed(2)} ms; 10,000 events first ${median(big.first).toFixed(2)} ms, again ${median(big.again).toFixed(2)} ms`,
    )
    rows.push(
      [`${name}: task of 10 events, first GetTask`, small.first],
      [`${name}: task of 10,000 events, first GetTask`, big.first],
      [`${name}: task of 10,000 events, GetTask again`, big.again],
    )
  }
  tables.push(table(`GetTask, official client over HTTP (${n.toLocaleString('en-US')}-event task)`, 'ms', false, rows))
  const sqliteFirst = median(rows[4]![1])
  return {
    name: 'a2a-get-task',
    title,
    command: `npm run bench -- a2a-get-task${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { events: n, repetitions: ctx.reps },
    description:
      'A finished A2A task whose run is 10,000 events (9,995 text deltas) is written to the store with its index record, then read with `GetTask` by the `@a2a-js/sdk` client over HTTP on 127.0.0.1. ' +
      '"First": the first read of a task by this process (the index record, then every event of the run read and folded); "again": the median of 20 further reads of it (the fold is remembered; only events after it are read). A task of 10 events gives the floor of a request.',
    tables,
    targets: [
      {
        text: 'GetTask on a 10,000-event task stays reasonable (no number set)',
        measured: `SQLite first read ${sqliteFirst.toFixed(1)} ms`,
        met: null,
      },
    ],
    limits:
      "The first read is linear in the run's events (read in pages of 1,000 from the run's first seq, not from the session's start); later reads cost the artifact's size (the task object is built and serialized whole each time).",
    notes: [],
  }
}
