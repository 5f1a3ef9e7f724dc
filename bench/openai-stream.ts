// OpenAI's API over SSE: a Responses stream and a Chat Completions stream of demo `count N`, against the AI SDK
// dialect's stream of the same answer from the same kind of server, in one interleaved run.
import { interleaved } from './lib/interleave.js'
import { machine, rowOf, table, type BenchContext, type BenchResult } from './lib/result.js'

export const title = 'OpenAI Responses and Chat Completions streams against the AI SDK stream'

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const n = ctx.quick ? 10_000 : 100_000
  const server = { script: 'bench/servers/parlance.ts', args: ['--store', 'memory'] }
  const load = (path: string, kind: string) => (port: number) => ({
    script: 'bench/load/http-answer.ts',
    args: [`http://127.0.0.1:${port}${path}`, kind, String(n), '1'],
  })
  const samples = (o: { eventsPerSecond: number[] }) => o.eventsPerSecond
  const rows = await interleaved(ctx, [
    { name: 'AI SDK /api/chat', server, load: load('/api/chat', 'aisdk'), samples },
    { name: 'OpenAI /v1/responses', server, load: load('/v1/responses', 'responses'), samples },
    { name: 'OpenAI /v1/chat/completions', server, load: load('/v1/chat/completions', 'chat'), samples },
  ])
  const t = table(`one run, count ${n.toLocaleString('en-US')}, memory store`, 'text deltas/s', true, rows)
  const responses = rowOf(t, 'OpenAI /v1/responses')
  const chat = rowOf(t, 'OpenAI /v1/chat/completions')
  return {
    name: 'openai-stream',
    title,
    command: `npm run bench -- openai-stream${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { events: n, repetitions: ctx.reps },
    description:
      'A node:http client POSTs one streamed request whose user message is `count N` and reads the SSE answer to its end, counting text deltas: ' +
      '`/api/chat` (the baseline, the AI SDK UI message stream), `/v1/responses` with `stream: true` and `/v1/chat/completions` with `stream: true`. One server process per row.',
    tables: [t],
    targets: [
      {
        text: 'a Responses stream ≥ 0.5× the AI SDK stream',
        measured: `${responses.ratio.toFixed(2)}× (Chat Completions ${chat.ratio.toFixed(2)}×)`,
        met: responses.ratio >= 0.5,
      },
    ],
    limits:
      'The Responses stream writes more per delta than the AI SDK stream (an `event:` line, the item id, output and content indexes, a sequence number) and folds a view per event (its sequence number and the item text so far).',
    notes: [],
  }
}
