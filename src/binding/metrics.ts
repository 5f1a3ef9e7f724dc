import { TOKEN_KINDS, type StoredEvent } from '../core/index.js'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

/** The server's Prometheus metrics, in a registry of its own (several servers can share a process). */
export interface Metrics {
  readonly registry: Registry
  readonly connections: Gauge<'dialect'>
  readonly events: Counter
  readonly activeRuns: Gauge
  readonly storeCommit: Histogram
  readonly inboundErrors: Counter<'dialect' | 'code'>
  readonly authFailures: Counter
  /** Tokens models reported (`usage` events), by agent, model and kind (input, output, reasoning, cached_input). */
  readonly tokens: Counter<'agent' | 'model' | 'kind'>
}

/** Creates the metrics; `activeRuns` reads its value from `countRuns` at scrape time. */
export function createMetrics(countRuns: () => number): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'parlance_' }) // parlance_process_cpu_…, parlance_nodejs_…
  return {
    registry,
    connections: new Gauge({ name: 'parlance_connections', help: 'Open client connections', labelNames: ['dialect'], registers: [registry] }),
    events: new Counter({ name: 'parlance_events_total', help: 'Events committed to the store (rate() gives events/s)', registers: [registry] }),
    activeRuns: new Gauge({
      name: 'parlance_active_runs',
      help: 'Agent runs in progress',
      registers: [registry],
      collect() {
        this.set(countRuns())
      },
    }),
    storeCommit: new Histogram({
      name: 'parlance_store_commit_seconds',
      help: 'Duration of one group commit to the store',
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
      registers: [registry],
    }),
    inboundErrors: new Counter({
      name: 'parlance_inbound_errors_total',
      help: 'Inbound frames answered with an error',
      labelNames: ['dialect', 'code'],
      registers: [registry],
    }),
    authFailures: new Counter({
      name: 'parlance_auth_failures_total',
      help: 'Requests and connections refused for missing or invalid credentials',
      registers: [registry],
    }),
    tokens: new Counter({
      name: 'parlance_tokens_total',
      help: 'Tokens model calls used, as their providers reported them (kind: input, output, reasoning, cached_input)',
      labelNames: ['agent', 'model', 'kind'],
      registers: [registry],
    }),
  }
}

/** Counts `count` committed events in `parlance_events_total`, and the tokens of their `usage` events in `parlance_tokens_total`. */
export function countCommitted(metrics: Metrics, count: number, events: readonly StoredEvent[]): void {
  metrics.events.inc(count)
  for (const e of events) {
    if (e.type !== 'usage') continue
    for (const [field, kind] of Object.entries(TOKEN_KINDS) as Array<[keyof typeof TOKEN_KINDS, string]>) {
      const n = e[field]
      if (typeof n === 'number' && n > 0) metrics.tokens.inc({ agent: e.agent, model: e.model, kind }, n)
    }
  }
}
