// (5) Replay: a HAI client attaching with `?session_id=X&after=0` to a session of ~100,000 stored events
// (SQLite, after a server restart so nothing is in memory) receives them all; events/s against the live
// stream rate of the same sessions measured when they were written.
import { join } from 'node:path'
import { runLoad, withServer } from './lib/proc.js'
import { machine, rowOf, table, type BenchContext, type BenchResult } from './lib/result.js'

export const title = 'Replay from SQLite'

interface Seeded {
  eventsPerSecond: number
  lastSeq: number
  frames: number
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const n = ctx.quick ? 20_000 : 100_000
  const data = join(ctx.tmp, 'replay')
  const server = { script: 'bench/servers/parlance.ts', args: ['--store', 'sqlite', '--data', data] }
  const sessions = Array.from({ length: ctx.reps }, (_, i) => `replay-${i}`)
  const seeded: Seeded[] = []
  await withServer(server.script, server.args, async (s) => {
    for (const id of sessions) {
      seeded.push(await runLoad<Seeded>('bench/load/replay.ts', ['seed', `ws://127.0.0.1:${s.port}`, id, String(n)]))
      ctx.log(`    live ${id}: ${Math.round(seeded.at(-1)!.eventsPerSecond).toLocaleString('en-US')} events/s, last seq ${seeded.at(-1)!.lastSeq}`)
    }
  })
  // A new process on the same database: the replay reads the store, not a warm session in memory.
  const replayed: Array<{ eventsPerSecond: number; frames: number }> = []
  await withServer(server.script, server.args, async (s) => {
    for (const [i, id] of sessions.entries()) {
      replayed.push(await runLoad('bench/load/replay.ts', ['replay', `ws://127.0.0.1:${s.port}`, id, String(seeded[i]!.lastSeq)]))
      ctx.log(`    replay ${id}: ${Math.round(replayed.at(-1)!.eventsPerSecond).toLocaleString('en-US')} events/s, ${replayed.at(-1)!.frames} frames`)
    }
  })
  const t = table(`~${n.toLocaleString('en-US')} stored events per session`, 'events/s', true, [
    ['live stream (same sessions, SQLite)', seeded.map((x) => x.eventsPerSecond)],
    ['replay after=0 from SQLite', replayed.map((x) => x.eventsPerSecond)],
  ])
  const r = rowOf(t, 'replay after=0 from SQLite')
  return {
    name: 'replay',
    title,
    command: `npm run bench -- replay${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { chunksPerSession: n, storedEventsPerSession: seeded[0]!.lastSeq, sessions: ctx.reps },
    description:
      `Each of ${ctx.reps} sessions is written by a live HAI stream of \`count ${n.toLocaleString('en-US')}\` (${seeded[0]!.lastSeq.toLocaleString('en-US')} events with the run's own events) on a SQLite server; ` +
      'the server is then restarted on the same database and a new client attaches to each session with `/ws?session_id=X&after=0`, timed from connecting until the frame carrying the last seq. ' +
      'Baseline: the live stream rate of the same sessions when they were written.',
    tables: [t],
    targets: [
      {
        text: 'replay ≥ 200,000 events/s from SQLite',
        measured: `${Math.round(r.median).toLocaleString('en-US')} events/s (${r.ratio.toFixed(2)}× live)`,
        met: r.median >= 200_000,
      },
    ],
    limits:
      "CPU in the server: replay reads pages of `replayPageSize` (5,000) events from SQLite, parses each row's JSON, encodes each as a HAI frame and writes each page as one framed Buffer; no agent and no commit run. " +
      'The client on the other core has to receive and scan every frame.',
    notes: [],
  }
}
