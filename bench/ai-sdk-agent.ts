// What aiSdkAgent costs per token (issue 36): N sessions in one process each stream T tokens, one every MS ms,
// from the same paced model (an AI SDK LanguageModelV3, `MockLanguageModelV3` of `ai/test`, whose stream yields
// text-delta parts on an absolute schedule, as bench/agents/paced.ts does), through Parlance's sessions, the
// memory store and a HAI-encoding subscriber (no socket, as `paced-core.ts memory+hai`). Variants:
//   say         the model's stream read directly, its text deltas given to ctx.say (the floor: no AI SDK call)
//   textstream  streamText(...).textStream given to ctx.say (what a streamText agent could do before aiSdkAgent)
//   ai-sdk      aiSdkAgent({ model }) (streamText's full stream read into ctx.say / ctx.think, usage recorded)
// It reports CPU per 1,000 tokens, GC and event-loop delay. Not part of `npm run bench`.
//
// Usage: npx tsx bench/ai-sdk-agent.ts VARIANT [N] [T] [MS]      (defaults 200 200 25)
//        npx tsx bench/ai-sdk-agent.ts all [N] [T] [MS] [REPEATS]  each variant REPEATS times (default 3),
//        interleaved, each run in a process of its own; prints the medians and the ratios to `say`.
import { spawnSync } from 'node:child_process'
import { streamText } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { aiSdkAgent } from '../src/agents/ai-sdk/index.js'
import { defineAgent, type AgentDefinition } from '../src/agent-api/index.js'
import { DEFAULT_LIMITS } from '../src/core/index.js'
import { SessionManager } from '../src/session/index.js'
import { haiRunEnded, type HaiTally } from './lib/hai-turn.js'
import { createMemoryStore, EventStore } from '../src/store/index.js'
import { watchRuntime } from './lib/runtime-stats.js'

const VARIANTS = ['say', 'textstream', 'ai-sdk'] as const
type Variant = (typeof VARIANTS)[number]
const [variantArg = 'all', nArg = '200', tArg = '200', msArg = '25', repeatsArg = '3'] = process.argv.slice(2)
const N = Number(nArg)
const T = Number(tArg)
const MS = Number(msArg)

if (variantArg === 'all') {
  const runs: Record<string, Array<Record<string, number>>> = {}
  for (let r = 0; r < Number(repeatsArg); r++) {
    for (const v of VARIANTS) {
      const child = spawnSync(process.execPath, ['--import', 'tsx', 'bench/ai-sdk-agent.ts', v, nArg, tArg, msArg], { encoding: 'utf8' })
      if (child.status !== 0) throw new Error(`${v} failed: ${child.stderr}`)
      ;(runs[v] ??= []).push(JSON.parse(child.stdout) as Record<string, number>)
    }
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const cpu = Object.fromEntries(VARIANTS.map((v) => [v, median(runs[v]!.map((x) => x.cpuMsPer1kTokens!))]))
  const p99 = Object.fromEntries(VARIANTS.map((v) => [v, median(runs[v]!.map((x) => (x.loopDelayMs as unknown as { p99: number }).p99))]))
  const r2 = (x: number) => Math.round(x * 100) / 100
  process.stdout.write(
    `${JSON.stringify({ sessions: N, tokens: T, ms: MS, repeats: Number(repeatsArg), cpuMsPer1kTokens: cpu, loopDelayP99Ms: p99, ratioToSay: { textstream: r2(cpu.textstream! / cpu.say!), 'ai-sdk': r2(cpu['ai-sdk']! / cpu.say!) }, runs }, null, 2)}\n`,
  )
  process.exit(0)
}
if (!(VARIANTS as readonly string[]).includes(variantArg)) {
  process.stderr.write(`variant must be one of ${VARIANTS.join(', ')}, all; got "${variantArg}"\n`)
  process.exit(2)
}
const variant = variantArg as Variant

/** A model that streams T text deltas ("1 ", "2 ", …), delta i due i·MS ms after the call, then usage. */
function pacedModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider: 'bench',
    modelId: 'paced',
    doStream: async ({ abortSignal }) => {
      const start = performance.now()
      let i = 0
      const stream = new ReadableStream({
        async pull(controller) {
          if (i === 0) controller.enqueue({ type: 'text-start', id: 't' })
          if (i++ < T) {
            await new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, start + i * MS - performance.now())))
            if (abortSignal?.aborted) return controller.close()
            controller.enqueue({ type: 'text-delta', id: 't', delta: `${i} ` })
            return
          }
          controller.enqueue({ type: 'text-end', id: 't' })
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: T, text: T, reasoning: 0 } },
          })
          controller.close()
        },
      })
      return { stream }
    },
  })
}

function agentOf(v: Variant): AgentDefinition {
  const model = pacedModel()
  if (v === 'ai-sdk') return aiSdkAgent({ name: 'bench', model })
  if (v === 'textstream') {
    return defineAgent({
      name: 'bench',
      async run(ctx) {
        await ctx.say(streamText({ model, prompt: ctx.input.text, abortSignal: ctx.signal }).textStream)
      },
    })
  }
  return defineAgent({
    name: 'bench',
    async run(ctx) {
      const { stream } = await model.doStream({
        prompt: [{ role: 'user', content: [{ type: 'text', text: ctx.input.text }] }],
        abortSignal: ctx.signal,
      })
      async function* deltas(): AsyncGenerator<string> {
        for await (const part of stream) if (part.type === 'text-delta') yield part.delta
      }
      await ctx.say(deltas())
    },
  })
}

const runtime = watchRuntime()
const tally: HaiTally = { tokens: 0, bytes: 0 }
const agent = agentOf(variant)
const store = new EventStore(createMemoryStore(), {})
const manager = new SessionManager({
  store,
  agents: new Map([[agent.name, agent]]),
  defaultAgent: agent.name,
  limits: { ...DEFAULT_LIMITS, maxConcurrentRuns: 0 },
})
const c0 = process.cpuUsage()
const t0 = performance.now()
runtime.start()
const done: Array<Promise<void>> = []
for (let i = 0; i < N; i++) {
  done.push(
    new Promise<void>((resolve) =>
      setTimeout(
        () => {
          void (async () => {
            const session = await manager.open(`s${i}`, 'bench')
            const ended = haiRunEnded(session, 'ai-sdk-bench', tally)
            void session.handle({ type: 'user.message', sessionId: session.id, content: 'go' })
            await ended
          })().then(resolve)
        },
        (i * 1000) / N,
      ),
    ),
  )
}
await Promise.all(done)
const cpu = process.cpuUsage(c0)
const wallMs = performance.now() - t0
const stats = runtime.stop()
const cpuMs = (cpu.user + cpu.system) / 1000
const r1 = (x: number) => Math.round(x * 10) / 10
if (tally.tokens !== N * T) process.stderr.write(`warning: ${tally.tokens} tokens seen, ${N * T} expected\n`)
process.stdout.write(
  `${JSON.stringify({
    variant,
    sessions: N,
    tokens: tally.tokens,
    frameBytes: tally.bytes,
    wallMs: Math.round(wallMs),
    cpuMsPer1kTokens: r1((cpuMs / Math.max(1, tally.tokens)) * 1000),
    ...stats,
  })}\n`,
)
process.exit(0)
