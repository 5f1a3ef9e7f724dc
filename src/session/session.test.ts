import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { DEFAULT_LIMITS, isRunEnd, ParlanceError, type Command, type EventOf, type EventType, type Limits, type SessionId, type StoredEvent } from '../core/index.js'
import { defineAgent, type AgentDefinition, type ApprovalResult } from '../agent/index.js'
import { EventStore, type CommitUnit } from '../store/index.js'
import type { Session } from './session.js'
import { SessionManager } from './session-manager.js'
import { RAW_EVENTS, type Subscriber } from './subscription.js'
import { DelegatingBackend, deferred } from '../../test/support/delegating-backend.js'

// ---------------------------------------------------------------------------------------------- helpers

const aborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })))

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

/** A subscriber that keeps every event it is given and lets a test wait for one. */
class Recorder implements Subscriber {
  readonly codecKey = 'recorder'
  readonly events: StoredEvent[] = []
  private waiters: Array<{ pred: (e: StoredEvent) => boolean; resolve: (e: StoredEvent) => void }> = []

  readonly encoder = RAW_EVENTS
  view = null
  write(frames: readonly unknown[]): boolean {
    for (const f of frames) {
      const e = f as StoredEvent
      this.events.push(e)
      this.waiters = this.waiters.filter((w) => (w.pred(e) ? (w.resolve(e), false) : true))
    }
    return true
  }
  /** The first event (already seen or still to come) matching `pred`. */
  until(pred: (e: StoredEvent) => boolean): Promise<StoredEvent> {
    const seen = this.events.find(pred)
    if (seen) return Promise.resolve(seen)
    return new Promise((resolve) => this.waiters.push({ pred, resolve }))
  }
  /** The first event of `type` (in run `runId`, if given). */
  next<T extends EventType>(type: T, runId?: string | null): Promise<EventOf<T>> {
    return this.until((e) => e.type === type && (runId == null || e.runId === runId)) as Promise<EventOf<T>>
  }
  /** The end (run.finished or run.error) of run `runId`. */
  end(runId: string | null): Promise<StoredEvent> {
    return this.until((e) => isRunEnd(e) && e.runId === runId)
  }
  of(runId: string | null): StoredEvent[] {
    return this.events.filter((e) => e.runId === runId)
  }
}

interface Setup {
  manager: SessionManager
  store: EventStore
  backend: TestBackend
  /** Opens (creating) a session as alice and attaches a recorder from seq 0. */
  open(id?: string, agent?: string): Promise<{ session: Session; rec: Recorder }>
}

let sessionNo = 0
function setup(agents: AgentDefinition[], opts: { limits?: Partial<Limits>; backend?: TestBackend } = {}): Setup {
  const backend = opts.backend ?? new TestBackend()
  const store = new EventStore(backend, { onError: () => {} })
  const manager = new SessionManager({
    store,
    agents: new Map(agents.map((a) => [a.name, a])),
    defaultAgent: agents[0]!.name,
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
  })
  return {
    manager,
    store,
    backend,
    async open(id = `sess-${++sessionNo}`, agent) {
      const session = await manager.open(id, 'alice', agent ? { agent } : {})
      const rec = new Recorder()
      session.subscribe(rec, 0)
      return { session, rec }
    },
  }
}

const say = (session: Session, content: string, extra: Partial<Extract<Command, { type: 'user.message' }>> = {}): string => {
  void session.handle({ type: 'user.message', sessionId: session.id, content, ...extra })
  const runId = session.activeRunId
  assert.ok(runId, 'a user message starts a run')
  return runId
}

const seqsOf = (events: readonly StoredEvent[]): number[] => events.map((e) => e.seq)
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)
const isCode = (code: string) => (err: unknown) => err instanceof ParlanceError && err.code === code

/** Keeps the event loop alive while a test waits on a timer that the code under test unrefs (as a server's socket would). */
function keepAlive(t: TestContext): void {
  const h = setInterval(() => {}, 60_000)
  t.after(() => clearInterval(h))
}

const echo = defineAgent({
  name: 'echo',
  async run(ctx) {
    await ctx.status('thinking')
    await ctx.say(['Echo: ', ctx.input.text])
  },
})

// ---------------------------------------------------------------------------------------------- tests

test('seq is 1, 2, 3… with no gaps across runs, and every event carries sessionId, runId, seq and ts', async () => {
  const s = setup([echo])
  const { session, rec } = await s.open()
  const runs: string[] = []
  for (const text of ['one', 'two', 'three']) {
    const runId = say(session, text)
    runs.push(runId)
    assert.equal((await rec.end(runId)).type, 'run.finished')
  }
  assert.equal(new Set(runs).size, 3)
  await s.store.flush()
  const stored = await s.backend.readEvents(session.id, 0, 1000)
  assert.deepEqual(seqsOf(stored), range(1, stored.length))
  assert.equal(session.lastSeq, stored.length)
  assert.deepEqual(rec.events, stored, 'the subscriber saw exactly the committed log, in order')
  for (const e of stored) {
    assert.equal(e.sessionId, session.id)
    assert.ok(runs.includes(e.runId), `${e.type} has a run id`)
    assert.ok(Number.isInteger(e.seq) && e.seq >= 1)
    assert.ok(Number.isFinite(e.ts) && e.ts > 0)
  }
  for (const runId of runs) {
    assert.deepEqual(
      rec.of(runId).map((e) => e.type),
      ['message.user', 'run.started', 'status', 'text.start', 'text.delta', 'text.delta', 'text.end', 'run.finished'],
    )
  }
  assert.deepEqual(
    session.model.messages.map((m) => [m.role, m.content]),
    [
      ['user', 'one'],
      ['assistant', 'Echo: one'],
      ['user', 'two'],
      ['assistant', 'Echo: two'],
      ['user', 'three'],
      ['assistant', 'Echo: three'],
    ],
  )
  const record = await s.backend.getSession(session.id)
  assert.deepEqual([record?.lastSeq, record?.activeRunId, record?.messages.length], [stored.length, null, 6])
})

test('an agent that throws ends its run with run.error execution_error', async () => {
  const boom = defineAgent({
    name: 'boom',
    async run() {
      throw new Error('kaput')
    },
  })
  const s = setup([boom])
  const { session, rec } = await s.open()
  const runId = say(session, 'go')
  const end = (await rec.end(runId)) as EventOf<'run.error'>
  assert.deepEqual([end.type, end.code, end.message], ['run.error', 'execution_error', 'kaput'])
  assert.equal(session.activeRunId, null)
})

test('one active run per session: a new user.message interrupts the previous run', async () => {
  const signals: AbortSignal[] = []
  const slow = defineAgent({
    name: 'slow',
    async run(ctx) {
      signals.push(ctx.signal)
      await ctx.say(
        (async function* () {
          yield 'partial'
          await aborted(ctx.signal)
          yield 'never sent'
        })(),
      )
    },
  })
  const s = setup([slow, echo])
  const { session, rec } = await s.open()
  const run1 = say(session, 'first')
  const start = await rec.next('text.start', run1)
  await rec.next('text.delta', run1)
  assert.equal(signals[0]!.aborted, false)

  const run2 = say(session, 'second', { agent: 'echo' })
  assert.notEqual(run2, run1)
  assert.equal(signals[0]!.aborted, true, 'the interrupted run is aborted at once')
  assert.ok(isCode('interrupted')(signals[0]!.reason))
  assert.equal((await rec.end(run2)).type, 'run.finished')
  await s.store.flush()

  const textEnd = rec.events.find((e) => e.type === 'text.end' && e.messageId === start.messageId)
  const error = rec.of(run1).find((e): e is EventOf<'run.error'> => e.type === 'run.error')
  const started2 = await rec.next('run.started', run2)
  const user2 = await rec.next('message.user', run2)
  assert.ok(textEnd && error, 'the open message was ended and the run ended with an error')
  assert.equal(textEnd.runId, run1)
  assert.equal(error.code, 'interrupted')
  assert.ok(textEnd.seq < error.seq, 'text.end before run.error')
  assert.ok(error.seq < user2.seq && user2.seq < started2.seq, 'run.error before the new run starts')
  // The interrupted run ends exactly once and emits nothing after its end.
  assert.equal(rec.of(run1).filter(isRunEnd).length, 1)
  assert.equal(rec.of(run1).at(-1), error)
  assert.ok(!rec.events.some((e) => e.type === 'text.delta' && e.delta === 'never sent'))
  assert.deepEqual(seqsOf(rec.events), range(1, rec.events.length))
})

const results: ApprovalResult[] = []
const careful = defineAgent({
  name: 'careful',
  tools: { delete_all: { description: 'Deletes everything', execute: () => 'deleted' } },
  async run(ctx) {
    const r = await ctx.approve({ tool: 'delete_all', args: { really: true }, risk: 'critical', reasoning: 'you asked' })
    results.push(r)
    if (r.approved) await ctx.callTool('delete_all')
  },
})

test('approve() resolves when the approval.response arrives', async () => {
  results.length = 0
  const s = setup([careful])
  const { session, rec } = await s.open()
  const runId = say(session, 'clean up')
  const req = await rec.next('approval.requested', runId)
  assert.deepEqual(
    [req.toolName, req.toolDescription, req.args, req.reasoning, req.risk, req.timeoutMs],
    ['delete_all', 'Deletes everything', { really: true }, 'you asked', 'critical', DEFAULT_LIMITS.approvalTimeoutMs],
  )
  assert.equal(s.manager.findPending(req.approvalId), session)
  await s.store.flush()
  assert.deepEqual(results, [], 'the agent waits for the answer')

  assert.throws(() => session.handle({ type: 'approval.response', approvalId: 'appr_unknown', approved: true }), isCode('not_found'))
  void session.handle({ type: 'approval.response', approvalId: req.approvalId, approved: true, feedback: 'go ahead' })
  assert.equal((await rec.end(runId)).type, 'run.finished')
  assert.deepEqual(results, [{ approved: true, feedback: 'go ahead', by: 'user' }])
  const resolved = await rec.next('approval.resolved', runId)
  assert.deepEqual([resolved.approvalId, resolved.approved, resolved.feedback, resolved.by], [req.approvalId, true, 'go ahead', 'user'])
  assert.equal((await rec.next('tool.result', runId)).result, 'deleted')
  assert.equal(s.manager.findPending(req.approvalId), undefined)
  // Answered once: a second answer finds nothing.
  assert.throws(() => session.handle({ type: 'approval.response', approvalId: req.approvalId, approved: false }), isCode('not_found'))
})

test('approve() times out with by: "timeout" after limits.approvalTimeoutMs', async (t) => {
  keepAlive(t)
  results.length = 0
  const s = setup([careful], { limits: { approvalTimeoutMs: 20 } })
  const { session, rec } = await s.open()
  const runId = say(session, 'clean up')
  const req = await rec.next('approval.requested', runId)
  assert.equal(req.timeoutMs, 20)
  assert.equal((await rec.end(runId)).type, 'run.finished')
  assert.deepEqual(results, [{ approved: false, by: 'timeout' }])
  const resolved = await rec.next('approval.resolved', runId)
  assert.deepEqual([resolved.approved, resolved.by], [false, 'timeout'])
  assert.ok(!rec.of(runId).some((e) => e.type === 'tool.call'), 'a timed-out approval does not run the tool')
  assert.equal(s.manager.findPending(req.approvalId), undefined)
})

test('approval.response for an unknown id throws not_found (no run at all)', async () => {
  const s = setup([echo])
  const { session } = await s.open()
  assert.throws(() => session.handle({ type: 'approval.response', approvalId: 'appr_x', approved: true }), isCode('not_found'))
  assert.throws(() => session.handle({ type: 'tool.result', toolCallId: 'call_x', outcome: 'success', result: 1 }), isCode('not_found'))
  assert.throws(() => session.handle({ type: 'run.cancel' }), isCode('not_found'))
  assert.equal(session.lastSeq, 0, 'rejected commands spend no seq')
})

test('callTool on a client tool waits for the tool.result and returns it', async () => {
  const got: unknown[] = []
  const picker = defineAgent({
    name: 'picker',
    tools: { pick_file: { description: 'The client shows a file picker' } },
    async run(ctx) {
      const r = await ctx.callTool('pick_file', { ext: '.txt' })
      got.push(r)
      await ctx.say(`picked ${JSON.stringify(r)}`)
    },
  })
  const s = setup([picker])
  const { session, rec } = await s.open()
  const runId = say(session, 'open a file')
  const call = await rec.next('tool.call', runId)
  assert.deepEqual([call.toolName, call.args, call.target], ['pick_file', { ext: '.txt' }, 'client'])
  assert.equal(s.manager.findPending(call.toolCallId), session)
  await s.store.flush()
  assert.deepEqual(got, [], 'the agent waits for the client')
  assert.throws(() => session.handle({ type: 'tool.result', toolCallId: 'call_other', outcome: 'success' }), isCode('not_found'))

  void session.handle({ type: 'tool.result', toolCallId: call.toolCallId, outcome: 'success', result: { path: '/a.txt' } })
  assert.equal((await rec.end(runId)).type, 'run.finished')
  assert.deepEqual(got, [{ path: '/a.txt' }])
  const result = await rec.next('tool.result', runId)
  assert.deepEqual([result.toolCallId, result.toolName, result.result], [call.toolCallId, 'pick_file', { path: '/a.txt' }])
  assert.ok(call.seq < result.seq)
  assert.equal(s.manager.findPending(call.toolCallId), undefined)
  assert.deepEqual(session.model.messages.at(-1), { id: (await rec.next('text.end', runId)).messageId, role: 'assistant', content: 'picked {"path":"/a.txt"}' })
})

test('an interrupt cancels a pending client tool call with tool.cancel', async () => {
  const caught = deferred<unknown>()
  const asker = defineAgent({
    name: 'asker',
    async run(ctx) {
      try {
        await ctx.callTool('confirm', { question: 'sure?' })
      } catch (err) {
        caught.resolve(err)
        throw err
      }
    },
  })
  const s = setup([asker, echo])
  const { session, rec } = await s.open()
  const run1 = say(session, 'ask me', { clientTools: [{ name: 'confirm', description: 'asks the user' }] })
  const call = await rec.next('tool.call', run1)
  assert.equal(call.target, 'client', 'a tool offered by the client runs in the client')
  assert.equal(s.manager.findPending(call.toolCallId), session)

  const run2 = say(session, 'never mind', { agent: 'echo' })
  assert.ok(isCode('interrupted')(await caught.promise), 'callTool rejects with interrupted')
  await rec.end(run2)
  const cancel = await rec.next('tool.cancel', run1)
  const error = (await rec.end(run1)) as EventOf<'run.error'>
  const started2 = await rec.next('run.started', run2)
  assert.deepEqual([cancel.toolCallId, cancel.toolName], [call.toolCallId, 'confirm'])
  assert.equal(error.code, 'interrupted')
  assert.ok(cancel.seq < error.seq && error.seq < started2.seq)
  assert.equal(s.manager.findPending(call.toolCallId), undefined)
  assert.throws(() => session.handle({ type: 'tool.result', toolCallId: call.toolCallId, outcome: 'success' }), isCode('not_found'))
  assert.equal(rec.of(run1).filter(isRunEnd).length, 1)
})

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
  assert.deepEqual(late.events, live.events.filter((e) => e.seq > 2))
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
  assert.deepEqual(after.model.messages.map((m) => m.content), ['hello'])
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
  assert.deepEqual(record?.messages.map((m) => m.content), ['go', 'done'])
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
