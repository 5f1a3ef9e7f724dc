// (2) MyAgent over WebSocket: demo `count N` against a bare `ws` server sending the same frames.
import { join } from 'node:path'
import { interleaved } from './lib/interleave.js'
import { machine, rowOf, table, type BenchContext, type BenchResult } from './lib/result.js'

export const title = 'MyAgent stream throughput'

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const n = ctx.quick ? 20_000 : 200_000
  const load = (path: string) => (port: number) => ({
    script: 'bench/load/ws-stream.ts',
    args: [`ws://127.0.0.1:${port}${path}`, 'myagent', String(n), '1'],
  })
  const samples = (o: { eventsPerSecond: number[] }) => o.eventsPerSecond
  const rows = await interleaved(ctx, [
    { name: 'raw ws', server: { script: 'bench/servers/raw-ws.ts', args: ['myagent'] }, load: load('/'), samples },
    {
      name: 'Parlance MyAgent, memory store',
      server: { script: 'bench/servers/parlance.ts', args: ['--store', 'memory'] },
      load: load('/myagent'),
      samples,
    },
    {
      name: 'Parlance MyAgent, SQLite store',
      server: { script: 'bench/servers/parlance.ts', args: ['--store', 'sqlite', '--data', join(ctx.tmp, 'myagent')] },
      load: load('/myagent'),
      samples,
    },
  ])
  const t = table(`one session, count ${n.toLocaleString('en-US')}`, 'events/s', true, rows)
  const sql = rowOf(t, 'Parlance MyAgent, SQLite store')
  const mem = rowOf(t, 'Parlance MyAgent, memory store')
  return {
    name: 'myagent-stream',
    title,
    command: `npm run bench -- myagent-stream${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { events: n, repetitions: ctx.reps },
    description:
      'A WebSocket client sends `user.message` `count N` in a new session to `/myagent` and times until `agent.final_answer` (which repeats the whole text). ' +
      'Baseline: a bare `ws` server (`bench/servers/raw-ws.ts myagent`) sending the same `agent.partial_answer` frames (timestamp, chunk_index, seq) and the same final answer.',
    tables: [t],
    targets: [
      {
        text: 'no number in issue 10 (compare with raw ws)',
        measured: `SQLite ${sql.ratio.toFixed(2)}×, memory ${mem.ratio.toFixed(2)}×`,
        met: null,
      },
    ],
    limits: 'CPU in the server, as for HAI; a MyAgent frame is larger (base fields, ISO timestamp, metadata), which costs both servers.',
    notes: [],
  }
}
