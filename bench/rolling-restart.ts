// (issue 47) A rolling restart under load: 3 `parlance serve` nodes on Redis with 1,000 streams in flight (HAI and
// /api/chat mixed, bench/load/rolling.ts), each node given SIGTERM in turn (it drains and exits by itself) and
// started again on its port. Against the same streams on the same nodes left alone for a while first (the
// baseline, measured in the same repetition): the longest wait a client saw (the gap between two events it
// received), answers lost or interrupted (the target: none), and how long the whole restart took.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { loadavg } from 'node:os'
import { lineReader, sleep, track } from './lib/proc.js'
import { machine, median, table, type BenchContext, type BenchResult } from './lib/result.js'
import { dropPrefix, REDIS_URL } from '../test/support/redis.js'

export const title = 'Rolling restart: 3 nodes, 1,000 streams'

const CLI = 'src/cli/main.ts'
const NODES = 3
/**
 * Rounds of restarts per repetition (each restarts every node once): PARLANCE_BENCH_ROLL_ROUNDS, default 1. More
 * rounds, more drains that end while clients send: how the unanswered-message defect was reproduced (issue 47).
 */
const ROUNDS = Math.max(1, Number(process.env.PARLANCE_BENCH_ROLL_ROUNDS ?? 1) || 1)

/** What bench/load/rolling.ts prints for a window. */
interface Window {
  seconds: number
  waits: { p50: number; p99: number; max: number }
  gapP50: number
  gapP99: number
  completed: number
  lost: number
  interrupted: number
  /** Of `interrupted`: runs whose lease expired while their node was alive but starved (taken over, not drained). */
  orphaned: number
  /** HAI frames whose seq did not follow the last one the stream saw. */
  repeated: number
  /** Answers still unfinished when the load generator gave up (counted in `lost` too). */
  unfinished: number
  refused: number
  reconnects: number
  errors: string[]
  /** The load generator's own longest event-loop stall (ms). */
  genLagMax: number
}

/** One node: `parlance serve` on a fixed port, so its clients find it again after its restart. */
interface Node {
  child: ChildProcess
  exited: Promise<number | null>
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
    s.once('error', reject)
  })
}

function startNode(prefix: string, id: string, port: number): Promise<Node> {
  const args = ['serve', '--agent', 'bench/agents/paced.ts', '--store', REDIS_URL, '--redis-prefix', prefix, '--node-id', id]
  args.push('--lease-ms', '5000', '--drain-timeout', '60', '--port', String(port))
  // One load generator stands in for 1,000 users: the per-connection and per-principal rates and the run cap are off.
  for (const l of ['connectionRatePerSec=0', 'principalRatePerSec=0', 'maxConcurrentRuns=0', 'maxSessionsPerPrincipal=0']) args.push('--limit', l)
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  )
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`node ${id} did not start within 60 s: ${out}`)), 60_000)
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (!/listening on /.test(out)) return
      clearTimeout(timer)
      child.stdout!.removeAllListeners('data')
      child.stdout!.resume()
      resolve({ child, exited })
    })
    void exited.then((code) => reject(new Error(`node ${id} exited (${code}) before listening: ${out}`)))
  })
}

/** One repetition: the steady window, then the rolling restart, with the same streams throughout. */
async function repetition(ctx: BenchContext, streams: number, steadyMs: number, tokens: number, ms: number) {
  const prefix = `parlance-bench-roll:${randomBytes(4).toString('hex')}:`
  const ports = await Promise.all(Array.from({ length: NODES }, freePort))
  const nodes = await Promise.all(ports.map((p, i) => startNode(prefix, `n${i + 1}`, p)))
  const load = track(
    spawn(process.execPath, ['--import', 'tsx', 'bench/load/rolling.ts', ports.join(','), String(streams), String(tokens), String(ms), prefix], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  )
  const expect = lineReader(load, 'the load generator')
  const say = (cmd: string) => load.stdin!.write(`${cmd}\n`)
  try {
    say('go')
    await expect('warm')
    say('mark') // the warm-up window (connections, first answers) is left out
    await expect('{')
    await sleep(steadyMs)
    say('mark')
    const steady = JSON.parse(await expect('{')) as Window
    const began = performance.now()
    const drains: number[] = []
    const restarts: number[] = []
    const exits: Array<number | null> = []
    for (let j = 0; j < NODES * ROUNDS; j++) {
      const i = j % NODES
      const t0 = performance.now()
      nodes[i]!.child.kill('SIGTERM')
      exits.push(await nodes[i]!.exited)
      const t1 = performance.now()
      nodes[i] = await startNode(prefix, `n${i + 1}`, ports[i]!)
      drains.push((t1 - t0) / 1000)
      restarts.push((performance.now() - t1) / 1000)
      const at = (t: number) => ((t - began) / 1000).toFixed(1)
      ctx.log(`    n${i + 1}: SIGTERM at ${at(t0)} s, exited (${exits.at(-1)}) at ${at(t1)} s, listening again at ${at(performance.now())} s`)
    }
    const totalSeconds = (performance.now() - began) / 1000
    say('stop')
    const rolling = JSON.parse(await expect('{')) as Window
    return { steady, rolling, totalSeconds, drains, restarts, exits }
  } finally {
    if (load.exitCode === null) load.kill('SIGKILL')
    for (const n of nodes) n.child.kill('SIGKILL')
    await Promise.all(nodes.map((n) => n.exited))
    await dropPrefix(prefix)
  }
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const { quick } = ctx
  const reps = quick ? 1 : ctx.reps
  const streams = quick ? 150 : 1_000
  const [tokens, ms] = [30, 100]
  const steadyMs = quick ? 8_000 : 20_000
  const results: Array<Awaited<ReturnType<typeof repetition>>> = []
  /** The machine's 1-minute load average at each repetition's start and end (other work on it included). */
  const loads: number[] = []
  for (let r = 0; r < reps; r++) {
    ctx.log(`  repetition ${r + 1} of ${reps}: ${streams} streams (load average ${loadavg()[0]!.toFixed(1)})`)
    loads.push(loadavg()[0]!)
    const x = await repetition(ctx, streams, steadyMs, tokens, ms)
    loads.push(loadavg()[0]!)
    ctx.log(`    steady: ${JSON.stringify(x.steady)}`)
    ctx.log(`    rolling: ${JSON.stringify(x.rolling)} in ${x.totalSeconds.toFixed(1)} s`)
    results.push(x)
  }
  const of = (f: (w: Window) => number): Array<[string, number[]]> => [
    ['left alone', results.map((x) => f(x.steady))],
    ['rolling restart', results.map((x) => f(x.rolling))],
  ]
  const sum = (f: (w: Window) => number, window: 'steady' | 'rolling' = 'rolling') => results.reduce((a, x) => a + f(x[window]), 0)
  const [lost, answers, repeated] = [sum((w) => w.lost), sum((w) => w.completed + w.lost + w.interrupted), sum((w) => w.repeated)]
  // Interrupted by a drain (its timeout) or anything else but a lease that expired on a starved node.
  const [drained, orphaned, orphanedSteady] = [sum((w) => w.interrupted - w.orphaned), sum((w) => w.orphaned), sum((w) => w.orphaned, 'steady')]
  const exits = results.flatMap((x) => x.exits)
  const range = (xs: number[]) => `${median(xs).toFixed(1)} s (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`
  return {
    name: 'rolling-restart',
    title,
    issue: 47,
    command: `npm run bench -- rolling-restart${quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick,
    machine: machine(),
    params: {
      streams,
      'tokens per answer': tokens,
      'ms between tokens': ms,
      nodes: NODES,
      'baseline window (s)': steadyMs / 1000,
      'rounds of restarts': ROUNDS,
      repetitions: reps,
    },
    description:
      `${NODES} \`parlance serve --store redis://… --agent bench/agents/paced.ts --drain-timeout 60\` processes on fixed 127.0.0.1 ports share a fresh Redis prefix per repetition. ` +
      `One load-generator process (bench/load/rolling.ts) runs ${streams.toLocaleString('en-US')} streams, half HAI WebSockets and half /api/chat (AI SDK UI message stream) clients, stream k first on node k mod 3: each asks for "paced ${tokens} ${ms}" (${tokens} tokens ${ms} ms apart) and asks again as soon as the answer is whole (HAI in one session, /api/chat a new chat each time). ` +
      'A message its node refuses while draining (HAI `unavailable`, HTTP 503) or cannot take (down) goes to the next node; a HAI socket its node closes reconnects to the next node with its session and last seq and reads the rest there; a HAI message carries its own `metadata.message_id` and is sent again after each reconnect until its answer has ended (a socket can close with it unread or unanswered; the server carries out an id at most once). ' +
      `Once every stream has had an answer, the streams run left alone for ${steadyMs / 1000} s (the baseline window), then each node in turn gets SIGTERM, drains, exits by itself and is started again on its port, the next one after it listens (${ROUNDS === 1 ? 'once each' : `${ROUNDS} rounds`}); then every stream finishes its answer (the rolling window). ` +
      "A stream's wait: the gap between two events it received (the first from sending its message), refusals and reconnects included; each stream's longest wait in a window, as p99 and max over the streams, and the p99 over every gap. " +
      'An answer is lost when its text is not exactly the tokens asked for, it was cut, or it never ended; interrupted when the server ended it so.',
    tables: [
      table(
        'Longest wait a stream saw: p99 over the streams',
        'ms',
        false,
        of((w) => w.waits.p99),
      ),
      table(
        'Longest wait a stream saw: the longest of all',
        'ms',
        false,
        of((w) => w.waits.max),
      ),
      table(
        'Gap between two events: p99 over every gap',
        'ms',
        false,
        of((w) => w.gapP99),
      ),
    ],
    targets: [
      {
        text: 'a rolling restart under 1,000 streams loses or repeats nothing, and no drain interrupts an answer',
        measured:
          `${lost} answers lost, ${drained} interrupted by a drain, ${repeated} HAI frames repeated, of ${answers.toLocaleString('en-US')} answers in the rolling windows ` +
          `(${orphaned} taken over when their lease expired on a starved node; ${orphanedSteady} so in the baseline windows, without restarts)`,
        met: quick ? null : lost === 0 && drained === 0 && repeated === 0,
      },
      {
        text: 'each node exits by itself after its drain',
        measured: `exit codes ${[...new Set(exits)].join(', ')} (${exits.length} exits)`,
        met: exits.every((c) => c === 0),
      },
    ],
    limits:
      'A node stops only once its last answer has streamed (about one answer, 3 s), and a node takes seconds to start (tsx, on this loaded 2-core machine). ' +
      'The long waits come after a drain: every client of the draining node moves to the next node in the same second (hundreds of connections, sessions opened there as replicas, then its leases taken), while that node already serves its own streams on a starved CPU; a client waits until the node gets to it. Clients that spread their retries over the live nodes, with jitter, would wait less.',
    notes: [
      `The machine's 1-minute load average at the repetitions' starts and ends: ${loads.map((l) => l.toFixed(1)).join(', ')} (2 cores; other work runs on it). A run "taken over" had its lease (5 s, renewed every 1.7 s) expire while its node was alive but starved of CPU: another node then ends it as interrupted, as it would for a crashed node (\`--lease-ms\` sets the margin).`,
      `The whole rolling restart (first SIGTERM to the third node listening again): ${range(results.map((x) => x.totalSeconds))} (median, min–max over the repetitions).`,
      `Per node: SIGTERM to exit ${range(results.flatMap((x) => x.drains))}; exit to listening again ${range(results.flatMap((x) => x.restarts))}.`,
      `Messages refused while a node drained, sent again elsewhere: ${results.map((x) => x.rolling.refused).join(', ')} per repetition; HAI reconnects: ${results.map((x) => x.rolling.reconnects).join(', ')} (baseline windows: ${results.map((x) => x.steady.refused + x.steady.reconnects).join(', ')}).`,
      `The load generator's own longest event-loop stall in each window (its waits include it): ${results.map((x) => `${x.steady.genLagMax} / ${x.rolling.genLagMax} ms`).join(', ')} (baseline / rolling).`,
      `Answers in the windows (baseline / rolling): ${results.map((x) => `${x.steady.completed} / ${x.rolling.completed}`).join(', ')}; errors seen: ${
        results
          .flatMap((x) => [...x.steady.errors, ...x.rolling.errors])
          .slice(0, 3)
          .join('; ') || 'none'
      }.`,
    ],
  } as BenchResult
}
