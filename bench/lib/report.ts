// Regenerates BENCHMARKS.md (and bench/results/<name>.svg) from the result JSON files of full runs.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { chart } from './svg.js'
import { fmt, ratioText, type BenchResult, type Machine } from './result.js'

/** The @ag-ui/core comparison written by bench/agui-validate.ts (another module's JSON, folded in as is). */
interface AguiValidate {
  bytes: number
  repetitions: number
  median: Record<string, number>
  opsPerSecond: Record<string, number[]>
  parlanceVsZod: number
  validationOnlyVsZod: number
  parlanceCostVsJsonParse: number
}

const targetMark = (met: boolean | null) => (met === null ? 'n/a' : met ? 'met' : '**not met**')

function section(r: BenchResult): string {
  const out: string[] = [`## ${r.title}`, '', r.description, '']
  for (const t of r.tables) {
    out.push(`**${t.title}** (${t.unit}, ${t.higherIsBetter ? 'higher' : 'lower'} is better)`, '')
    out.push('| configuration | median | min–max | ratio to baseline (min–max) |', '|---|---:|---:|---:|')
    for (const row of t.rows)
      out.push(`| ${row.baseline ? `${row.name} (baseline)` : row.name} | ${fmt(row.median)} | ${fmt(row.min)}–${fmt(row.max)} | ${ratioText(row)} |`)
    out.push('')
  }
  out.push(`![${r.title}](bench/results/${r.name}.svg)`, '')
  if (r.targets.length) {
    // A result may name the issue its targets come from (bench/cluster.ts: issue 12); the others are issue 10's.
    const issue = (r as BenchResult & { issue?: number }).issue ?? 10
    out.push(`| target (issue ${issue}) | measured | |`, '|---|---|---|')
    for (const t of r.targets) out.push(`| ${t.text} | ${t.measured} | ${targetMark(t.met)} |`)
    out.push('')
  }
  const params = Object.entries(r.params)
    .map(([k, v]) => `${k} ${typeof v === 'number' ? v.toLocaleString('en-US') : String(v)}`)
    .join(', ')
  out.push(`Command: \`${r.command}\` (${r.date.slice(0, 16).replace('T', ' ')} UTC; ${params}).`, '')
  out.push(`What limits it: ${r.limits}`, '')
  for (const n of r.notes) out.push(`- ${n}`)
  if (r.notes.length) out.push('')
  // Hand-written Markdown about this benchmark (before/after measurements of a change, say), kept across runs.
  const notes = notesOf(r.name)
  if (notes !== null && !notes.startsWith('## ')) out.push(notes, '')
  return out.join('\n')
}

/**
 * `bench/notes/<name>.md`, trimmed, or null. A note that starts with its own `## ` heading is a section by itself,
 * written where its benchmark goes when no full run has left that benchmark's result (a benchmark measured by hand
 * or by a quick run: its text survives every regeneration); any other note is appended to its benchmark's section.
 */
function notesOf(name: string): string | null {
  const file = `bench/notes/${name}.md`
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null
}

function aguiSection(a: AguiValidate): string {
  const rows = Object.entries(a.median)
    .map(([k, v]) => `| ${k} | ${fmt(v)} | ${fmt(Math.min(...(a.opsPerSecond[k] ?? [v])))}–${fmt(Math.max(...(a.opsPerSecond[k] ?? [v])))} |`)
    .join('\n')
  const met10 = a.parlanceVsZod >= 10
  const met2 = a.parlanceCostVsJsonParse <= 2
  return `### AG-UI \`RunAgentInput\` vs \`@ag-ui/core\` Zod (from \`bench/agui-validate.ts\`)

Written by \`node --import tsx bench/agui-validate.ts\` (run by \`npm run bench\` when present) into
\`bench/results/agui-validate.json\`; a ${a.bytes}-byte input, ${a.repetitions} interleaved repetitions, ops/s.

| candidate | median ops/s | min–max |
|---|---:|---:|
${rows}

| target (issue 10) | measured | |
|---|---|---|
| decode+validate ≥ 10× faster than Zod | ${a.parlanceVsZod.toFixed(2)}× (validation alone: ${a.validationOnlyVsZod.toFixed(2)}×) | ${targetMark(met10)} |
| ≤ 2× the time of JSON.parse alone | ${a.parlanceCostVsJsonParse.toFixed(2)}× | ${targetMark(met2)} |

What limits it: parsing. JSON.parse of the body is most of the cost for both, so the end-to-end ratio against
parse+Zod cannot approach 10× however fast validation is; validation alone is the figure that can.
`
}

export interface ReportInput {
  /** Benchmarks in report order: their names (bench/results/<name>.json) and titles. */
  order: ReadonlyArray<{ name: string; title: string }>
  /** Sections in Markdown for what is not measured (yet), appended at the end. */
  todo: string
  /** Extra Markdown (CPU profile recipe). */
  profile: string
}

export function writeReport(input: ReportInput): string[] {
  const results: BenchResult[] = []
  const missing: string[] = []
  /** Sections in report order: a full run's result, or a hand-written note standing in for one. */
  const sections: Array<BenchResult | string> = []
  const standalone = (name: string) => {
    const n = notesOf(name)
    return n?.startsWith('## ') ? n : null
  }
  for (const b of input.order) {
    const file = `bench/results/${b.name}.json`
    const r = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as BenchResult) : null
    if (!r || !Array.isArray(r.tables)) {
      const n = standalone(b.name)
      if (n) sections.push(n)
      else missing.push(b.title)
      continue
    }
    results.push(r)
    sections.push(r)
    writeFileSync(`bench/results/${b.name}.svg`, chart(r))
  }
  // Notes of benchmarks the runner does not list (run by hand, e.g. `npx tsx bench/ai-sdk-agent.ts`).
  const listed = new Set(input.order.map((b) => b.name))
  if (existsSync('bench/notes'))
    for (const f of readdirSync('bench/notes').sort()) {
      const n = f.endsWith('.md') && !listed.has(f.slice(0, -3)) ? standalone(f.slice(0, -3)) : null
      if (n) sections.push(n)
    }
  const m: Machine | undefined = results[0]?.machine
  const summary = results.flatMap((r) => r.targets.map((t) => `| ${r.title} | ${t.text} | ${t.measured} | ${targetMark(t.met)} |`)).join('\n')
  const agui = existsSync('bench/results/agui-validate.json')
    ? (JSON.parse(readFileSync('bench/results/agui-validate.json', 'utf8')) as AguiValidate)
    : null
  const body = sections
    .map((r) => {
      if (typeof r === 'string') return `${r}\n`
      const s = section(r)
      return r.name === 'validation' && agui ? `${s}\n${aguiSection(agui)}` : s
    })
    .join('\n')
  const md = `# Benchmarks

<!-- Generated by bench/run.ts from bench/results/*.json and bench/notes/*.md; edit those or bench/lib/report.ts, not this file. -->

Every figure is a **ratio to a baseline measured in the same run** (median of ≥ 3 repetitions, with the
min–max of the repetitions over the baseline median). Absolute numbers are printed too but mean little on their
own: ${m ? `this machine has ${m.cores} cores (${m.cpu}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}, \`ulimit -n\` ${m.nofile})` : 'the machine has 2 cores'}
and is shared — other engineers run test suites on it while benchmarks run — so absolute throughput moves by
tens of percent between runs while a ratio measured side by side moves much less. Servers and load generators
run in separate processes on 127.0.0.1; with 2 cores, the load generator and the server compete for the CPU,
which caps every figure (baselines included).

Run it: \`npm run bench\` (everything, about 18 minutes here, about 2 of them for \`cluster\` and 5 for \`rolling-restart\`,
which need Redis on 127.0.0.1:6379 or at \`PARLANCE_TEST_REDIS_URL\`; writes \`bench/results/*.json\`, the SVG charts and this
file), \`npm run bench -- --quick\` (a smoke run of about a minute with smaller counts; writes
\`bench/results/quick/\` and leaves this file alone), \`npm run bench -- <name> [--quick]\` (one benchmark:
${input.order.map((b) => `\`${b.name}\``).join(', ')}).

## Targets at a glance

| benchmark | target | measured | |
|---|---|---|---|
${summary}
${agui ? `| Inbound validation | AG-UI decode ≥ 10× faster than Zod | ${agui.parlanceVsZod.toFixed(2)}× | ${targetMark(agui.parlanceVsZod >= 10)} |\n` : ''}
${missing.length ? `\nNot measured in the last full run: ${missing.join(', ')}.\n` : ''}
${body}
${input.profile}
${input.todo}`
  writeFileSync('BENCHMARKS.md', md.replace(/\n{3,}/g, '\n\n'))
  return results.map((r) => r.name)
}
