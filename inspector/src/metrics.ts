import type { Api } from './api.js'
import { byId } from './dom.js'

/** A parsed Prometheus text sample. */
interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** Parses the Prometheus text format (enough of it for our own metrics). */
export function parseProm(text: string): Sample[] {
  const out: Sample[] = []
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][\w:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line)
    if (!m) continue
    const labels: Record<string, string> = {}
    for (const l of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!
    out.push({ name: m[1]!, labels, value: Number(m[4]) })
  }
  return out
}

/** The p-quantile of a Prometheus histogram from its cumulative buckets (upper bound of the bucket it falls in). */
export function quantile(samples: Sample[], name: string, q: number): number | null {
  const buckets = samples
    .filter((s) => s.name === `${name}_bucket`)
    .map((s) => ({ le: s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), n: s.value }))
  buckets.sort((a, b) => a.le - b.le)
  const total = buckets[buckets.length - 1]?.n ?? 0
  if (total === 0) return null
  const rank = q * total
  for (const b of buckets) if (b.n >= rank) return b.le
  return null
}

/** The live metrics strip: connections (per dialect), events/s, active runs and p99 store commit, from /metrics. */
export class MetricsStrip {
  private last: { t: number; events: number } | null = null
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(private readonly api: Api) {}

  start(everyMs = 2000): void {
    void this.poll()
    this.timer = setInterval(() => void this.poll(), everyMs)
  }

  stop(): void {
    clearInterval(this.timer)
  }

  async poll(): Promise<void> {
    let samples: Sample[]
    try {
      samples = parseProm(await this.api.text('/metrics'))
    } catch {
      byId('m-connections').textContent = 'n/a'
      return
    }
    const conns = samples.filter((s) => s.name === 'parlance_connections')
    byId('m-connections').textContent = String(conns.reduce((n, s) => n + s.value, 0))
    byId('m-dialects').textContent = conns
      .filter((s) => s.value > 0)
      .map((s) => `${s.labels.dialect}: ${s.value}`)
      .join(' · ')
    const events = samples.find((s) => s.name === 'parlance_events_total')?.value ?? 0
    const now = performance.now()
    if (this.last) {
      const rate = (events - this.last.events) / ((now - this.last.t) / 1000)
      byId('m-rate').textContent = rate >= 0 ? rate.toFixed(rate < 10 ? 1 : 0) : '–'
    }
    this.last = { t: now, events }
    byId('m-runs').textContent = String(samples.find((s) => s.name === 'parlance_active_runs')?.value ?? 0)
    const p99 = quantile(samples, 'parlance_store_commit_seconds', 0.99)
    byId('m-p99').textContent = p99 === null ? '–' : p99 === Infinity ? '> 1 s' : `≤ ${(p99 * 1000).toFixed(p99 < 0.001 ? 1 : 0)} ms`
    byId('metrics').dataset.polled = 'true'
  }
}
