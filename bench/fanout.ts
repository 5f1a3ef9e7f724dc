// (7) Fan-out: one session, 100 attached connections (HAI and MyAgent WebSockets, half each), delivered
// events/s against a bare `ws` server broadcasting the same frames to the same mix.
import { join } from 'node:path'
import { interleaved } from './lib/interleave.js'
import { machine, rowOf, table, type BenchContext, type BenchResult } from './lib/result.js'

export const title = 'Fan-out to 100 connections'

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const n = ctx.quick ? 2_000 : 20_000
  const conns = 100
  const load = (mode: string) => (port: number) => ({
    script: 'bench/load/fanout.ts',
    args: [mode, `ws://127.0.0.1:${port}`, String(n), String(conns)],
  })
  const samples = (o: { deliveredPerSecond: number }) => [o.deliveredPerSecond]
  const rows = await interleaved(ctx, [
    { name: 'raw ws broadcast', server: { script: 'bench/servers/raw-ws.ts', args: ['hai'] }, load: load('raw'), samples },
    { name: 'Parlance, memory store', server: { script: 'bench/servers/parlance.ts', args: ['--store', 'memory'] }, load: load('parlance'), samples },
    {
      name: 'Parlance, SQLite store',
      server: { script: 'bench/servers/parlance.ts', args: ['--store', 'sqlite', '--data', join(ctx.tmp, 'fanout')] },
      load: load('parlance'),
      samples,
    },
  ])
  const t = table(`count ${n.toLocaleString('en-US')} to ${conns} connections (50 HAI + 50 MyAgent)`, 'delivered events/s', true, rows)
  const sql = rowOf(t, 'Parlance, SQLite store')
  return {
    name: 'fanout',
    title,
    command: `npm run bench -- fanout${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { events: n, connections: conns, repetitions: ctx.reps },
    description:
      `${conns} connections attach to one new session (50 HAI \`/ws?session_id=X\`, 50 MyAgent \`user.reconnect\`); the first sends \`count N\`; timed until every connection has its last frame. ` +
      'Delivered events/s = N × connections / time. Baseline: a bare `ws` server (`bench/servers/raw-ws.ts`) that builds each frame once per dialect and sends it to every watcher, corked, pausing while any socket has over 1 MiB unsent. ' +
      'HUMA sockets are not in the mix: attaching one turns `ctx.say` into a single confirmed message for the whole session (see "Not measured yet").',
    tables: [t],
    targets: [
      {
        text: 'no number in issue 10 (delivered events/s)',
        measured: `${Math.round(sql.median).toLocaleString('en-US')} delivered/s with SQLite (${sql.ratio.toFixed(2)}× raw)`,
        met: null,
      },
    ],
    limits:
      'The client: one load-generator process receives 100 streams on one core and is the slowest party for both servers, so this measures how well each server keeps up with a saturated reader. ' +
      'Parlance encodes each event once per dialect (codecKey) and writes the same frame to each connection; flow control waits while every subscriber has 1 MiB unsent.',
    notes: [],
  }
}
