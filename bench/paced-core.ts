// Where the CPU of a paced token goes, without sockets (issue 17, item 2): one process runs N sessions each
// streaming T tokens one every MS ms, layer by layer, and reports CPU per 1,000 tokens, GC, event-loop delay
// and (with a store) the commit sizes and durations. No client shares the machine's cores and no socket
// write is counted, so the figures move far less between runs than the `paced` benchmark's, and subtracting
// one layer from the next says what each costs. Not part of `npm run bench`: a tool for finding the next cost.
//
// Usage: npx tsx bench/paced-core.ts LAYER [N] [T] [MS]   (defaults 400 200 25)
//   raw             a timer per token building the HAI chunk frame and its Buffer (what the raw ws server does, minus the write)
//   agent           + the paced agent's async generator consumed by for await (bench/agents/paced.ts, as the run context does)
//   core            + Parlance's session, run and group commit, over a backend whose commit does nothing, no subscriber
//   memory, sqlite  + that store (sqlite: a fresh file in the OS temp dir, checkpoints as configured by default)
//   memory+hai, sqlite+hai   + a subscriber encoding every batch with the HAI encoder into Buffers (no socket)
// Env: CHECKPOINT=inline runs SQLite's own checkpoints instead of the worker (to compare); COMPACT=off never moves
// the journal into blocks during the run (what compaction costs); WINDOW=MS sets the group-commit window (default: the store's, 0 for SQLite).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_LIMITS, type StoredEvent } from '../src/core/index.js'
import { asBuffers } from '../src/binding/index.js'
import { hai } from '../src/dialects/hai/codec.js'
import { SessionManager, type Subscriber } from '../src/session/index.js'
import { createMemoryStore, EventStore, type StoreBackend } from '../src/store/index.js'
import { createSqliteStore } from '../src/store/sqlite.js'
import paced from './agents/paced.js'
import { watchRuntime } from './lib/runtime-stats.js'

const LAYERS = ['raw', 'agent', 'core', 'memory', 'sqlite', 'memory+hai', 'sqlite+hai'] as const
type Layer = (typeof LAYERS)[number]
const [layerArg = 'sqlite+hai', nArg = '400', tArg = '200', msArg = '25'] = process.argv.slice(2)
if (!(LAYERS as readonly string[]).includes(layerArg)) {
  process.stderr.write(`layer must be one of ${LAYERS.join(', ')}; got "${layerArg}"\n`)
  process.exit(2)
}
const layer = layerArg as Layer
const N = Number(nArg)
const T = Number(tArg)
const MS = Number(msArg)

const runtime = watchRuntime()
const commits: number[] = []
let commitEvents = 0
let tokens = 0
let bytes = 0
const frame = (i: number, k: number, token: string) =>
  Buffer.from(
    `{"type":"assistant_message_chunk","content":${JSON.stringify(token)},"message_id":"msg_${i}","session_id":"s${i}","agent_id":"paced","is_final":false,"seq":${k}}`,
  )
/** Starts session i's stream at its share of the first second, as the `paced` benchmark spreads its starts. */
const staggered = (i: number, start: () => Promise<void>) =>
  new Promise<void>((resolve) => setTimeout(() => void start().then(resolve), (i * 1000) / N))

async function rawStream(i: number): Promise<void> {
  const start = performance.now()
  for (let k = 1; k <= T; k++) {
    await new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, start + k * MS - performance.now())))
    bytes += frame(i, k, `${k} `).length
    tokens++
  }
}

async function agentStream(i: number): Promise<void> {
  const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
  async function* generate(): AsyncGenerator<string> {
    const start = performance.now()
    for (let k = 1; k <= T; k++) {
      await wait(Math.max(0, start + k * MS - performance.now()))
      yield `${k} `
    }
  }
  let k = 0
  for await (const token of generate()) {
    bytes += frame(i, ++k, token).length
    tokens++
  }
}

function backendOf(kind: string, dir: string): StoreBackend {
  if (kind === 'core') return { ...createMemoryStore(), commit: () => Promise.resolve() }
  if (kind === 'memory') return createMemoryStore()
  return createSqliteStore({
    file: join(dir, 'parlance.db'),
    checkpoint: process.env.CHECKPOINT === 'inline' ? 'inline' : 'worker',
    ...(process.env.COMPACT === 'off' ? { compactEvents: 1e9, compactAfterMs: 1e9, directEvents: 1e9 } : {}),
  })
}

const dir = mkdtempSync(join(tmpdir(), 'parlance-paced-core-'))
let backend: StoreBackend | null = null
const done: Array<Promise<void>> = []
const c0 = process.cpuUsage()
const t0 = performance.now()
runtime.start()
if (layer === 'raw' || layer === 'agent') {
  for (let i = 0; i < N; i++) done.push(staggered(i, () => (layer === 'raw' ? rawStream(i) : agentStream(i))))
} else {
  const [kind, encoded] = layer.split('+') as [string, string | undefined]
  backend = backendOf(kind, dir)
  const store = new EventStore(backend, {
    ...(process.env.WINDOW ? { commitWindowMs: Number(process.env.WINDOW) } : {}),
    onCommit: (n, ms) => {
      commits.push(ms)
      commitEvents += n
    },
  })
  const manager = new SessionManager({
    store,
    agents: new Map([[paced.name, paced]]),
    defaultAgent: paced.name,
    limits: { ...DEFAULT_LIMITS, maxConcurrentRuns: 0 },
  })
  const wire = asBuffers(hai)
  for (let i = 0; i < N; i++) {
    done.push(
      staggered(i, async () => {
        const session = await manager.open(`s${i}`, 'bench')
        const ended = new Promise<void>((resolve) => {
          // Counts tokens and notices the run's end as the events pass, encoded or not.
          const subscriber: Subscriber<Buffer | StoredEvent, unknown> = {
            codecKey: 'paced-core',
            view: encoded ? hai.view(session.id, session.agentName) : null,
            encoder: {
              encode(events, view) {
                for (const e of events) {
                  if (e.type === 'text.delta') tokens++
                  else if (e.type === 'run.finished' || e.type === 'run.error') setImmediate(resolve)
                }
                return encoded ? wire.encode(events, view as Parameters<typeof wire.encode>[1]) : { frames: [], view }
              },
            },
            write(frames) {
              for (const f of frames) bytes += (f as Buffer).length
              return true
            },
          }
          session.subscribe(subscriber)
        })
        void session.handle({ type: 'user.message', sessionId: session.id, content: `paced ${T} ${MS}` })
        await ended
      }),
    )
  }
}
await Promise.all(done)
const cpu = process.cpuUsage(c0)
const wallMs = performance.now() - t0
const stats = runtime.stop()
await backend?.close()
rmSync(dir, { recursive: true, force: true })
const cpuMs = (cpu.user + cpu.system) / 1000
const sorted = commits.sort((a, b) => a - b)
const q = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : 0)
const r1 = (x: number) => Math.round(x * 10) / 10
process.stdout.write(
  `${JSON.stringify({
    layer,
    sessions: N,
    tokens,
    frameBytes: bytes,
    wallMs: Math.round(wallMs),
    cpuMsPer1kTokens: r1((cpuMs / Math.max(1, tokens)) * 1000),
    ...stats,
    ...(commits.length
      ? {
          commits: {
            count: commits.length,
            eventsPerCommit: r1(commitEvents / commits.length),
            msPer1kTokens: r1((commits.reduce((a, b) => a + b, 0) / Math.max(1, tokens)) * 1000),
            p99Ms: r1(q(0.99)),
            maxMs: r1(q(1)),
            over5ms: sorted.filter((m) => m > 5).length,
          },
        }
      : {}),
  })}\n`,
)
process.exit(0)
