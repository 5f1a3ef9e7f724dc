// (issue 17, item 1) Paced streams: N sessions, each streaming T tokens one every MS ms through an LLM-like
// agent (bench/agents/paced.ts: `ctx.say` of an async iterable with a timer per token), against a bare server
// pacing identical frames on the same timers (bench/servers/raw-ws-paced.ts, raw-sse-paced.ts), all driven by
// one load-generator process (bench/load/paced.ts). Per configuration: server CPU per 1,000 tokens, token delay
// behind schedule at the client p50/p99, and the largest N whose p99 delay stays ≤ 100 ms.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { cpuMsOf, lineReader, sleep, startServer, track, type ServerProcess } from './lib/proc.js'
import { machine, median, table, type BenchContext, type BenchResult, type Table } from './lib/result.js'

export const title = 'Paced token streams'

/** What bench/load/paced.ts prints for one step. */
interface StepOut {
  sessions: number
  connected: number
  connectError: string
  started: number
  completed: number
  errors: number
  errorSamples: string[]
  received: number
  missing: number
  seconds: number
  timedOut: boolean
  p50: number
  p99: number
  max: number
  firstP50: number
  firstP99: number
}
interface Step extends StepOut {
  /** Server CPU time (user + system) during the step (ms). */
  cpuMs: number
  /** The load generator's CPU time during the step (ms). */
  clientCpuMs: number
}

interface Config {
  name: string
  transport: 'HAI /ws' | 'AG-UI SSE'
  /** raw: the baseline (stores nothing); floor: the raw server made durable, write-before-send at its cheapest; parlance. */
  role: 'raw' | 'floor' | 'parlance'
  mode: 'ws' | 'sse'
  path: string
  script: string
  args: string[]
}

/** The raw ws server made durable (bench/servers/raw-ws-paced.ts --data FILE). */
const FLOOR = 'raw ws + SQLite (durable floor)'

/** p99 delay at or under which a step passes (ms). */
const P99_MAX_MS = 100
/**
 * Share of a core under which a server whose step failed was not what failed it: the load generator, on the
 * same 2 cores, was. (On a slow day here the raw ws server's largest passing N was 808 sessions, at 66 % of a
 * core, and Parlance's 731 at 87 %: "0.90×, met", against a baseline the client had capped. A ratio to a
 * client-bound baseline is only an upper bound.)
 */
const SATURATED_SHARE = 0.85

/** Waits until the server uses under 5 % of a core over 300 ms (at most 15 s): the previous step's runs are over. */
async function settle(pid: number): Promise<void> {
  const until = performance.now() + 15_000
  while (performance.now() < until) {
    const c0 = cpuMsOf(pid)
    await sleep(300)
    if (cpuMsOf(pid) - c0 < 15) return
  }
}

/** The one load-generator process, driven a step at a time over stdin. */
function loadGenerator() {
  const child = track(spawn(process.execPath, ['--import', 'tsx', 'bench/load/paced.ts'], { stdio: ['pipe', 'pipe', 'inherit'] }))
  const expect = lineReader(child, 'paced load generator')
  return {
    async step(server: ServerProcess, c: Config, n: number, p: Params, tag: string): Promise<Step> {
      await settle(server.pid)
      const deadlineMs = p.rampMs + 2 * p.tokens * p.ms + 2_000
      // Connecting N sockets, the deadline, and a margin: past this the step (and the benchmark) fails.
      const limit = 30_000 + deadlineMs + n * 5
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`${c.name} at N=${n}: step timed out after ${limit} ms`)), limit)),
      )
      const run = async (): Promise<Step> => {
        const url = `${c.mode === 'ws' ? 'ws' : 'http'}://127.0.0.1:${server.port}${c.path}`
        child.stdin!.write(`step ${c.mode} ${url} ${n} ${p.tokens} ${p.ms} ${p.rampMs} ${deadlineMs} ${tag}\n`)
        await expect('connected ')
        const cpu0 = cpuMsOf(server.pid)
        const client0 = cpuMsOf(child.pid!)
        child.stdin!.write('go\n')
        const out = JSON.parse(await expect('{')) as StepOut
        const cpuMs = cpuMsOf(server.pid) - cpu0
        const clientCpuMs = cpuMsOf(child.pid!) - client0
        child.stdin!.write('go\n')
        await expect('closed')
        return { ...out, cpuMs, clientCpuMs }
      }
      try {
        return await Promise.race([run(), timeout])
      } finally {
        clearTimeout(timer)
      }
    },
    close() {
      child.stdin!.end('exit\n')
      setTimeout(() => child.kill('SIGKILL'), 2_000).unref()
    },
  }
}

interface Params {
  tokens: number
  ms: number
  rampMs: number
}

const cpuPer1k = (s: Step) => (s.cpuMs / Math.max(1, s.received)) * 1000
const passes = (s: Step) => s.p99 <= P99_MAX_MS && s.missing === 0 && s.errors === 0

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const quick = ctx.quick
  const p: Params = quick ? { tokens: 40, ms: 25, rampMs: 200 } : { tokens: 200, ms: 25, rampMs: 1_000 }
  const sizes = quick ? [50, 200] : [400, 2_000]
  const reps = quick ? 2 : ctx.reps
  /** Search: at most this many extra steps per configuration, and no N above the cap. */
  const searchSteps = quick ? 1 : 5
  const searchCap = quick ? 800 : 8_000
  const searchBudgetMs = quick ? 6_000 : 70_000
  // The whole benchmark must end within the runner's timeout (60 s quick, 600 s full): the search gets what is left.
  const began = performance.now()
  const totalBudgetMs = quick ? 45_000 : 520_000
  // One anonymous load generator stands in for N users: the per-connection and per-address rate limits and
  // the concurrent-run cap are off; idle sessions unload after 1 s so steps do not pile up loaded sessions.
  const limits = JSON.stringify({
    connectionRatePerSec: 0,
    principalRatePerSec: 0,
    maxConcurrentRuns: 0,
    maxSessionsPerPrincipal: 0,
    sessionIdleMs: 1_000,
  })
  const parlance = (data: string) => ['--store', 'sqlite', '--data', join(ctx.tmp, data), '--agent', 'bench/agents/paced.ts', '--limits', limits]
  const configs: Config[] = [
    { name: 'raw ws', transport: 'HAI /ws', role: 'raw', mode: 'ws', path: '/', script: 'bench/servers/raw-ws-paced.ts', args: [] },
    {
      name: FLOOR,
      transport: 'HAI /ws',
      role: 'floor',
      mode: 'ws',
      path: '/',
      script: 'bench/servers/raw-ws-paced.ts',
      args: ['--data', join(ctx.tmp, 'floor', 'frames.db')],
    },
    {
      name: 'Parlance HAI, SQLite',
      transport: 'HAI /ws',
      role: 'parlance',
      mode: 'ws',
      path: '/ws',
      script: 'bench/servers/parlance.ts',
      args: parlance('hai'),
    },
    { name: 'raw SSE', transport: 'AG-UI SSE', role: 'raw', mode: 'sse', path: '/agui', script: 'bench/servers/raw-sse-paced.ts', args: [] },
    {
      name: 'Parlance AG-UI, SQLite',
      transport: 'AG-UI SSE',
      role: 'parlance',
      mode: 'sse',
      path: '/agui',
      script: 'bench/servers/parlance.ts',
      args: parlance('agui'),
    },
  ]
  const servers: ServerProcess[] = []
  const load = loadGenerator()
  let stepNo = 0
  const steps = new Map<string, Step[]>() // `${config}@${n}` → repetitions
  const searched = new Map<string, { lo: number; hi: number; trail: string[]; cpuShare: number; failShare: number }>()
  /** Server CPU share (of a core) of every measured step, fixed sizes and search alike: `${config}@${n}` → shares. */
  const shares = new Map<string, number[]>()
  const shareAt = (name: string, n: number) => (shares.has(`${name}@${n}`) ? median(shares.get(`${name}@${n}`)!) : NaN)
  try {
    for (const c of configs) servers.push(await startServer(c.script, c.args))
    // One unmeasured step per server first: a fresh process's first streams run while V8 is still compiling
    // their code (Parlance at 400 sessions, 20 s idle before each step: p99 15–39 ms on a fresh server's first
    // step, 5–13 ms on the next ones), and a gateway in service is warm. Every configuration gets the same.
    const warm: Params = { tokens: 40, ms: p.ms, rampMs: p.rampMs / 5 }
    for (const [i, c] of configs.entries()) await load.step(servers[i]!, c, quick ? 20 : 200, warm, `paced-${process.pid}-warm-${i}`)
    const measure = async (i: number, n: number): Promise<Step> => {
      const c = configs[i]!
      const s = await load.step(servers[i]!, c, n, p, `paced-${process.pid}-${++stepNo}`)
      shares.set(`${c.name}@${n}`, [...(shares.get(`${c.name}@${n}`) ?? []), s.cpuMs / 1000 / s.seconds])
      const note = `p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, first-token p99 ${s.firstP99.toFixed(0)} ms, ${cpuPer1k(s).toFixed(1)} ms CPU/1k tokens (server ${(s.cpuMs / 10 / s.seconds).toFixed(0)} %, client ${(s.clientCpuMs / 10 / s.seconds).toFixed(0)} % of a core), ${s.received.toLocaleString('en-US')} tokens in ${s.seconds.toFixed(1)} s`
      ctx.log(
        `    ${c.name} N=${n}: ${note}${s.errors ? `; ${s.errors} errors (${s.errorSamples[0] ?? ''})` : ''}${s.missing ? `; ${s.missing} tokens missing` : ''}${s.connectError ? `; connect: ${s.connectError}` : ''}`,
      )
      return s
    }

    // Fixed sizes: repetitions interleaved across configurations.
    for (const n of sizes) {
      for (let r = 0; r < reps; r++) {
        for (const [i, c] of configs.entries()) {
          const key = `${c.name}@${n}`
          steps.set(key, [...(steps.get(key) ?? []), await measure(i, n)])
        }
      }
    }

    // Largest N with p99 ≤ 100 ms: bracket from the fixed sizes, doubling up or halving down, then bisect
    // geometrically; each step is one run, bounded by a step count and a time budget per configuration.
    for (const [i, c] of configs.entries()) {
      const ok = (n: number) => {
        const xs = steps.get(`${c.name}@${n}`)!
        return median(xs.map((s) => s.p99)) <= P99_MAX_MS && xs.every((s) => s.missing === 0 && s.errors === 0)
      }
      let lo = 0
      let hi = Infinity
      for (const n of sizes) if (ok(n)) lo = Math.max(lo, n)
      for (const n of sizes) if (!ok(n) && n > lo) hi = Math.min(hi, n)
      const trail: string[] = []
      const searchStarted = performance.now()
      const budget = Math.min(searchBudgetMs, (totalBudgetMs - (searchStarted - began)) / (configs.length - i))
      for (let k = 0; k < searchSteps && performance.now() - searchStarted < budget; k++) {
        let n: number
        if (hi === Infinity) n = Math.min(searchCap, lo * 2)
        else if (lo === 0) n = Math.max(1, Math.floor(hi / 2))
        else n = Math.round(Math.sqrt(lo * hi))
        if ((hi !== Infinity && hi / Math.max(1, lo) <= 1.15) || n === lo || n === hi || (hi === Infinity && lo >= searchCap)) break
        const s = await measure(i, n)
        trail.push(`${n}: p99 ${s.p99.toFixed(0)} ms${passes(s) ? '' : ' ✗'}`)
        if (passes(s)) lo = n
        else hi = n
      }
      searched.set(c.name, { lo, hi, trail, cpuShare: shareAt(c.name, lo), failShare: shareAt(c.name, hi) })
    }
  } finally {
    load.close()
    await Promise.all(servers.map((s) => s.close()))
  }

  const samples = (name: string, n: number, f: (s: Step) => number) => steps.get(`${name}@${n}`)!.map(f)
  const tables: Table[] = []
  for (const transport of ['HAI /ws', 'AG-UI SSE'] as const) {
    const cs = configs.filter((c) => c.transport === transport)
    for (const n of sizes) {
      const label = `${transport}, ${n.toLocaleString('en-US')} sessions`
      tables.push(
        table(
          `${label}: server CPU per 1,000 tokens`,
          'ms',
          false,
          cs.map((c) => [c.name, samples(c.name, n, cpuPer1k)] as const),
        ),
      )
      tables.push(
        table(
          `${label}: token delay behind schedule, p50`,
          'ms',
          false,
          cs.map((c) => [c.name, samples(c.name, n, (s) => s.p50)] as const),
        ),
      )
      tables.push(
        table(
          `${label}: token delay behind schedule, p99`,
          'ms',
          false,
          cs.map((c) => [c.name, samples(c.name, n, (s) => s.p99)] as const),
        ),
      )
    }
    tables.push(
      table(
        `${transport}: largest N with p99 delay ≤ ${P99_MAX_MS} ms (one server thread)`,
        'sessions',
        true,
        cs.map((c) => [c.name, [searched.get(c.name)!.lo]] as const),
      ),
    )
  }

  const pct = (x: number) => `${(x * 100).toFixed(0)} %`
  const bracket = (name: string) => {
    const s = searched.get(name)!
    const range =
      s.hi === Infinity
        ? `≥ ${s.lo.toLocaleString('en-US')} (the search stops at ${searchCap.toLocaleString('en-US')})`
        : s.lo === 0
          ? `< ${s.hi.toLocaleString('en-US')}`
          : `${s.lo.toLocaleString('en-US')}–${s.hi.toLocaleString('en-US')}`
    return `${name}: ${range}${s.trail.length ? ` (steps ${s.trail.join(', ')})` : ''}${Number.isFinite(s.cpuShare) ? `; server at ${pct(s.cpuShare)} of a core at the largest passing N` : ''}${Number.isFinite(s.failShare) ? `, ${pct(s.failShare)} at the smallest failing one` : ''}`
  }
  // Issue 17's targets, per transport: Parlance over the raw server of the same run (medians).
  const targets: BenchResult['targets'] = []
  for (const transport of ['HAI /ws', 'AG-UI SSE'] as const) {
    const raw = configs.find((c) => c.transport === transport && c.role === 'raw')
    const ours = configs.find((c) => c.transport === transport && c.role === 'parlance')
    if (!raw || !ours) continue
    const ratio = (n: number, f: (s: Step) => number) => median(samples(ours.name, n, f)) / median(samples(raw.name, n, f))
    const at = sizes.map((n) => [n, ratio(n, cpuPer1k), ratio(n, (s) => s.p99)] as const)
    const fmt = (xs: ReadonlyArray<readonly [number, number, number]>, k: 1 | 2) =>
      xs.map((x) => `${x[0].toLocaleString('en-US')}: ${x[k].toFixed(2)}×`).join(', ')
    targets.push({ text: `${transport}: CPU per token ≤ 1.5× the raw server's (issue 17)`, measured: fmt(at, 1), met: at.every((x) => x[1] <= 1.5) })
    // A size where the raw server itself is past the p99 limit compares two overloaded servers: left out of the verdict.
    const overloaded = sizes.filter((n) => median(samples(raw.name, n, (s) => s.p99)) > P99_MAX_MS)
    const p99s = at.filter((x) => !overloaded.includes(x[0]))
    targets.push({
      text: `${transport}: p99 token delay ≤ 2× the raw server's (issue 17)`,
      measured:
        fmt(at, 2) +
        (overloaded.length
          ? ` (not comparable at ${overloaded.map((n) => n.toLocaleString('en-US')).join(', ')}: the raw server's own p99 is over ${P99_MAX_MS} ms there)`
          : ''),
      met: p99s.some((x) => x[2] > 2) ? false : overloaded.length ? null : true,
    })
    // The raw server's largest N is its capacity only if its core was full where it failed; else the load
    // generator stopped it first, its N is a lower bound, and the ratio an upper bound (it can show "not met", never "met").
    const rawS = searched.get(raw.name)!
    const clientBound = rawS.hi === Infinity || !(rawS.failShare >= SATURATED_SHARE)
    const maxN = searched.get(ours.name)!.lo / Math.max(1, rawS.lo)
    const why =
      rawS.hi === Infinity
        ? 'the raw server passed every N tried'
        : Number.isFinite(rawS.failShare)
          ? `the raw server used ${pct(rawS.failShare)} of a core where it failed, so the load generator limited it`
          : "the raw server's CPU where it failed was not measured"
    targets.push({
      text: `${transport}: largest N with p99 ≤ ${P99_MAX_MS} ms ≥ 0.7× the raw server's (issue 17)`,
      measured: `${maxN.toFixed(2)}×${clientBound ? ` (an upper bound: ${why})` : ''}`,
      met: maxN < 0.7 ? false : clientBound ? null : true,
    })
  }
  // Parlance HAI against the durable floor: what write-before-send costs at its cheapest, and what Parlance adds to it.
  const vsFloor = (name: string, n: number, f: (s: Step) => number) => median(samples(name, n, f)) / median(samples('raw ws', n, f))
  const floorText = sizes
    .map(
      (n) =>
        `${n.toLocaleString('en-US')} sessions: the floor's CPU per token ${vsFloor(FLOOR, n, cpuPer1k).toFixed(2)}× the raw server's and its p99 delay ${vsFloor(FLOOR, n, (s) => s.p99).toFixed(2)}×; Parlance HAI's CPU ${(median(samples('Parlance HAI, SQLite', n, cpuPer1k)) / median(samples(FLOOR, n, cpuPer1k))).toFixed(2)}× the floor's`,
    )
    .join('; ')
  const firstToken = (name: string, n: number) => `${median(samples(name, n, (s) => s.firstP99)).toFixed(0)} ms`
  const big = sizes[sizes.length - 1]!
  return {
    name: 'paced',
    title,
    command: `npm run bench -- paced${quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick,
    machine: machine(),
    params: { tokens: p.tokens, tokenIntervalMs: p.ms, sessions: sizes.join(' and '), rampMs: p.rampMs, repetitions: reps, p99LimitMs: P99_MAX_MS },
    description:
      `N sessions (${sizes.map((n) => n.toLocaleString('en-US')).join(' and ')}), each streaming ${p.tokens} tokens one every ${p.ms} ms: Parlance (SQLite store) runs bench/agents/paced.ts, whose \`run\` makes one \`ctx.say\` of an async iterable that awaits one timer per token, token i due i·${p.ms} ms after the run started (an LLM-like stream), ` +
      'over HAI (`/ws`) and over AG-UI (`POST /agui`, SSE). Baselines: a bare `ws` server pacing the identical HAI `assistant_message_chunk` frames, and a bare node:http SSE server pacing the identical AG-UI `TEXT_MESSAGE_CONTENT` events, on the same timer-per-token schedule. ' +
      `For HAI, a second reference: the same bare ws server made durable at the least cost (${FLOOR}, bench/servers/raw-ws-paced.ts --data): the frames of one event-loop tick are appended in one SQLite transaction (WAL, synchronous NORMAL, a row per frame holding its text, no index, SQLite's own checkpoints) before they are sent — write-before-send with nothing else, the floor under any durable gateway; its ratios are to the raw ws server like the others'. ` +
      "The schedule is absolute, not chained (MS after the previous token): chained timers add up each timer's sub-millisecond lateness along a run (one session on a bare ws server: p99 36 ms over 200 tokens), so the figure would measure timer granularity; with an absolute schedule a late server finds overdue tokens ready, as with a model's stream, and its lag shows at the client. " +
      `One load-generator process drives every configuration (ws: the N sockets are connected first, not measured), and each server first gets one unmeasured warm-up step (${quick ? 20 : 200} sessions × 40 tokens), so no figure includes a fresh process compiling its code; the session starts are spread evenly over ${p.rampMs.toLocaleString('en-US')} ms, and Parlance's rate limits are raised instead (\`--limits\`: per-connection and per-address rates, \`maxConcurrentRuns\` and \`maxSessionsPerPrincipal\` off), so the default limits do not shape the load. ` +
      'Server CPU = utime+stime of the server process from /proc/<pid>/stat before `go` and after the last run ended, over the tokens received. ' +
      `Token delay: delay_i = arrival_i − (arrival_r + (i − r)·${p.ms} ms) at the client for every token i of a run, where r is the run's least-delayed token (the r minimising arrival_r − r·${p.ms} ms; usually the first, and then this is arrival_i − (arrival_0 + i·${p.ms} ms)): the client cannot know the server's schedule, and a first token that was itself late would make later delays negative. p50/p99 over all tokens of all sessions, one figure per repetition; a token that never arrived counts from its expected time to the end of the step (a lower bound). ` +
      `Largest N: from the fixed sizes, doubling up (to ${searchCap.toLocaleString('en-US')}) or halving down, then geometric bisection, one run per step, at most ${searchSteps} steps per configuration; a step passes when p99 ≤ ${P99_MAX_MS} ms with no token missing.`,
    tables,
    targets,
    limits:
      `Write-before-send has a price of its own, which the raw baselines do not pay. The durable floor measured it in this run: ${floorText}. ` +
      'Every token is its own timer, agent step and frame, so the cost per token is fixed overhead, not bytes. Where it goes, layer by layer, without sockets or a client ' +
      '(`npx tsx bench/paced-core.ts LAYER`, 400 sessions × 200 tokens × 25 ms in one process, CPU per 1,000 tokens, median of 3, 2026-11-26; single runs vary by up to ±30 %): a timer per token building the frame 4.3 ms; ' +
      "+ the agent's async generator read by `for await` 5.5; + session, run, model fold and group commit over a store that does nothing 10.7; + the SQLite store 21.9 " +
      '(memory store 13.0); + the HAI encoder and a Buffer per frame 22.3 (memory 17.2). The socket write per token, which the raw server pays too, is the rest of the raw ws figure ' +
      "(per thread, from /proc/PID/task at 400 sessions: 91 % of the raw ws server's CPU and 84 % of Parlance's is the main thread; V8's GC helper threads and the checkpoint worker are the rest). " +
      '`perf` of that process: no single function over 2.5 % of the samples; V8 runtime 60 % (Map lookups, megamorphic property loads, generator resumption, promise ' +
      "resolution, JSON.stringify of the journal and of the blocks), kernel 10–15 % (WAL writes and page faults), SQLite's own code 4 %. " +
      "Over sockets (`perf record -g -p PID` of each server for 5 s of a 1,500-session step driven by bench/load/paced.ts, 2026-11-27): the write system call that sends a token's frame is 54–62 % of the raw ws server's cycles and 26–28 % of Parlance's, about 6 µs per token in both (of 10.4 and 22.1 µs per token by /proc in those runs), so the raw server spends ~4.4 µs per token on everything else and Parlance ~16: CPU per token ≤ 1.5× the raw server's leaves Parlance ~9.6 µs besides the write, every layer above cut by ~40 %. " +
      'The store serializes and writes ' +
      "each event twice (journal row, then its session's block), which is what keeps a commit one B-tree append when a commit carries one event each of hundreds of sessions. " +
      "The commit itself, timed inside that harness at 400 sessions (SQLite, 2026-11-26 evening; ~18 events per commit): JSON of the journal row ~2 µs per event, the row's insert and " +
      'BEGIN/COMMIT ~30 and ~55 µs per commit, the loop over the records ~1–1.5 µs per session in the unit, blocks ~1.7 µs per event compacted. Appending the journal to a plain file instead of an SQLite row ' +
      '(one write(2) per commit, no transaction when no record or block changes: 73 % of commits) was tried: 65 µs per commit against ~90 (by difference), commit time per 1,000 tokens 10.1 → 9.1 ms, ' +
      "CPU per token −2 % (2,000 sessions: within noise), so the SQLite journal stayed; the cost is in making each event's JSON and the bookkeeping around it, not in the append. " +
      'Latency: the p99 delay at 400 sessions is set by stalls of the event loop, not by the average cost: young-generation GCs (3–30 ms; over sockets at 400 sessions, ' +
      '`--trace-gc-nvp`: a scavenge every ~13 MB allocated, 3–5 ms each, copying ~750 KB and promoting ~400 KB, mostly events held in the tails until compaction; ' +
      "`--no-parallel-scavenge`, a 4 MB or a 64 MB semi-space all made the p99 worse) and, until now, SQLite's " +
      'automatic WAL checkpoint (every 1,000 pages, copying them and waiting for two fsyncs inside a commit: 30–45 ms); checkpoints now run in a worker thread ' +
      '(event-loop delay p99 at 400 sessions 12–16 → 6–8.5 ms in that harness). ' +
      "What the p99 at 400 sessions measures here is a server that has been idle: the repetitions are interleaved, so each server waits ~40 s between its steps. Measured on its own (the same servers and load generator, 400 sessions, 2026-11-27), Parlance HAI's p99 was 3.2–5.2 ms in 11 steps that directly followed a warm-up step (the raw ws server: 2.5–2.6 ms, unchanged by idling) and 6.5–10.5 ms in 6 steps after 30 s idle, with more CPU per token (medians +9 %; memory store +20 %); the memory store behaves the same (3.0–3.6 against 6.3–8.2 ms), so it is not SQLite. With `--trace-deopt`, a garbage collection during the idle period deoptimizes 14 optimized functions (the group commit, the block encoder, the HAI encoder, Node's stream write path) for \"weak objects\", their embedded objects having died with the previous step's sessions; a warm-up of 200 sessions × 40 tokens right before the step did not bring the p99 back (5.1–8.5 ms), nor did V8 flags (no memory reducer, a 16 MB minimum semi-space, no bytecode flushing, alone or together: 5.5–9.7 ms in 19 steps), but 10 s of load (400 sessions × 400 tokens) did (4.2–4.7 ms in 3 steps; without the idle period: 3.5–4.0): what idling loses takes seconds of load to come back. A gateway under steady traffic keeps it; one woken by a burst pays it for its first seconds. " +
      `Time to the first token beyond its ${p.ms} ms timer (session open and run start; not part of the delay figure), p99 at ${big.toLocaleString('en-US')} sessions: ${configs.map((c) => `${c.name} ${firstToken(c.name, big)}`).join(', ')}. ` +
      "The load generator shares the 2 cores with the server; near the largest N it receives tens of thousands of frames a second itself, so a baseline's largest N may be the client's limit rather than the server's: " +
      `when the raw server used under ${SATURATED_SHARE * 100} % of a core at its smallest failing N (or passed every N tried), the largest-N ratio is reported as an upper bound and cannot count as met, and a size where the raw server's own p99 is over ${P99_MAX_MS} ms is left out of the p99 verdict. ` +
      `Largest N found: ${configs.map((c) => bracket(c.name)).join('; ')}.`,
    notes: [],
  }
}
