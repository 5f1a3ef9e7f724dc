// npm run bench [-- --quick] [-- <name> ...]: runs the benchmark modules (bench/<name>.ts, each exporting
// `run(ctx)`), writes bench/results/<name>.json (quick runs: bench/results/quick/), and after a full run
// regenerates BENCHMARKS.md and the SVG charts from every result JSON. Servers and load generators run in
// separate processes on 127.0.0.1 and are killed on exit or timeout (bench/lib/proc.ts). `-- --report` runs
// nothing and only regenerates BENCHMARKS.md and the charts (after editing a note in bench/notes/, say).
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { printTable, writeResult, type BenchContext, type BenchResult } from './lib/result.js'
import { writeReport } from './lib/report.js'
import { PROFILE, TODO } from './lib/sections.js'
import * as haiStream from './hai-stream.js'
import * as humaStream from './huma-stream.js'
import * as aguiStream from './agui-stream.js'
import * as openaiStream from './openai-stream.js'
import * as myagentStream from './myagent-stream.js'
import * as replay from './replay.js'
import * as storeAppend from './store-append.js'
import * as sqliteDrivers from './sqlite-drivers.js'
import * as longHistory from './long-history.js'
import * as fanout from './fanout.js'
import * as concurrency from './concurrency.js'
import * as heartbeat from './heartbeat.js'
import * as validation from './validation.js'
import * as cluster from './cluster.js'
import * as rollingRestart from './rolling-restart.js'
import * as paced from './paced.js'
import * as sdkStreams from './sdk-streams.js'
import * as a2aGetTask from './a2a-get-task.js'
import * as telemetry from './telemetry.js'
import * as longAnswer from './long-answer.js'
import * as statePatch from './state-patch.js'

interface Bench {
  title: string
  run(ctx: BenchContext): Promise<BenchResult>
}

/** Every benchmark, in the order they run and appear in BENCHMARKS.md. */
const BENCHMARKS: Record<string, Bench> = {
  'hai-stream': haiStream,
  'huma-stream': humaStream,
  'agui-stream': aguiStream,
  'myagent-stream': myagentStream,
  replay,
  'store-append': storeAppend,
  'sqlite-drivers': sqliteDrivers,
  'long-history': longHistory,
  fanout,
  concurrency,
  heartbeat,
  validation,
  cluster,
  'rolling-restart': rollingRestart,
  paced,
  'sdk-streams': sdkStreams,
  'a2a-get-task': a2aGetTask,
  'openai-stream': openaiStream,
  telemetry,
  'long-answer': longAnswer,
  'state-patch': statePatch,
}

/** Longest one benchmark may take before the runner gives up on it (ms). */
const BENCH_TIMEOUT_MS = { quick: 60_000, full: 600_000 }

const args = process.argv.slice(2)
const quick = args.includes('--quick')
const names = args.filter((a) => !a.startsWith('--'))
for (const n of names) if (!(n in BENCHMARKS)) throw new Error(`unknown benchmark "${n}"; one of: ${Object.keys(BENCHMARKS).join(', ')}`)
const reportOnly = args.includes('--report')
const selected = reportOnly ? [] : names.length ? names : Object.keys(BENCHMARKS)

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms / 1000} s`)), ms))),
  ]).finally(() => clearTimeout(timer))
}

/** bench/agui-validate.ts belongs to another module: run it as a child process when it exists. */
function aguiValidate(): Promise<void> {
  if (!existsSync('bench/agui-validate.ts')) return Promise.resolve()
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/agui-validate.ts', ...(quick ? ['--quick'] : [])], {
      stdio: ['ignore', 'inherit', 'inherit'],
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      if (code !== 0) process.stderr.write(`bench/agui-validate.ts failed (${code})\n`)
      resolve()
    })
  })
}

const started = performance.now()
const tmp = mkdtempSync(join(tmpdir(), 'parlance-bench-'))
const failed: string[] = []
try {
  for (const name of selected) {
    const bench = BENCHMARKS[name]!
    process.stderr.write(`\n${name}: ${bench.title}${quick ? ' (quick)' : ''}\n`)
    const ctx: BenchContext = { quick, reps: 3, tmp: mkdtempSync(join(tmp, `${name}-`)), log: (l) => process.stderr.write(`${l}\n`) }
    try {
      const result = await withTimeout(bench.run(ctx), quick ? BENCH_TIMEOUT_MS.quick : BENCH_TIMEOUT_MS.full, name)
      for (const t of result.tables) printTable(t)
      for (const t of result.targets)
        process.stderr.write(`  target: ${t.text}: ${t.measured} ${t.met === null ? '' : t.met ? '(met)' : '(NOT met)'}\n`)
      process.stderr.write(`  → ${writeResult(result)}\n`)
    } catch (err) {
      failed.push(name)
      process.stderr.write(`  ${name} FAILED: ${(err as Error).stack ?? String(err)}\n`)
    }
    if (name === 'validation') await aguiValidate()
  }
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
if (!quick) {
  const order = Object.entries(BENCHMARKS).map(([name, b]) => ({ name, title: b.title }))
  const reported = writeReport({ order, todo: TODO, profile: PROFILE })
  process.stderr.write(`\nBENCHMARKS.md regenerated from ${reported.length} result files (${reported.join(', ')})\n`)
}
process.stderr.write(`done in ${((performance.now() - started) / 1000).toFixed(1)} s${failed.length ? `; FAILED: ${failed.join(', ')}` : ''}\n`)
process.exit(failed.length ? 1 : 0)
