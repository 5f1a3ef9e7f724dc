// (2) AG-UI over SSE: POST /agui with demo `count N` against a bare node:http SSE server sending the same frames.
import { join } from 'node:path'
import { interleaved } from './lib/interleave.js'
import { machine, rowOf, table, type BenchContext, type BenchResult } from './lib/result.js'

export const title = 'AG-UI (SSE) stream throughput'

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const n = ctx.quick ? 20_000 : 200_000
  const load = (path: string) => (port: number) => ({
    script: 'bench/load/http-answer.ts',
    args: [`http://127.0.0.1:${port}${path}`, 'agui', String(n), '1'],
  })
  const samples = (o: { eventsPerSecond: number[] }) => o.eventsPerSecond
  const rows = await interleaved(ctx, [
    { name: 'raw node:http SSE', server: { script: 'bench/servers/raw-sse.ts', args: [] }, load: load('/agui'), samples },
    {
      name: 'Parlance AG-UI, memory store',
      server: { script: 'bench/servers/parlance.ts', args: ['--store', 'memory'] },
      load: load('/agui'),
      samples,
    },
    {
      name: 'Parlance AG-UI, SQLite store',
      server: { script: 'bench/servers/parlance.ts', args: ['--store', 'sqlite', '--data', join(ctx.tmp, 'agui')] },
      load: load('/agui'),
      samples,
    },
  ])
  const t = table(`one run, count ${n.toLocaleString('en-US')}`, 'events/s', true, rows)
  const sql = rowOf(t, 'Parlance AG-UI, SQLite store')
  const mem = rowOf(t, 'Parlance AG-UI, memory store')
  return {
    name: 'agui-stream',
    title,
    command: `npm run bench -- agui-stream${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { events: n, repetitions: ctx.reps },
    description:
      'A node:http client POSTs a `RunAgentInput` (new thread) whose user message is `count N` and reads the `text/event-stream` answer until it ends after `RUN_FINISHED`, ' +
      'counting `TEXT_MESSAGE_CONTENT` frames. Baseline: a bare node:http server (`bench/servers/raw-sse.ts`) writing the same frames (`id:` = seq) corked in batches with back-pressure.',
    tables: [t],
    targets: [
      { text: '≥ 0.5× raw SSE (SQLite store)', measured: `${sql.ratio.toFixed(2)}× (memory store ${mem.ratio.toFixed(2)}×)`, met: sql.ratio >= 0.5 },
    ],
    limits:
      'CPU in the server, as for HAI: agent, model fold, store commit, then `JSON.stringify` of each AG-UI event into an SSE frame. Parlance also validates the input and reconciles it with the stored conversation once per request (negligible here).',
    notes: [],
  }
}
