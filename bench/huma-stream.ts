// (2) HUMA over Socket.IO: demo `count N` with a HUMA socket attached — a messaging burst of one message
// holding the whole text — against a bare socket.io server emitting the same frames.
import { join } from 'node:path'
import { interleaved } from './lib/interleave.js'
import { machine, rowOf, table, type BenchContext, type BenchResult } from './lib/result.js'

export const title = 'HUMA (Socket.IO) count N'

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const n = ctx.quick ? 20_000 : 200_000
  const load = (port: number) => ({ script: 'bench/load/huma-stream.ts', args: [`http://127.0.0.1:${port}`, String(n), '1'] })
  // Chunks of the source per second: the agent's N generated chunks over the time until typing_end.
  const samples = (o: { seconds: number[] }) => o.seconds.map((s) => n / s)
  const noTyping = JSON.stringify({ typingMsPerChar: 0 })
  const rows = await interleaved(ctx, [
    { name: 'raw socket.io', server: { script: 'bench/servers/raw-sio.ts', args: [] }, load, samples },
    {
      name: 'Parlance HUMA, memory store',
      server: { script: 'bench/servers/parlance.ts', args: ['--store', 'memory', '--limits', noTyping] },
      load,
      samples,
    },
    {
      name: 'Parlance HUMA, SQLite store',
      server: { script: 'bench/servers/parlance.ts', args: ['--store', 'sqlite', '--data', join(ctx.tmp, 'huma'), '--limits', noTyping] },
      load,
      samples,
    },
  ])
  const t = table(`count ${n.toLocaleString('en-US')}, time to typing_end as chunks/s`, 'source chunks/s', true, rows)
  const sql = rowOf(t, 'Parlance HUMA, SQLite store')
  const mem = rowOf(t, 'Parlance HUMA, memory store')
  return {
    name: 'huma-stream',
    title,
    command: `npm run bench -- huma-stream${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { chunks: n, repetitions: ctx.reps, typingMsPerChar: 0 },
    description:
      'HUMA has no streamed text, so the HUMA encoder renders a streamed `ctx.say` as a burst of one (docs/dialects/huma.md): for `count N` a HUMA client receives ' +
      '`typing_start`, one `message_sent` holding the whole text "1 2 … N " (about 1.3 MB for N = 200,000), confirms it with `addon-tool-event`, then gets `typing_end`. ' +
      'Since issue 20 the stream itself is in the log as N `text.delta` events whoever watches (so a HAI or AG-UI client on the same session sees it streamed), and the encoder collects them. ' +
      'Each repetition: a new socket.io-client (websocket transport) in a new session emits the triggering `context-update` and times until `typing_end`; the figure is N / that time. ' +
      'Baseline: a bare socket.io server (`bench/servers/raw-sio.ts`) building the same text and emitting the same three frames after the same confirmation. ' +
      'Simulated typing is off (`typingMsPerChar: 0`); with the defaults the burst adds min(2 s, 15 ms × length) of typing, which would dominate.',
    tables: [t],
    targets: [
      {
        text: '≥ 0.7× raw socket.io (SQLite store)',
        measured: `${sql.ratio.toFixed(2)}× (memory store ${mem.ratio.toFixed(2)}×)`,
        met: sql.ratio >= 0.7,
      },
    ],
    limits:
      "CPU in the server, per chunk: Parlance commits each of the N chunks as a `text.delta` event (durable, as for HAI: compare this figure with the HAI stream's events/s), " +
      'then the HUMA encoder joins them into one frame; the baseline only joins N strings in memory, so the target of issue 10 (set when a HUMA socket turned the stream into one ' +
      'message and stored only that) compares a durable stream with a string join, and cannot be met without dropping the per-chunk log that issue 20 asked for.',
    notes: [],
  }
}
