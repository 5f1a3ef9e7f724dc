import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import fc from 'fast-check'
import { defineAgent } from '../src/agent-api/index.js'
import { DEFAULT_LIMITS, foldState, ParlanceError, type Json, type PatchOp, type StoredEvent } from '../src/core/index.js'
import { RAW_EVENTS, SessionManager, type Session, type Subscriber } from '../src/session/index.js'
import { EventStore, loadSession, type StoreBackend } from '../src/store/index.js'
import { createRedisStore } from '../src/store/redis/store.js'
import { createSqliteStore } from '../src/store/sqlite.js'
import { dropPrefix, REDIS_URL, testPrefix } from './support/redis.js'

// Replay stays exact with the state kept as a snapshot now and then plus the patches after it: an agent applies a
// random sequence of patches (and whole replacements, and patches the store must refuse), then a client that
// had the state as of a random seq resumes from there and ends with the agent's state, and the session loaded
// again from the store (stored snapshot + the state events after it) holds the same state. SQLite and Redis.

type Step =
  | { kind: 'set'; key: number; value: number }
  | { kind: 'remove'; key: number }
  | { kind: 'push'; text: string }
  | { kind: 'replace'; size: number }
  | { kind: 'bad' }
  | { kind: 'say' }

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), key: fc.nat(12), value: fc.integer() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), key: fc.nat(12) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('push' as const), text: fc.string({ maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), size: fc.nat(300) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'bad' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'say' as const }) },
)

const plans = new Map<string, Step[]>()
const refusedSeqs = new Map<string, number>()

const agent = defineAgent({
  name: 'patcher',
  async run(ctx) {
    for (const s of plans.get(ctx.sessionId) ?? []) {
      const state = ctx.state as { items?: Record<string, { v: number }>; list?: string[] }
      const items = state.items ?? {}
      if (s.kind === 'replace') {
        const next: Record<string, { v: number }> = {}
        for (let i = 0; i < s.size; i++) next[`k${i}`] = { v: i }
        await ctx.setState({ items: next, list: ['start'] })
      } else if (s.kind === 'set') {
        const key = `k${s.key}`
        await ctx.setState(
          Object.hasOwn(items, key)
            ? [{ op: 'replace', path: `/items/${key}/v`, value: s.value }]
            : [{ op: 'add', path: `/items/${key}`, value: { v: s.value } }],
        )
      } else if (s.kind === 'remove') {
        const key = `k${s.key}`
        if (Object.hasOwn(items, key)) await ctx.setState([{ op: 'remove', path: `/items/${key}` }])
      } else if (s.kind === 'push') {
        await ctx.setState([{ op: 'add', path: '/list/-', value: s.text }])
      } else if (s.kind === 'bad') {
        // Its first operation applies, its second cannot: the whole patch is refused, and no seq is spent.
        const patch: PatchOp[] = [
          { op: 'add', path: '/items/zz', value: { v: 1 } },
          { op: 'replace', path: '/nowhere/at/all', value: 1 },
        ]
        await assert.rejects(ctx.setState(patch), (err: unknown) => err instanceof ParlanceError && err.code === 'invalid_message')
        refusedSeqs.set(ctx.sessionId, (refusedSeqs.get(ctx.sessionId) ?? 0) + 1)
      } else {
        await ctx.say('between patches')
        // A commit starts before the next patch (each commit decides whether to write a snapshot).
        await new Promise((r) => setImmediate(r))
      }
    }
  },
})

/** A subscriber that collects the events it is sent, from `afterSeq` on. */
function collector(session: Session, afterSeq: number): { events: StoredEvent[]; upTo(seq: number): Promise<void> } {
  const events: StoredEvent[] = []
  let wake: (() => void) | null = null
  const sub: Subscriber<StoredEvent, null> = {
    codecKey: 'test',
    encoder: RAW_EVENTS,
    view: null,
    write(frames) {
      events.push(...frames)
      wake?.()
      return true
    },
  }
  session.subscribe(sub, afterSeq)
  return {
    events,
    async upTo(seq) {
      while ((events.at(-1)?.seq ?? afterSeq) < seq) await new Promise<void>((r) => (wake = r))
    },
  }
}

function manager(backend: StoreBackend): { sessions: SessionManager; store: EventStore } {
  const store = new EventStore(backend)
  const sessions = new SessionManager({ store, agents: new Map([[agent.name, agent]]), defaultAgent: agent.name, limits: { ...DEFAULT_LIMITS } })
  return { sessions, store }
}

let n = 0
/** Runs whose stored snapshot was older than the log's end (the load folded patches in): must happen. */
let folded = 0
/** One property run on a store `open()` makes: the first for the agent, the second (same data) as after a restart. */
async function replayIsExact(open: () => StoreBackend, steps: Step[], cut: number): Promise<void> {
  const id = `state-${++n}`
  plans.set(id, [{ kind: 'replace', size: 200 }, ...steps])
  const backend = open()
  let agentState: Json
  try {
    const { sessions, store } = manager(backend)
    const session = await sessions.open(id, 'alice')
    const live = collector(session, 0)
    void session.handle({ type: 'user.message', sessionId: id, content: 'go' })
    while (!live.events.some((e) => e.type === 'run.finished' || e.type === 'run.error')) await live.upTo((live.events.at(-1)?.seq ?? 0) + 1)
    assert.ok(
      live.events.some((e) => e.type === 'run.finished'),
      'the run finished',
    )
    const lastSeq = session.committedSeq
    assert.deepEqual(
      live.events.map((e) => e.seq),
      Array.from({ length: lastSeq }, (_, i) => i + 1),
      'no gap: a refused patch spent no seq',
    )
    agentState = structuredClone(session.model.state)

    // A client that had the state as of seq k (its own fold of what it was sent) resumes from k.
    const k = Math.floor(cut * lastSeq)
    let clientState: Json = {}
    for (const e of live.events) if (e.seq <= k) clientState = foldState(clientState, e)
    const resumed = collector(session, k)
    await resumed.upTo(lastSeq)
    for (const e of resumed.events) clientState = foldState(clientState, e)
    assert.deepEqual(clientState, agentState, `a client resuming from seq ${k} of ${lastSeq}`)
    await store.flush()
  } finally {
    await backend.close()
  }

  // Loaded again from the store, as after a restart: the stored snapshot and the state events after it.
  const again = open()
  try {
    const record = await loadSession(again, id)
    if ((record?.stateSeq ?? 0) < (record?.lastSeq ?? 0)) folded++
    assert.deepEqual(record?.state, agentState, `loaded (snapshot at ${record?.stateSeq} of ${record?.lastSeq})`)
    const reloaded = await manager(again).sessions.open(id, 'alice')
    assert.deepEqual(reloaded.model.state, agentState)
  } finally {
    await again.close()
  }
}

const runs = { numRuns: 12, endOnFailure: true }
const property = (store: () => () => StoreBackend) =>
  fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 80 }), fc.double({ min: 0, max: 1, noNaN: true }), (steps, cut) =>
    replayIsExact(store(), steps, cut),
  )

const dir = mkdtempSync(join(tmpdir(), 'parlance-state-'))
after(() => rmSync(dir, { recursive: true, force: true }))
const root = testPrefix()
after(() => dropPrefix(root))
let stores = 0

test('state replay (SQLite): a client resuming at any seq, and the session loaded again, end with the agent’s state', async () => {
  await fc.assert(
    property(() => {
      const file = join(dir, `s${++stores}.db`)
      return () => createSqliteStore({ file })
    }),
    runs,
  )
  assert.ok(folded > 0, 'some loads folded patches logged after the stored snapshot')
  folded = 0
})

test('state replay (Redis): a client resuming at any seq, and the session loaded again, end with the agent’s state', async () => {
  await fc.assert(
    property(() => {
      const prefix = `${root}${++stores}:`
      return () => createRedisStore({ url: REDIS_URL, prefix })
    }),
    runs,
  )
  assert.ok(folded > 0, 'some loads folded patches logged after the stored snapshot')
})
