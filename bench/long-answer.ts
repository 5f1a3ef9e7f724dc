// Long answers over every dialect (issue 50): the demo agent answers "count N" (N chunks) over each dialect in
// turn, against one Parlance server (SQLite store), for N = 1k, 4k and 16k; time per chunk as a ratio to /api/chat
// in the same run, its growth with N (flat is linear), how late GET /healthz is answered meanwhile (a server whose
// event loop is held answers it late) and the server's own event-loop delay during each answer (p99 and max).
// A2A's answer path was quadratic and held the loop for the whole answer.
import { join } from 'node:path'
import { loadavg } from 'node:os'
import { runLoad, startServer, type LoopDelay } from './lib/proc.js'
import { machine, median, table, type BenchContext, type BenchResult, type Table } from './lib/result.js'

export const title = 'Long answers over every dialect'

/** Dialects measured, /api/chat (the baseline) first: [load generator name, row label]. */
const DIALECTS: ReadonlyArray<readonly [string, string]> = [
  ['api-chat', '/api/chat (AI SDK)'],
  ['agui', 'AG-UI'],
  ['hai', 'HAI'],
  ['myagent', 'MyAgent'],
  ['huma', 'HUMA'],
  ['mcp', 'MCP (tools/call, progress)'],
  ['a2a-send', 'A2A SendMessage'],
  ['a2a-stream', 'A2A SendStreamingMessage'],
  ['openai-chat', 'OpenAI Chat Completions (stream)'],
  ['openai-responses', 'OpenAI Responses (stream)'],
]

interface Sample {
  seconds: number
  healthzMs: number[]
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const sizes = ctx.quick ? [1_000, 4_000] : [1_000, 4_000, 16_000]
  // Quick: one answer per dialect and N. Full: ctx.reps each (one answer varies by 2× and more from run to run on
  // the shared machine).
  const reps = ctx.quick ? 1 : ctx.reps
  const largest = sizes[sizes.length - 1]!
  // HUMA types each message at typingMsPerChar; 0 measures the dialect, not the typing pace.
  const server = await startServer('bench/servers/parlance.ts', [
    '--store',
    'sqlite',
    '--data',
    join(ctx.tmp, 'data'),
    '--limits',
    '{"typingMsPerChar":0}',
    '--loop-delay',
  ])
  /** µs per chunk, per dialect and N (one sample per repetition), and the slowest /healthz per dialect and N. */
  const perChunk = new Map<string, number[]>()
  const healthz = new Map<string, number[]>()
  /** The server's event-loop delay during each answer (its load generator's short warm-up included). */
  const loop = new Map<string, LoopDelay[]>()
  const key = (d: string, n: number) => `${d}@${n}`
  const load: number[] = []
  try {
    // Each dialect once first (`count 10`), so what the server builds on a dialect's first request is not measured.
    for (const [d] of DIALECTS) await runLoad<Sample>('bench/load/long-answer.ts', [String(server.port), d, '10'], { timeoutMs: 60_000 })
    for (let r = 0; r < reps; r++)
      for (const n of sizes)
        for (const [d] of DIALECTS) {
          await server.loopDelay()
          const out = await runLoad<Sample>('bench/load/long-answer.ts', [String(server.port), d, String(n)], { timeoutMs: 300_000 })
          const delay = await server.loopDelay()
          const us = (out.seconds / n) * 1e6
          const worst = Math.max(0, ...out.healthzMs)
          ;(perChunk.get(key(d, n)) ?? perChunk.set(key(d, n), []).get(key(d, n))!).push(us)
          ;(healthz.get(key(d, n)) ?? healthz.set(key(d, n), []).get(key(d, n))!).push(worst)
          ;(loop.get(key(d, n)) ?? loop.set(key(d, n), []).get(key(d, n))!).push(delay)
          load.push(loadavg()[0]!)
          ctx.log(
            `    rep ${r + 1}/${reps} ${d} N=${n}: ${us.toFixed(1)} µs/chunk, /healthz at worst ${worst.toFixed(0)} ms, event loop p99 ${delay.p99} ms max ${delay.max} ms (load ${loadavg()[0]!.toFixed(1)})`,
          )
        }
  } finally {
    await server.close()
  }
  const rows = (n: number, of: Map<string, number[]>) => DIALECTS.map(([d, label]) => [label, of.get(key(d, n))!] as const)
  const tables: Table[] = sizes.map((n) => table(`Answer of ${n.toLocaleString('en-US')} chunks`, 'µs per chunk', false, rows(n, perChunk)))
  // Growth: per-chunk time at the largest N over that at the smallest, per repetition (1 = linear).
  const growth = DIALECTS.map(([d, label]) => {
    const big = perChunk.get(key(d, largest))!
    const small = perChunk.get(key(d, sizes[0]!))!
    return [label, big.map((x, i) => x / small[i]!)] as const
  })
  tables.push(
    table(
      `Growth: per-chunk time at ${largest.toLocaleString('en-US')} / at ${sizes[0]!.toLocaleString('en-US')} chunks`,
      '× (1 = linear)',
      false,
      growth,
    ),
  )
  const n4k = sizes.includes(4_000) ? 4_000 : largest
  for (const n of new Set([n4k, largest])) {
    const at = (f: (d: LoopDelay) => number) => new Map([...loop].filter(([k]) => k.endsWith(`@${n}`)).map(([k, v]) => [k, v.map(f)]))
    const label = n.toLocaleString('en-US')
    tables.push(table(`Slowest GET /healthz while an answer of ${label} chunks streams`, 'ms', false, rows(n, healthz)))
    const delay = (title: string, f: (d: LoopDelay) => number) => tables.push(table(title, 'ms', false, rows(n, at(f))))
    delay(`Server event-loop delay while an answer of ${label} chunks streams: max`, (d) => d.max)
    delay(`Server event-loop delay while an answer of ${label} chunks streams: p99`, (d) => d.p99)
    delay(`Server's longest CPU stretch between two event-loop turns while an answer of ${label} chunks streams`, (d) => d.cpuMax)
  }
  const chatUs = median(perChunk.get(key('api-chat', n4k))!)
  const ratio = (d: string) => median(perChunk.get(key(d, n4k))!) / chatUs
  const worst4k = (d: string) => median(healthz.get(key(d, n4k))!)
  const loopMax4k = (d: string) => median(loop.get(key(d, n4k))!.map((x) => x.max))
  const cpuMax4k = (d: string) => median(loop.get(key(d, n4k))!.map((x) => x.cpuMax))
  const within = (d: string) => ratio(d) <= 5
  const result: BenchResult & { issue: number } = {
    issue: 50,
    name: 'long-answer',
    title,
    command: `npm run bench -- long-answer${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: {
      chunks: sizes,
      repetitions: reps,
      store: 'sqlite',
      'load average (1 min) during the runs': `${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}`,
    },
    description:
      'One Parlance server (demo agent, SQLite store, typingMsPerChar 0) answers `count N` (N text chunks) over each dialect in turn, in a new session each time, ' +
      'from a separate load generator process (bench/load/long-answer.ts) that reads the whole answer: /api/chat and AG-UI by fetch, HAI and MyAgent over a WebSocket, HUMA over Socket.IO, ' +
      'MCP with the official SDK client (tools/call with a progress token), A2A SendMessage and SendStreamingMessage, and OpenAI Chat Completions and Responses (streamed) by fetch. ' +
      'Each dialect is asked `count 10` once before anything is measured; each load generator first warms up with `count 10` too; meanwhile a worker thread asks GET /healthz, one request every 10 ms, and the slowest answer is reported. ' +
      "The server samples its own event loop's delay (`monitorEventLoopDelay`, 1 ms resolution) over each answer, the load generator's warm-up included: p99 and max; " +
      "and, with a 1 ms timer, the process CPU time spent between two turns of its loop, whose longest is the server's own longest block: a gap the server spent waiting for a core on a busy machine is long in wall time but short in CPU (the CPU of its other threads, GC helpers and the SQLite checkpointer, counts too). " +
      'Time per chunk is the whole answer over N; ratios are to /api/chat in the same run.',
    tables,
    targets: [
      {
        text: `A2A SendMessage, ${n4k.toLocaleString('en-US')} chunks, within 5× /api/chat`,
        measured: `${ratio('a2a-send').toFixed(2)}×`,
        met: within('a2a-send'),
      },
      {
        text: `A2A SendStreamingMessage, ${n4k.toLocaleString('en-US')} chunks, within 5× /api/chat`,
        measured: `${ratio('a2a-stream').toFixed(2)}×`,
        met: within('a2a-stream'),
      },
      {
        text: `GET /healthz answered within 100 ms while A2A answers ${n4k.toLocaleString('en-US')} chunks (send / stream; slowest, median of runs)`,
        measured: `${worst4k('a2a-send').toFixed(0)} ms / ${worst4k('a2a-stream').toFixed(0)} ms (/api/chat: ${worst4k('api-chat').toFixed(0)} ms)`,
        met: worst4k('a2a-send') <= 100 && worst4k('a2a-stream') <= 100,
      },
      {
        text: `Server event loop never held over 100 ms while any dialect answers ${n4k.toLocaleString('en-US')} chunks (largest max delay, median of runs)`,
        measured: `${Math.max(...DIALECTS.map(([d]) => loopMax4k(d))).toFixed(0)} ms (A2A send ${loopMax4k('a2a-send').toFixed(0)} ms, stream ${loopMax4k('a2a-stream').toFixed(0)} ms)`,
        met: DIALECTS.every(([d]) => loopMax4k(d) <= 100),
      },
      {
        text: `The server's own longest block (CPU between two loop turns) under 100 ms while any dialect answers ${n4k.toLocaleString('en-US')} chunks (median of runs)`,
        measured: `${Math.max(...DIALECTS.map(([d]) => cpuMax4k(d))).toFixed(0)} ms (A2A send ${cpuMax4k('a2a-send').toFixed(0)} ms, stream ${cpuMax4k('a2a-stream').toFixed(0)} ms, MCP ${cpuMax4k('mcp').toFixed(0)} ms)`,
        met: DIALECTS.every(([d]) => cpuMax4k(d) <= 100),
      },
    ],
    limits:
      'The demo agent yields its chunks as fast as the session takes them, so this measures the server alone; a model streaming over the network leaves the loop idle between chunks. ' +
      'HUMA sends each message whole once typed (one message, not N frames). HugAI is not measured yet (no load generator for it here). ' +
      "/healthz latency includes the shared machine's scheduling: on a loaded machine every dialect shows some.",
    notes: [],
  }
  return result
}
