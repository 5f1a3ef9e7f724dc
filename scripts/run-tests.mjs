// Runs every *.test.ts under src/ and test/ with node's test runner, in three tiers:
//   unit    src/**/*.test.ts and the tests of test/ that open no socket (quick, many files at once)
//   socket  the rest of test/: a server on loopback and the real clients
//   heavy   suites that start clusters, browsers, packed installs or a thousand sockets
// Each tier is one `node --test` run with its own per-test timeout; files of a tier run `concurrency` at a time,
// taken from the machine's cores. The heavy tier runs beside the others when the machine has the cores for it.
// The TypeScript is compiled once by esbuild (test/support/compile.mjs) and the tests run from that JavaScript:
// through tsx's loader, every test process spent about 0.7 s more CPU starting up. PARLANCE_TEST_BUILD tells
// tests where the compiled tree is (the cluster suite runs its suites from it too).
//
// Usage: node scripts/run-tests.mjs [--tier unit|socket|heavy]… [--times] [--tsx] [--concurrency N] [filter-substring…]
//   (no --tier: every tier; substrings keep the files whose path contains one of them; --times prints each tier's
//   CPU time and its files by CPU time, their own plus their child processes', with their wall time: Linux only;
//   --tsx runs the .ts files through tsx as they are, without the compile step; --concurrency N runs N files at
//   once in every tier, for experiments)
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compileTests } from '../test/support/compile.mjs'

/** Tests under test/ that open no socket, start no server and spawn nothing. */
const PURE = ['test/codecs-http.property.test.ts', 'test/layering.test.ts', 'test/public-api.test.ts', 'test/store-memory.test.ts']

/** Heavy tests: each takes a minute or loads the whole machine (a cluster, a browser, npm pack, 1,000 sockets). */
const HEAVY = [
  /^test\/cluster-suite\.test\.ts$/,
  /^test\/inspector\.test\.ts$/,
  /^test\/inspector-own-agent\.test\.ts$/,
  /^test\/usage-inspector\.test\.ts$/,
  /^test\/install\.test\.ts$/,
  /^test\/limits-per-client\.test\.ts$/,
  /^test\/browser-origins\.test\.ts$/,
  /^test\/browser\//,
  /^test\/deploy-[^/]*\.test\.ts$/,
  /^test\/drain\.test\.ts$/,
  /^test\/rolling-restart\.test\.ts$/,
]

const cores = availableParallelism()

/**
 * Per tier: files run at once and the per-test timeout (ms). Socket files mostly wait (demo runs paced by timers,
 * restarts, Redis outages): measured with --times on 2 cores, the tier took 193 s of CPU either way, and 216 s of
 * wall time two files at a time against 147 s four at a time.
 */
const TIERS = {
  unit: { concurrency: cores, timeoutMs: 120_000 },
  socket: { concurrency: cores * 2, timeoutMs: 300_000 },
  heavy: { concurrency: Math.max(1, Math.floor(cores / 2)), timeoutMs: 600_000 },
}

function find(dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'fixtures') out.push(...find(p))
    } else if (entry.name.endsWith('.test.ts')) out.push(p)
  }
  return out
}

function tierOf(file) {
  const f = file.split('\\').join('/')
  if (f.startsWith('src/') || PURE.includes(f)) return 'unit'
  return HEAVY.some((re) => re.test(f)) ? 'heavy' : 'socket'
}

function parseArgs(argv) {
  const tiers = []
  const filters = []
  let times = false
  let tsx = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--times' || a === '--tsx') {
      if (a === '--times') times = true
      else tsx = true
      continue
    }
    if (a === '--concurrency') {
      const n = Number(argv[++i])
      if (!Number.isInteger(n) || n < 1) {
        console.error('--concurrency needs a whole number of files, 1 or more')
        process.exit(2)
      }
      for (const t of Object.values(TIERS)) t.concurrency = n
      continue
    }
    const tier = a === '--tier' ? argv[++i] : a.startsWith('--tier=') ? a.slice('--tier='.length) : undefined
    if (tier === undefined) filters.push(a)
    else if (tier in TIERS) tiers.push(tier)
    else {
      console.error(`unknown tier "${tier}": one of ${Object.keys(TIERS).join(', ')}`)
      process.exit(2)
    }
  }
  return { tiers: tiers.length ? tiers : Object.keys(TIERS), filters, times, tsx }
}

/** CPU seconds (user + system) of this process's reaped children, from /proc: 0 where there is none. */
function childrenCpu() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[13]) + Number(f[14])) / 100
  } catch {
    return 0
  }
}

/** --times: the files of a tier by CPU time, from the lines test/support/cpu-report.mjs appended. */
function printTimes(name, cpuFile) {
  if (!existsSync(cpuFile)) return
  const rows = readFileSync(cpuFile, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
  if (compiled) for (const r of rows) r.file = relative(compiled.outDir, join(ROOT, r.file)).replace(/\.js$/, '.ts')
  rows.sort((a, b) => b.self + b.children - (a.self + a.children))
  const total = rows.reduce((n, r) => n + r.self + r.children, 0)
  console.log(`# tier ${name}: files by CPU s (own + children), wall s; ${rows.length} file(s), ${total.toFixed(1)} s CPU in all`)
  for (const r of rows)
    console.log(
      `#   ${(r.self + r.children).toFixed(1).padStart(7)} ${r.children.toFixed(1).padStart(7)} ${r.wall.toFixed(1).padStart(7)}  ${r.file}`,
    )
}

/** One tier: a `node --test` run over its files; resolves with its exit code and duration. */
function runTier(name, files) {
  const { concurrency, timeoutMs } = TIERS[name]
  console.log(`# tier ${name}: ${files.length} file(s), ${concurrency} at a time, ${timeoutMs / 1000} s per test`)
  const started = Date.now()
  const cpuBefore = childrenCpu()
  const cpuFile = timesDir ? join(timesDir, `${name}.jsonl`) : undefined
  const report = cpuFile ? ['--import', './test/support/cpu-report.mjs'] : []
  const env = { ...process.env, ...(cpuFile ? { PARLANCE_TEST_CPU: cpuFile } : {}), ...(compiled ? { PARLANCE_TEST_BUILD: compiled.outDir } : {}) }
  const load = compiled ? ['--enable-source-maps'] : ['--import', 'tsx']
  const paths = compiled ? files.map(compiled.path) : files
  const child = spawn(
    process.execPath,
    [...load, ...report, '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${timeoutMs}`, ...paths],
    { stdio: 'inherit', env },
  )
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      if (cpuFile) printTimes(name, cpuFile)
      resolve({ name, code: signal ? 1 : (code ?? 1), seconds: (Date.now() - started) / 1000, cpu: childrenCpu() - cpuBefore })
    }),
  )
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))
process.chdir(ROOT)
const { tiers, filters, times, tsx } = parseArgs(process.argv.slice(2))
const timesDir = times ? mkdtempSync(join(tmpdir(), 'parlance-test-times-')) : undefined
const files = ['src', 'test']
  .flatMap(find)
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort()
const byTier = Object.fromEntries(tiers.map((t) => [t, files.filter((f) => tierOf(f) === t)]))
const chosen = tiers.filter((t) => byTier[t].length > 0)
if (chosen.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}
console.log(`# tiers: ${chosen.join(', ')} (${cores} core(s))`)
const compiled = tsx ? undefined : await compileTests(ROOT)
if (compiled) for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => (compiled.dispose(), process.exit(130)))

// With four cores or more the heavy tier runs beside unit + socket; on fewer it would only slow both down.
const results = []
const light = chosen.filter((t) => t !== 'heavy')
const heavy = chosen.includes('heavy') ? byTier.heavy : null
const lightRun = (async () => {
  for (const t of light) results.push(await runTier(t, byTier[t]))
})()
if (heavy && cores >= 4) await Promise.all([lightRun, runTier('heavy', heavy).then((r) => results.push(r))])
else {
  await lightRun
  if (heavy) results.push(await runTier('heavy', heavy))
}
// With the heavy tier beside the others, one tier's CPU time includes the other's processes reaped meanwhile.
const cpuNote = (r) => (times && !(heavy && cores >= 4) ? `, ${r.cpu.toFixed(1)} s CPU` : '')
for (const r of results) console.log(`# tier ${r.name}: ${r.code === 0 ? 'passed' : 'FAILED'} in ${r.seconds.toFixed(1)} s${cpuNote(r)}`)
if (timesDir) rmSync(timesDir, { recursive: true, force: true })
compiled?.dispose()
process.exit(results.every((r) => r.code === 0) ? 0 : 1)
