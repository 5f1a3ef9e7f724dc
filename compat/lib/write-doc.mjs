// Writes docs/compatibility.md from one run of the suite: the JSON lines lib/reporter.mjs wrote (one file per
// Node version the suite ran under), and the versions actually installed under compat/node_modules. Prints the
// plain closing line "N passed, N failed" and exits non-zero when a case failed or a client ran no case.
//
// Usage: node lib/write-doc.mjs <out.md> <results.jsonl>=<node version>… [--partial]
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { CLIENTS } from './clients.mjs'

const compat = resolve(import.meta.dirname, '..')

/** The package.json of `name` as Node would find it from the directory of package `from` (or from compat/). */
function manifest(name, from) {
  let dir = from ? dirname(manifest(from)) : compat
  for (;;) {
    const p = join(dir, 'node_modules', name, 'package.json')
    if (existsSync(p)) return p
    const up = dirname(dir)
    if (up === dir || !up.startsWith(compat)) throw new Error(`${name} is not installed (from ${from ?? 'compat/'})`)
    dir = up
  }
}

function installed({ name, from }) {
  const pkg = JSON.parse(readFileSync(manifest(name, from), 'utf8'))
  return `\`${pkg.name}\` ${pkg.version}`
}

const args = process.argv.slice(2)
/** A run of some files only: the clients with no case are left out instead of failing. */
const partial = args.includes('--partial')
const [out, ...runs] = args.filter((a) => a !== '--partial')
const rows = []
const nodes = []
for (const arg of runs) {
  const [file, node] = arg.split('=')
  nodes.push(node)
  if (!existsSync(file)) continue
  for (const line of readFileSync(file, 'utf8').split('\n')) if (line.trim()) rows.push({ ...JSON.parse(line), node })
}

const esc = (s) => String(s).replaceAll('|', '\\|').replaceAll('\n', ' ')
let passed = 0
let failed = 0
const lines = [
  '# Compatibility',
  '',
  'The front ends and clients Parlance is tested with, in the versions the compatibility suite installed, and each case',
  'the suite verified against a Parlance server on loopback. **Generated** by `compat/run.sh` from its last run (do not',
  'edit by hand): the suite is `compat/` (its own `package.json` and lockfile, not part of the published package), run',
  'by CI in its own tier.',
  '',
  `Run: ${new Date().toISOString().slice(0, 10)}, Node ${nodes.join(' and ')}, Chromium for the browser clients.`,
  '',
]
const summary = ['| client | versions | cases | result |', '| --- | --- | --- | --- |']
const details = []
for (const [key, client] of Object.entries(CLIENTS)) {
  const mine = rows.filter((r) => r.client === client.title)
  if (partial && mine.length === 0) continue
  const versions = client.packages.map(installed).join(', ')
  const ok = mine.filter((r) => r.ok).length
  const bad = mine.filter((r) => !r.ok && !r.skipped).length
  passed += ok
  failed += bad
  if (mine.length === 0) failed++
  const result = mine.length === 0 ? 'FAIL: no case ran' : bad ? `FAIL (${bad} of ${mine.length})` : 'pass'
  summary.push(`| [${client.title}](#${key.toLowerCase()}) | ${versions} | ${mine.length} | ${result} |`)
  details.push(`<a id="${key.toLowerCase()}"></a>`, `## ${client.title}`, '', `${client.about}. Versions: ${versions}.`, '')
  details.push('| case | Node | result |', '| --- | --- | --- |')
  for (const r of mine) details.push(`| ${esc(r.name)} | ${r.node} | ${r.ok ? 'pass' : r.skipped ? 'skipped' : `FAIL: ${esc(r.error ?? '')}`} |`)
  if (mine.length === 0) details.push('| (no case ran) | | FAIL |')
  details.push('')
}
// A case outside every known client (a file whose describe is not in lib/clients.mjs) still counts.
const known = new Set(Object.values(CLIENTS).map((c) => c.title))
for (const r of rows.filter((x) => !known.has(x.client))) {
  if (r.ok) passed++
  else if (!r.skipped) failed++
  details.push(`- ${esc(r.client)}: ${esc(r.name)} (Node ${r.node}): ${r.ok ? 'pass' : `FAIL: ${esc(r.error ?? '')}`}`)
}
writeFileSync(out, [...lines, ...summary, '', ...details, ''].join('\n'))
console.log(`compatibility: ${passed} passed, ${failed} failed`)
console.log(`wrote ${out}`)
process.exitCode = failed > 0 ? 1 : 0
