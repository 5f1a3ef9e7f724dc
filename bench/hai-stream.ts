// (1) Stream throughput over HAI: one session, demo `count N`, Parlance (memory and SQLite stores) against a
// bare `ws` server sending the same frames.
import { join } from 'node:path'
import { interleaved } from './lib/interleave.js'
import { machine, rowOf, table, type BenchContext, type BenchResult } from './lib/result.js'

export const title = 'HAI stream throughput'

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const n = ctx.quick ? 20_000 : 200_000
  const load = (port: number, path: string) => ({ script: 'bench/load/ws-stream.ts', args: [`ws://127.0.0.1:${port}${path}`, 'hai', String(n), '1'] })
  const samples = (o: { eventsPerSecond: number[] }) => o.eventsPerSecond
  const rows = await interleaved(ctx, [
    { name: 'raw ws', server: { script: 'bench/servers/raw-ws.ts', args: ['hai'] }, load: (p) => load(p, '/'), samples },
    {
      name: 'Parlance HAI, memory store',
      server: { script: 'bench/servers/parlance.ts', args: ['--store', 'memory'] },
      load: (p) => load(p, '/ws'),
      samples,
    },
    {
      name: 'Parlance HAI, SQLite store',
      server: { script: 'bench/servers/parlance.ts', args: ['--store', 'sqlite', '--data', join(ctx.tmp, 'hai-stream')] },
      load: (p) => load(p, '/ws'),
      samples,
    },
  ])
  const t = table(`one session, count ${n.toLocaleString('en-US')}`, 'events/s', true, rows)
  const mem = rowOf(t, 'Parlance HAI, memory store')
  const sql = rowOf(t, 'Parlance HAI, SQLite store')
  return {
    name: 'hai-stream',
    title,
    command: `npm run bench -- hai-stream${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { events: n, repetitions: ctx.reps },
    description:
      'One WebSocket client sends `count N` to the demo agent in a new session and times until `status: completed`. ' +
      'Baseline: a bare `ws` server (`bench/servers/raw-ws.ts`) answering with the same N+2 frames, corked in batches, with no store, session or encoder. ' +
      'Parlance commits every event to the store before sending it (write-before-send).',
    tables: [t],
    targets: [
      { text: '≥ 0.8× raw ws with the memory store', measured: `${mem.ratio.toFixed(2)}×`, met: mem.ratio >= 0.8 },
      { text: '≥ 0.5× raw ws with the SQLite store (durable)', measured: `${sql.ratio.toFixed(2)}×`, met: sql.ratio >= 0.5 },
    ],
    limits:
      'CPU. Server and client share 2 cores, and the client parses nothing, so the server thread is the bottleneck: per event Parlance runs the agent generator, ' +
      "folds the event into the conversation model, stamps seq/ts, batches it into the group commit (SQLite: one transaction per tick, storing the tick's events of a session as one JSON-array row), " +
      'then encodes the HAI frame; the WebSocket transport frames a committed batch into one Buffer and writes it once (src/transports/ws-frames.ts). ' +
      "The raw server only builds the frame string and sends each through `ws.send`, corked per batch; that per-frame path (a header Buffer, an options object and two buffered writes per frame) is what Parlance's own framing avoids.",
    notes: [],
  }
}
