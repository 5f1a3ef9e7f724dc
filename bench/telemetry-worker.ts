// One sample of bench/telemetry.ts: N sessions in this process each run aiSdkAgent over a model that streams T
// text deltas at once (MockLanguageModelV3 of `ai/test`), through Parlance's sessions, the memory store and a
// HAI-encoding subscriber (no socket); each turn enters as a socket frame does (`tracedFrame`: a request span),
// so a traced turn makes a request span, a run span and a model-call span. Prints CPU per 1,000 tokens.
// With no SDK (`none`) it also times the span work of one turn alone (request, run, model call, approval: started,
// named and ended on the no-op tracer), `noopUsPerTurn`.
// Usage: npx tsx bench/telemetry-worker.ts none|sdk|sdk-als N T
//   none     no OpenTelemetry SDK registered: @opentelemetry/api's no-op tracer (Parlance's default)
//   sdk      a BasicTracerProvider whose spans go to an exporter that drops them (SimpleSpanProcessor)
//   sdk-als  the same plus the AsyncLocalStorage context manager and the W3C propagator (a Node SDK's usual setup)
import { context, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core'
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { MockLanguageModelV3 } from 'ai/test'
import { aiSdkAgent } from '../src/agents/ai-sdk/index.js'
import { DEFAULT_LIMITS } from '../src/core/index.js'
import { tracedFrame } from '../src/binding/traced.js'
import {
  endApprovalSpan,
  endChatSpan,
  endRunSpan,
  nameRequest,
  startApprovalSpan,
  startChatSpan,
  startRequestSpan,
  startRunSpan,
} from '../src/telemetry/index.js'
import { SessionManager } from '../src/session/index.js'
import { haiRunEnded, type HaiTally } from './lib/hai-turn.js'
import { createMemoryStore, EventStore } from '../src/store/index.js'

const [variant = 'none', nArg = '100', tArg = '200'] = process.argv.slice(2)
if (!['none', 'sdk', 'sdk-als'].includes(variant)) throw new Error(`variant must be none, sdk or sdk-als, not ${variant}`)
const N = Number(nArg)
const T = Number(tArg)

let exported = 0
if (variant !== 'none') {
  const drop: SpanExporter = {
    export(spans: ReadableSpan[], done) {
      exported += spans.length
      done({ code: ExportResultCode.SUCCESS })
    },
    shutdown: () => Promise.resolve(),
  }
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(drop)] }))
  if (variant === 'sdk-als') {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  }
}

/** A model that streams T text deltas ("1 ", "2 ", …) as fast as they are read, then usage. */
const model = new MockLanguageModelV3({
  provider: 'bench',
  modelId: 'burst',
  doStream: () => {
    let i = 0
    const stream = new ReadableStream({
      pull(controller) {
        if (i === 0) controller.enqueue({ type: 'text-start', id: 't' })
        if (i++ < T) return controller.enqueue({ type: 'text-delta', id: 't', delta: `${i} ` })
        controller.enqueue({ type: 'text-end', id: 't' })
        controller.enqueue({
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: T, text: T, reasoning: 0 } },
        })
        controller.close()
      },
    })
    return Promise.resolve({ stream })
  },
})

const agent = aiSdkAgent({ name: 'bench', model })
const store = new EventStore(createMemoryStore(), {})
const manager = new SessionManager({
  store,
  agents: new Map([[agent.name, agent]]),
  defaultAgent: agent.name,
  limits: { ...DEFAULT_LIMITS, maxConcurrentRuns: 0 },
})
const tally: HaiTally = { tokens: 0, bytes: 0 }

async function turn(i: number): Promise<void> {
  const session = await manager.open(`s${i}`, 'bench')
  const ended = haiRunEnded(session, 'telemetry-bench', tally)
  await tracedFrame('bench', 'user.message', () => void session.handle({ type: 'user.message', sessionId: session.id, content: 'go' }))
  await ended
}

// A warm-up turn, not measured: module loading and the first JIT pass.
await turn(-1)
tally.tokens = 0
exported = 0
const c0 = process.cpuUsage()
const t0 = performance.now()
const done: Array<Promise<void>> = []
for (let i = 0; i < N; i++) done.push(turn(i))
await Promise.all(done)
const cpu = process.cpuUsage(c0)
const cpuMs = (cpu.user + cpu.system) / 1000
const wallMs = Math.round(performance.now() - t0)
if (tally.tokens !== N * T) process.stderr.write(`warning: ${tally.tokens} tokens seen, ${N * T} expected\n`)

/** CPU µs of one turn's span work on the no-op tracer (what every turn pays with no SDK registered). */
function noopTurnUs(): number {
  const K = 200_000
  const spanWork = () => {
    const req = startRequestSpan('bench', context.active(), { 'parlance.command': 'user.message' })
    context.with(req.ctx, () => {
      nameRequest('s', 'bench', 'user.message')
      const run = startRunSpan('bench', 's', 'r', context.active())
      const chat = startChatSpan('bench', 'burst', undefined, Date.now())
      endChatSpan(chat, { responseModel: 'burst', inputTokens: 10, outputTokens: T })
      const approval = startApprovalSpan('tool', 'a', run.ctx)
      endApprovalSpan(approval, true, 'user')
      endRunSpan(run.span, 'finished')
    })
    req.span.end()
  }
  for (let k = 0; k < 10_000; k++) spanWork()
  const u0 = process.cpuUsage()
  for (let k = 0; k < K; k++) spanWork()
  const u = process.cpuUsage(u0)
  return (u.user + u.system) / K
}
const noop = variant === 'none' ? { noopUsPerTurn: Math.round(noopTurnUs() * 1000) / 1000 } : {}
process.stdout.write(
  `${JSON.stringify({ variant, sessions: N, tokens: tally.tokens, spans: exported, wallMs, cpuMsPer1kTokens: Math.round((cpuMs / Math.max(1, tally.tokens)) * 1000 * 100) / 100, ...noop })}\n`,
)
process.exit(0)
