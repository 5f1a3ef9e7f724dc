// Runs the compatibility suite: compiles the checkout's Parlance (the main suite's esbuild pass), runs every
// tests/*.test.mjs with node's test runner under this Node, and tests/*.node24.test.mjs under Node 24 (fetched
// from the npm registry when missing: lib/node-bin.mjs), then writes docs/compatibility.md from the results
// (lib/write-doc.mjs). Exits non-zero when a case failed.
//
// Usage: node lib/run.mjs [substring…] [--test-…]   (substrings: only the test files whose name contains one of
// them, and the doc is then written to compat/compatibility.partial.md, so a partial run never replaces the table;
// --test-… options go to node's test runner, e.g. --test-name-pattern=approved)
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { compileTests } from '../../test/support/compile.mjs'
import { nodeBinary } from './node-bin.mjs'

const NODE24 = '24.22.3'
/** The clients' usage reporting off (CopilotKit's runtime telemetry, Scarf): the suite talks to loopback only. */
const QUIET = { COPILOTKIT_TELEMETRY_DISABLED: 'true', SCARF_ANALYTICS: 'false', DO_NOT_TRACK: '1' }
const compat = resolve(import.meta.dirname, '..')
const repo = resolve(compat, '..')
const filters = process.argv.slice(2).filter((a) => !a.startsWith('--test-'))
/** Options for node's test runner runnerOptions through (e.g. --test-name-pattern=approved). */
const runnerOptions = process.argv.slice(2).filter((a) => a.startsWith('--test-'))
const started = Date.now()

const all = readdirSync(join(compat, 'tests'))
  .filter((f) => f.endsWith('.test.mjs'))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
const groups = [
  { node: process.execPath, version: process.versions.node, files: all.filter((f) => !f.endsWith('.node24.test.mjs')) },
  { node: null, version: NODE24, files: all.filter((f) => f.endsWith('.node24.test.mjs')) },
].filter((g) => g.files.length > 0)

const work = mkdtempSync(join(tmpdir(), 'parlance-compat-run-'))
const build = await compileTests(repo, ['src', 'test/support'])
let code = 0
try {
  const results = []
  for (const g of groups) {
    const node = g.node ?? nodeBinary(g.version)
    const out = join(work, `results-${g.version}.jsonl`)
    results.push(`${out}=${g.version}`)
    console.log(`compat: ${g.files.length} file(s) under Node ${g.version}`)
    const status = await new Promise((resolveRun) => {
      const child = spawn(
        node,
        [
          '--test',
          '--test-concurrency=2',
          '--test-timeout=300000',
          '--test-reporter=spec',
          '--test-reporter-destination=stdout',
          '--test-reporter=./lib/reporter.mjs',
          `--test-reporter-destination=${out}`,
          ...runnerOptions,
          ...g.files.map((f) => join('tests', f)),
        ],
        { cwd: compat, stdio: 'inherit', env: { ...process.env, ...QUIET, PARLANCE_BUILD: build.outDir, PARLANCE_REPO: repo } },
      )
      child.on('exit', (c, signal) => resolveRun(c ?? (signal ? 1 : 0)))
    })
    if (status !== 0) code = 1
  }
  const doc = filters.length === 0 && runnerOptions.length === 0 ? join(repo, 'docs', 'compatibility.md') : join(compat, 'compatibility.partial.md')
  const written = await new Promise((resolveDoc) => {
    const child = spawn(
      process.execPath,
      [join(compat, 'lib', 'write-doc.mjs'), doc, ...results, ...(filters.length || runnerOptions.length ? ['--partial'] : [])],
      {
        stdio: 'inherit',
      },
    )
    child.on('exit', (c) => resolveDoc(c ?? 1))
  })
  if (written !== 0) code = 1
} finally {
  build.dispose()
  rmSync(work, { recursive: true, force: true })
}
console.log(`compat: ran in ${Math.round((Date.now() - started) / 1000)} s`)
process.exit(code)
