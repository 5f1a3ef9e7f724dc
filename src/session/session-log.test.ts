import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventOf, Limits, SessionId, StoredEvent } from '../core/index.js'
import { defineAgent, type AgentDefinition } from '../agent-api/index.js'
import type { CommitUnit } from '../store/index.js'
import { DelegatingBackend, deferred } from '../../test/support/delegating-backend.js'
import { echo, isCode, keepAlive, range, Recorder, say, seqsOf, setup as setupOn, type Setup } from './fixtures/harness.js'

// The log: state, replay then live, reload after a restart, ownership and store failures.

/**
 * A real StoreBackend over the memory store that can hold reads open (to make a replay overlap live commits)
 * and fail chosen commits. Everything else is the memory store.
 */
class TestBackend extends DelegatingBackend {
  override readonly kind = 'test'
  private readGate: Promise<void> | null = null
  private readEntered = deferred()
  /** Fails (once) the first commit for which this returns true. */
  failWhen: ((unit: CommitUnit) => boolean) | null = null

  holdReads(): { entered: Promise<void>; release: () => void } {
    const gate = deferred()
    this.readGate = gate.promise
    this.readEntered = deferred()
    return {
      entered: this.readEntered.promise,
      release: () => {
        this.readGate = null
        gate.resolve()
      },
    }
  }
  override async commit(unit: CommitUnit): Promise<void> {
    if (this.failWhen?.(unit)) {
      this.failWhen = null
      throw new Error('disk full')
    }
    return this.inner.commit(unit)
  }
  override async readEvents(id: SessionId, afterSeq: number, limit: number): Promise<StoredEvent[]> {
    if (this.readGate) {
      this.readEntered.resolve()
      await this.readGate
    }
    return this.inner.readEvents(id, afterSeq, limit)
  }
}

/** The harness's manager over a TestBackend. */
const setup = (agents: AgentDefinition[], opts: { limits?: Partial<Limits>; backend?: TestBackend } = {}): Setup<TestBackend> =>
  setupOn(agents, { ...opts, backend: opts.backend ?? new TestBackend() })

test('setState: a patch updates model.state; a bad patch throws and spends no seq', async () => {
  let caught: unknown
  const seen: unknown[] = []
  const stateful = defineAgent({
    name: 'stateful',
    async run(ctx) {
      await ctx.setState({ count: 1, items: ['a'] })
      await ctx.setState([
        { op: 'replace', path: '/count', value: 2 },
        { op: 'add', path: '/items/-', value: 'b' },
      ])
      seen.push(ctx.state)
      try {
        await ctx.setState([{ op: 'replace', path: '/missing/deep', value: 1 }])
      } catch (err) {
        caught = err
      }
      await ctx.status('thinking', 'after the bad patch')
    },
  })
  const s = setup([stateful])
  const { session, rec } = await s.open()
  const runId = say(session, 'count')
  assert.equal((await rec.end(runId)).type, 'run.finished')
  assert.ok(isCode('invalid_message')(caught), 'the bad patch throws invalid_message')
  assert.deepEqual(session.model.state, { count: 2, items: ['a', 'b'] })
  assert.deepEqual(seen, [{ count: 2, items: ['a', 'b'] }])
  const types = rec.of(runId).map((e) => e.type)
  assert.deepEqual(types, ['message.user', 'run.started', 'state.snapshot', 'state.delta', 'status', 'run.finished'])
  const delta = await rec.next('state.delta', runId)
  const status = await rec.next('status', runId)
  assert.equal(status.seq, delta.seq + 1, 'no seq was spent on the bad patch')
  assert.deepEqual(seqsOf(rec.events), range(1, rec.events.length))
  await s.store.flush()
  assert.deepEqual((await s.backend.getSession(session.id))?.state, { count: 2, items: ['a', 'b'] })
})

test('subscribe(afterSeq) while a run streams: replay, then live, with no gap and no duplicate', async () => {
  // The test feeds the agent's stream chunk by chunk.
  const chunks: string[] = []
  let wake = deferred()
  let done = false
  const streamer = defineAgent({
    name: 'streamer',
    async run(ctx) {
      await ctx.say(
        (async function* () {
          for (;;) {
            while (chunks.length === 0 && !done) {
              await wake.promise
              wake = deferred()
            }
            if (chunks.length === 0) return
            yield chunks.shift()!
          }
        })(),
      )
    },
  })
  const push = (...c: string[]) => {
    chunks.push(...c)
    wake.resolve()
  }
  const s = setup([streamer], { limits: { replayPageSize: 3 } })
  const { session, rec: live } = await s.open()
  const runId = say(session, 'stream')
  push('c0', 'c1', 'c2', 'c3', 'c4')
  await live.until((e) => e.type === 'text.delta' && e.delta === 'c4')

  // Attach a second subscriber from seq 2 while its store reads are held: live commits arrive meanwhile.
  const reads = s.backend.holdReads()
  const late = new Recorder()
  const sub = session.subscribe(late, 2)
  await reads.entered
  for (let i = 5; i < 10; i++) {
    push(`c${i}`)
    await live.until((e) => e.type === 'text.delta' && e.delta === `c${i}`)
  }
  assert.equal(late.events.length, 0, 'nothing is delivered before the replay')
  reads.release()
  push('c10', 'c11', 'c12')
  done = true
  wake.resolve()
  await live.end(runId)
  await late.end(runId)

  assert.deepEqual(seqsOf(late.events), range(3, session.lastSeq), 'every event after seq 2, once, in order')
  assert.deepEqual(
    late.events,
    live.events.filter((e) => e.seq > 2),
  )
  assert.equal(sub.lastSeq, session.lastSeq)
  assert.deepEqual(
    late.events.filter((e) => e.type === 'text.delta').map((e) => (e as EventOf<'text.delta'>).delta),
    range(0, 12).map((i) => `c${i}`),
  )
})

test('subscribe after a run: catch-up from the store only, then live for the next run', async () => {
  const s = setup([echo], { limits: { replayPageSize: 2 } })
  const { session, rec } = await s.open()
  await rec.end(say(session, 'one'))
  const late = new Recorder()
  session.subscribe(late, 3)
  const run2 = say(session, 'two')
  await late.end(run2)
  assert.deepEqual(seqsOf(late.events), range(4, session.lastSeq))
  assert.deepEqual(late.events, rec.events.slice(3))
})

test('a session reloaded with activeRunId set emits run.error interrupted and continues seq', async () => {
  const stuck = defineAgent({
    name: 'stuck',
    async run(ctx) {
      await ctx.status('thinking')
      await new Promise(() => {}) // the process "dies" mid-run
    },
  })
  const backend = new TestBackend()
  const first = setup([stuck, echo], { backend })
  const { session: before, rec } = await first.open('sess-reload')
  const oldRun = say(before, 'hello')
  await rec.next('status', oldRun)
  await first.store.flush()
  const saved = await backend.getSession('sess-reload')
  assert.equal(saved?.activeRunId, oldRun)
  assert.equal(saved?.lastSeq, 3)

  // A new process: new manager and writer over the same backend.
  const second = setup([stuck, echo], { backend })
  const after = await second.manager.open('sess-reload', 'alice')
  assert.notEqual(after, before)
  assert.equal(after.lastSeq, 4)
  assert.equal(after.activeRunId, null)
  assert.deepEqual(
    after.model.messages.map((m) => m.content),
    ['hello'],
  )
  const rec2 = new Recorder()
  after.subscribe(rec2, 0)
  const error = (await rec2.end(oldRun)) as EventOf<'run.error'>
  assert.deepEqual([error.seq, error.code, error.runId], [4, 'interrupted', oldRun])

  const newRun = say(after, 'again', { agent: 'echo' })
  await rec2.end(newRun)
  await second.store.flush()
  const stored = await backend.readEvents('sess-reload', 0, 100)
  assert.deepEqual(seqsOf(stored), range(1, stored.length))
  assert.deepEqual(rec2.events, stored)
  const record = await backend.getSession('sess-reload')
  assert.deepEqual([record?.activeRunId, record?.lastSeq], [null, stored.length])
})

test('opening a session as another principal is forbidden', async () => {
  const s = setup([echo])
  const { session } = await s.open('sess-owned')
  await assert.rejects(s.manager.open('sess-owned', 'mallory'), isCode('forbidden'))
  assert.equal(await s.manager.open('sess-owned', 'alice'), session)
  // Also once loaded from the store by another process.
  await s.store.flush()
  const other = setup([echo], { backend: s.backend })
  await assert.rejects(other.manager.open('sess-owned', 'mallory'), isCode('forbidden'))
  await assert.rejects(other.manager.open('sess-none', 'alice', { create: false }), isCode('not_found'))
})

test('state and messages reach the store even when the commit carrying them fails once', async (t) => {
  keepAlive(t) // the retry's backoff timer is unref'd; a server's socket keeps the process up
  const stateful = defineAgent({
    name: 'stateful',
    async run(ctx) {
      await ctx.setState({ step: 1 })
      await ctx.say('done')
    },
  })
  const s = setup([stateful])
  s.backend.failWhen = (unit) => unit.events.some((e) => e.type === 'state.snapshot')
  const { session, rec } = await s.open()
  const runId = say(session, 'go')
  await rec.end(runId)
  await s.store.flush()
  assert.equal(s.backend.failWhen, null, 'a commit failed')
  const record = await s.backend.getSession(session.id)
  assert.deepEqual(record?.state, { step: 1 })
  assert.deepEqual(
    record?.messages.map((m) => m.content),
    ['go', 'done'],
  )
  assert.deepEqual(seqsOf(await s.backend.readEvents(session.id, 0, 100)), range(1, session.lastSeq))
})

test('state.replace and history.replace record snapshots that the model and a reload both reflect', async () => {
  const s = setup([echo])
  const { session, rec } = await s.open()
  const messages = [
    { id: 'm1', role: 'user' as const, content: 'hi' },
    { id: 'm2', role: 'assistant' as const, content: 'hello' },
  ]
  void session.handle({ type: 'state.replace', sessionId: session.id, state: { theme: 'dark' } })
  void session.handle({ type: 'history.replace', sessionId: session.id, messages })
  await rec.next('messages.snapshot')
  assert.deepEqual(session.model.state, { theme: 'dark' })
  assert.deepEqual(session.model.messages, messages)
  assert.deepEqual(
    rec.events.map((e) => [e.type, e.runId]),
    [
      ['state.snapshot', ''],
      ['messages.snapshot', ''],
    ],
  )
  await s.store.flush()
  session.detachAll()
  assert.equal(s.manager.evictIdle(Date.now() + 1), 1)
  const again = await s.manager.open(session.id, 'alice')
  assert.notEqual(again, session)
  assert.deepEqual(again.model.state, { theme: 'dark' })
  assert.deepEqual(again.model.messages, messages)
})
