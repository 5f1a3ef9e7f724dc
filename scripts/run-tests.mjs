// Runs every *.test.ts under src/ and test/ with node's test runner (TypeScript through tsx), in three tiers:
//   unit    src/**/*.test.ts and the tests of test/ that open no socket (quick, many files at once)
//   socket  the rest of test/: a server on loopback and the real clients
//   heavy   suites that start clusters, browsers, packed installs or a thousand sockets
// Each tier is one `node --test` run with its own per-test timeout; files of a tier run `concurrency` at a time,
// taken from the machine's cores. The heavy tier runs beside the others when the machine has the cores for it.
//
// Usage: node scripts/run-tests.mjs [--tier unit|socket|heavy]… [filter-substring…]
//   (no --tier: every tier; substrings keep the files whose path contains one of them)
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'

/** Tests under test/ that open no socket, start no server and spawn nothing. */
const PURE = ['test/codecs-http.property.test.ts', 'test/layering.test.ts', 'test/public-api.test.ts', 'test/store-memory.test.ts']

/** Heavy tests: each takes a minute or loads the whole machine (a cluster, a browser, npm pack, 1,000 sockets). */
const HEAVY = [
  /^test\/cluster-suite\.test\.ts$/,
  /^test\/inspector\.test\.ts$/,
  /^test\/install\.test\.ts$/,
  /^test\/limits-per-client\.test\.ts$/,
  /^test\/browser-origins\.test\.ts$/,
  /^test\/browser\//,
  /^test\/deploy-[^/]*\.test\.ts$/,
]

const cores = availableParallelism()

/** Per tier: files run at once and the per-test timeout (ms). */
const TIERS = {
  unit: { concurrency: cores, timeoutMs: 120_000 },
  socket: { concurrency: cores, timeoutMs: 300_000 },
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
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const tier = a === '--tier' ? argv[++i] : a.startsWith('--tier=') ? a.slice('--tier='.length) : undefined
    if (tier === undefined) filters.push(a)
    else if (tier in TIERS) tiers.push(tier)
    else {
      console.error(`unknown tier "${tier}": one of ${Object.keys(TIERS).join(', ')}`)
      process.exit(2)
    }
  }
  return { tiers: tiers.length ? tiers : Object.keys(TIERS), filters }
}

/** One tier: a `node --test` run over its files; resolves with its exit code and duration. */
function runTier(name, files) {
  const { concurrency, timeoutMs } = TIERS[name]
  console.log(`# tier ${name}: ${files.length} file(s), ${concurrency} at a time, ${timeoutMs / 1000} s per test`)
  const started = Date.now()
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${timeoutMs}`, ...files], { stdio: 'inherit' })
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ name, code: signal ? 1 : (code ?? 1), seconds: (Date.now() - started) / 1000 })))
}

const { tiers, filters } = parseArgs(process.argv.slice(2))
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
for (const r of results) console.log(`# tier ${r.name}: ${r.code === 0 ? 'passed' : 'FAILED'} in ${r.seconds.toFixed(1)} s`)
process.exit(results.every((r) => r.code === 0) ? 0 : 1)
