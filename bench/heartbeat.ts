// (14) Heartbeat: the event loop's largest delay per heartbeat interval while 10,000 idle WebSockets (1,000 with
// --quick) are pinged, Parlance (pings spread over the interval) against a bare `ws` server pinging every socket
// from one timer, as the `ws` README shows. A stall there pauses every stream the server carries.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { sleep, startServer, track } from './lib/proc.js'
import { machine, median, table, type BenchContext, type BenchResult } from './lib/result.js'

export const title = 'Heartbeat with many idle sockets'

const INTERVAL_MS = 5_000
const INTERVALS = 4

/** Largest event-loop delay (ms) in each of INTERVALS heartbeat intervals, read once a second. */
async function measure(
  ctx: BenchContext,
  name: string,
  script: string,
  args: string[],
  path: string,
  n: number,
  lagMs: (port: number) => Promise<number>,
): Promise<{ perInterval: number[]; connected: number }> {
  const server = await startServer(script, args)
  try {
    const child = track(
      spawn(process.execPath, ['--import', 'tsx', 'bench/load/concurrency.ts', `ws://127.0.0.1:${server.port}${path}`, String(n), '1', '0'], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    )
    try {
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
      const first: IteratorResult<string> = await lines.next()
      const connected = Number(/^connected (\d+)/.exec(first.done ? '' : first.value)?.[1] ?? 0)
      ctx.log(`    ${name}: ${connected} idle sockets, pinged every ${INTERVAL_MS / 1000} s`)
      // One interval to settle: the first pings after the connections opened were sometimes cheap for the
      // baseline (its clients still busy), which would understate its stall.
      await sleep(INTERVAL_MS)
      await lagMs(server.port) // starts the first second afresh
      const perInterval: number[] = []
      for (let i = 0; i < INTERVALS; i++) {
        let worst = 0
        for (let s = 0; s < INTERVAL_MS / 1000; s++) {
          await sleep(1_000)
          worst = Math.max(worst, await lagMs(server.port))
        }
        perInterval.push(worst)
      }
      ctx.log(`    ${name}: largest delay per interval ${perInterval.map((x) => x.toFixed(0)).join(', ')} ms`)
      return { perInterval, connected }
    } finally {
      child.kill('SIGKILL')
    }
  } finally {
    await server.close()
  }
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const n = ctx.quick ? 1_000 : 10_000
  const limits = JSON.stringify({ connectionRatePerSec: 0, principalRatePerSec: 0 })
  const raw = await measure(ctx, 'ws, ping all at once', 'bench/servers/raw-ws-heartbeat.ts', [String(INTERVAL_MS)], '/', n, async (port) => {
    const r = (await (await fetch(`http://127.0.0.1:${port}/lag`)).json()) as { maxMs: number }
    return r.maxMs
  })
  const par = await measure(
    ctx,
    'Parlance',
    'bench/servers/parlance.ts',
    ['--store', 'memory', '--heartbeat', String(INTERVAL_MS), '--limits', limits],
    '/ws',
    n,
    async (port) => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
      return Number(/^parlance_nodejs_eventloop_lag_max_seconds ([\d.e+-]+)$/m.exec(text)?.[1] ?? NaN) * 1000
    },
  )
  const t = table(
    `largest event-loop delay per heartbeat interval, ${Math.min(raw.connected, par.connected).toLocaleString('en-US')} idle sockets`,
    'ms',
    false,
    [
      ['ws, every socket pinged from one timer', raw.perInterval],
      ['Parlance, pings spread over the interval', par.perInterval],
    ],
  )
  const ratio = median(par.perInterval) / median(raw.perInterval)
  return {
    name: 'heartbeat',
    title,
    command: `npm run bench -- heartbeat${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { sockets: n, intervalMs: INTERVAL_MS, intervals: INTERVALS },
    description:
      `One load-generator process opens ${n.toLocaleString('en-US')} WebSockets that then stay idle (their client answers pings). The server pings each once every ${INTERVAL_MS / 1000} s; ` +
      `for ${INTERVALS} intervals the benchmark reads the server's largest event-loop delay once a second (Parlance: \`parlance_nodejs_eventloop_lag_max_seconds\` on /metrics; the baseline: its own \`monitorEventLoopDelay\`, same 10 ms resolution) and keeps the largest per interval. ` +
      'Baseline: a bare `ws` server with the heartbeat of the `ws` README (one timer pings every socket). Parlance: the default heartbeat, a sixtieth of the sockets pinged each tick (here every 83 ms), with the interval shortened to 5 s to keep the run short.',
    tables: [t],
    targets: [
      {
        text: 'no issue target: the heartbeat stalls no stream (largest delay per interval ≤ 0.25× the ping-all baseline)',
        measured: `${ratio.toFixed(2)}× (${median(par.perInterval).toFixed(0)} vs ${median(raw.perInterval).toFixed(0)} ms)`,
        met: ratio <= 0.25,
      },
    ],
    limits:
      'A ping is one syscall per socket (~10–20 µs here), so pinging every socket from one timer stalls the loop for the whole set at once; spread over 60 ticks, each tick pings a sixtieth and the delay is what the rest of the server costs. ' +
      'The 10 ms resolution of the delay monitor is the floor of both figures. The baseline stalls at nearly every interval, but not always (an interval with no stall shows as its min); the median per interval is what the ratio compares.',
    notes: [],
  }
}
