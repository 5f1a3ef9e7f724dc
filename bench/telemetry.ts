// What tracing costs per token (issue 38, item 4): the same turns (aiSdkAgent over a model streaming T deltas,
// N sessions, memory store, HAI encoding; bench/telemetry-worker.ts) with no OpenTelemetry SDK registered —
// Parlance's default, every span a no-op — against an SDK that records every span and drops it on export, with
// and without the AsyncLocalStorage context manager a Node SDK installs. Each sample is a process of its own,
// the three interleaved per repetition. Also: the span work of one turn alone on the no-op tracer.
import { runLoad } from './lib/proc.js'
import { machine, median, rowOf, table, type BenchContext, type BenchResult } from './lib/result.js'

export const title = 'Tracing cost per token'

interface Sample {
  variant: string
  tokens: number
  spans: number
  cpuMsPer1kTokens: number
  noopUsPerTurn?: number
}

const VARIANTS = [
  ['none', 'no SDK registered (no-op spans)'],
  ['sdk', 'SDK registered, spans recorded, export drops them'],
  ['sdk-als', 'the same + AsyncLocalStorage context manager'],
] as const

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const n = ctx.quick ? 20 : 50
  const t = ctx.quick ? 500 : 1000
  const samples = VARIANTS.map(() => [] as Sample[])
  for (let r = 0; r < ctx.reps; r++) {
    for (const [i, [v]] of VARIANTS.entries()) {
      const out = await runLoad<Sample>('bench/telemetry-worker.ts', [v, String(n), String(t)], { timeoutMs: 120_000 })
      samples[i]!.push(out)
      ctx.log(`    rep ${r + 1}/${ctx.reps} ${v}: ${out.cpuMsPer1kTokens} CPU ms per 1,000 tokens, ${out.spans} spans`)
    }
  }
  const cpu = table(
    `${n} sessions × ${t.toLocaleString('en-US')} tokens (aiSdkAgent), CPU per 1,000 tokens`,
    'CPU ms',
    false,
    VARIANTS.map(([, label], i) => [label, samples[i]!.map((s) => s.cpuMsPer1kTokens)] as const),
  )
  const noopUs = median(samples[0]!.map((s) => s.noopUsPerTurn ?? NaN))
  const perTokenUs = rowOf(cpu, VARIANTS[0][1]).median // CPU ms per 1,000 tokens = CPU µs per token
  const share = noopUs / t / perTokenUs
  const sdk = rowOf(cpu, VARIANTS[1][1])
  const als = rowOf(cpu, VARIANTS[2][1])
  return {
    name: 'telemetry',
    title,
    command: `npm run bench -- telemetry${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { sessions: n, tokensPerTurn: t, repetitions: ctx.reps, spansPerTurn: median(samples[1]!.map((s) => s.spans)) / n },
    description:
      'Each turn enters as a socket frame does (a request span), runs aiSdkAgent (a run span, a model-call span) and streams T tokens through the session, ' +
      'the memory store and a HAI encoder. Spans are made per request, run, model call, tool call and approval, never per token. ' +
      `With no SDK registered, one turn's span work alone (request, run, model call and approval spans started, named and ended on the no-op tracer) took ${noopUs.toFixed(2)} µs of CPU: ` +
      `${(share * 100).toFixed(4)} % of the turn's per-token CPU.`,
    tables: [cpu],
    targets: [
      { text: "no-SDK span work per turn ≤ 0.1 % of the turn's CPU", measured: `${(share * 100).toFixed(4)} %`, met: share <= 0.001 },
      { text: 'SDK registered (no context manager), per token', measured: `${sdk.ratio.toFixed(2)}×`, met: null },
      { text: 'SDK + AsyncLocalStorage context manager, per token', measured: `${als.ratio.toFixed(2)}×`, met: null },
    ],
    limits:
      "CPU of one process (the worker): the AI SDK's stream pipeline and the session dominate a token. With an SDK registered, spans cost per turn, not per token; " +
      "the AsyncLocalStorage context manager (needed for parent/child links across awaits) adds a hook to every promise on Node 20, which the AI SDK's stream makes several of per token: that, not Parlance's spans, is the per-token cost of the last row.",
    notes: [],
  }
}
