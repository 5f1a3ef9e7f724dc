// Result JSON shared by every benchmark: rows of samples summarized as median and min–max, each as a ratio
// to the baseline row measured in the same run.
import { cpus, totalmem } from 'node:os'
import { execSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}
export const min = (xs: readonly number[]): number => Math.min(...xs)
export const max = (xs: readonly number[]): number => Math.max(...xs)

/** The p-th percentile (0–100) of `xs`, nearest rank. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN
  const s = Float64Array.from(xs).sort()
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!
}

/** One measured configuration. */
export interface Row {
  name: string
  samples: number[]
  median: number
  min: number
  max: number
  /** median / baseline median; min and max are each sample extreme over the baseline median. */
  ratio: number
  ratioMin: number
  ratioMax: number
  baseline: boolean
}

/** One table: the first row named `baseline` is the reference of every ratio. */
export interface Table {
  title: string
  unit: string
  higherIsBetter: boolean
  rows: Row[]
}

/** A target from issue 10 and whether this run met it. */
export interface Target {
  text: string
  measured: string
  met: boolean | null
}

/** What one benchmark writes to bench/results/<name>.json. */
export interface BenchResult {
  name: string
  title: string
  command: string
  date: string
  quick: boolean
  machine: Machine
  params: Record<string, unknown>
  /** What is being compared, in a sentence or two. */
  description: string
  tables: Table[]
  targets: Target[]
  /** What limits the figure. */
  limits: string
  notes: string[]
}

export interface Machine {
  cores: number
  cpu: string
  memoryGiB: number
  node: string
  platform: string
  nofile: string
}

export function machine(): Machine {
  let nofile = '?'
  try {
    nofile = execSync('ulimit -n', { shell: '/bin/sh' }).toString().trim()
  } catch {
    /* not a POSIX shell */
  }
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    nofile,
  }
}

/** Builds a table from named sample lists; the first entry is the baseline. */
export function table(title: string, unit: string, higherIsBetter: boolean, entries: ReadonlyArray<readonly [string, readonly number[]]>): Table {
  const base = median(entries[0]![1])
  return {
    title,
    unit,
    higherIsBetter,
    rows: entries.map(([name, samples], i) => ({
      name,
      samples: [...samples],
      median: median(samples),
      min: min(samples),
      max: max(samples),
      ratio: median(samples) / base,
      ratioMin: min(samples) / base,
      ratioMax: max(samples) / base,
      baseline: i === 0,
    })),
  }
}

export function rowOf(t: Table, name: string): Row {
  const r = t.rows.find((x) => x.name === name)
  if (!r) throw new Error(`no row ${name} in ${t.title}`)
  return r
}

export const resultsDir = (quick: boolean) => (quick ? 'bench/results/quick' : 'bench/results')

export function writeResult(r: BenchResult): string {
  const dir = resultsDir(r.quick)
  mkdirSync(dir, { recursive: true })
  const file = `${dir}/${r.name}.json`
  writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`)
  return file
}

/** Formats a number for tables: thousands separators, or 2–3 significant decimals when small. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n)
  const a = Math.abs(n)
  if (a >= 100) return Math.round(n).toLocaleString('en-US')
  if (a >= 10) return n.toFixed(1)
  return n.toFixed(2)
}

export const ratioText = (r: Row) => `${r.ratio.toFixed(2)}× (${r.ratioMin.toFixed(2)}–${r.ratioMax.toFixed(2)})`

/** Prints a table to stderr (progress output; stdout stays free). */
export function printTable(t: Table): void {
  process.stderr.write(`  ${t.title} [${t.unit}${t.higherIsBetter ? ', higher is better' : ', lower is better'}]\n`)
  for (const r of t.rows)
    process.stderr.write(`    ${r.name.padEnd(44)} ${fmt(r.median).padStart(12)}  (${fmt(r.min)}–${fmt(r.max)})  ${ratioText(r)}\n`)
}

/** Context handed to every benchmark's run function. */
export interface BenchContext {
  quick: boolean
  /** Repetitions per configuration (≥ 3). */
  reps: number
  /** A scratch directory, removed after the run. */
  tmp: string
  log(line: string): void
}
