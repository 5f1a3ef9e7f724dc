import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { StoredEvent } from '../core/index.js'
import { EventStore, type CommitListener } from './event-store.js'
import type { CommitUnit, SessionWrite } from './types.js'
import { DelegatingBackend, deferred } from '../../test/support/delegating-backend.js'

/**
 * A real StoreBackend around the memory backend that records every commit unit and lets a test hold a commit
 * open (`hold`) or fail it (`failNext`). Everything else goes straight to the memory store.
 */
class RecordingBackend extends DelegatingBackend {
  override readonly kind = 'recording'
  /** Units that reached the inner store. */
  readonly committed: CommitUnit[] = []
  /** Every commit call, failed or not. */
  attempts = 0
  /** Ordered trace of what happened, shared with listeners. */
  readonly trace: string[] = []
  private gate: Promise<void> | null = null
  private entered = deferred()
  failNext = 0

  /** Holds the next commits open until the returned function is called. */
  hold(): () => void {
    const d = deferred()
    this.gate = d.promise
    return () => {
      this.gate = null
      d.resolve()
    }
  }

  /** Resolves when the next commit call arrives. */
  nextCommit(): Promise<void> {
    return this.entered.promise
  }

  override async commit(unit: CommitUnit): Promise<void> {
    this.attempts++
    const entered = this.entered
    this.entered = deferred()
    entered.resolve()
    if (this.gate) await this.gate
    if (this.failNext > 0) {
      this.failNext--
      this.trace.push('commit-failed')
      throw new Error('disk full')
    }
    await this.inner.commit(unit)
    this.committed.push({ events: [...unit.events], sessions: unit.sessions.map((s) => ({ ...s })) })
    this.trace.push(`committed:${unit.events.map((e) => `${e.sessionId}#${e.seq}`).join(',')}`)
  }
}

/**
 * A writer like Session: numbers its events, and reports `state` in its record only when it changed since the
 * last record() (as SessionWrite allows).
 */
class Writer implements CommitListener {
  seq = 0
  state: unknown = undefined
  private stateDirty = false
  readonly delivered: StoredEvent[] = []
  onDelivered?: (events: StoredEvent[]) => void
  constructor(
    readonly id: string,
    private readonly trace?: string[],
  ) {}

  event(): StoredEvent {
    const seq = ++this.seq
    return { type: 'custom', name: 'n', value: seq, sessionId: this.id, runId: 'r', seq, ts: seq }
  }
  setState(v: unknown): void {
    this.state = v
    this.stateDirty = true
  }
  record(): SessionWrite {
    const dirty = this.stateDirty
    this.stateDirty = false
    return {
      id: this.id,
      agent: 'a',
      owner: 'o',
      createdAt: 1,
      updatedAt: 1,
      lastSeq: this.seq,
      activeRunId: null,
      ...(dirty ? { state: this.state as never } : {}),
    }
  }
  onCommitted(events: StoredEvent[]): void {
    this.trace?.push(`delivered:${this.id}:${events.map((e) => e.seq).join(',')}`)
    this.delivered.push(...events)
    this.onDelivered?.(events)
  }
}

const ids = (events: readonly StoredEvent[]): string[] => events.map((e) => `${e.sessionId}#${e.seq}`)

test('events appended in one tick by two sessions go out in ONE backend commit', async () => {
  const backend = new RecordingBackend()
  const store = new EventStore(backend)
  const a = new Writer('a')
  const b = new Writer('b')
  store.append(a, a.event())
  store.append(b, b.event())
  store.append(a, a.event())
  store.append(b, b.event())
  store.append(a, a.event())
  await store.flush()
  assert.equal(backend.attempts, 1)
  assert.equal(backend.committed.length, 1)
  const unit = backend.committed[0]!
  assert.deepEqual(ids(unit.events.filter((e) => e.sessionId === 'a')), ['a#1', 'a#2', 'a#3'])
  assert.deepEqual(ids(unit.events.filter((e) => e.sessionId === 'b')), ['b#1', 'b#2'])
  assert.deepEqual(unit.sessions.map((s) => [s.id, s.lastSeq]).sort(), [
    ['a', 3],
    ['b', 2],
  ])
  assert.deepEqual(ids(a.delivered), ['a#1', 'a#2', 'a#3'])
  assert.deepEqual(ids(b.delivered), ['b#1', 'b#2'])
})

test('onCommitted is called only after the backend commit resolved (write-before-send)', async () => {
  const backend = new RecordingBackend()
  const store = new EventStore(backend)
  const a = new Writer('a', backend.trace)
  const release = backend.hold()
  const entered = backend.nextCommit()
  store.append(a, a.event())
  store.append(a, a.event())
  await entered
  assert.deepEqual(a.delivered, [], 'nothing is delivered while the commit is open')
  // The memory store reads synchronously at call time, so this is what was durable when delivery happened.
  let durableAtDelivery: Promise<StoredEvent[]> | undefined
  a.onDelivered = () => {
    durableAtDelivery = backend.inner.readEvents('a', 0, 10)
  }
  release()
  await store.flush()
  assert.deepEqual(backend.trace, ['committed:a#1,a#2', 'delivered:a:1,2'])
  assert.ok(durableAtDelivery)
  assert.deepEqual(ids(await durableAtDelivery), ['a#1', 'a#2'])
})

test('a failing commit is retried: nothing lost, duplicated or reordered', async () => {
  const backend = new RecordingBackend()
  const errors: Array<[unknown, number]> = []
  const store = new EventStore(backend, { onError: (err, attempt) => errors.push([err, attempt]) })
  const a = new Writer('a', backend.trace)
  const b = new Writer('b', backend.trace)
  backend.failNext = 1
  const first = backend.nextCommit()
  store.append(a, a.event())
  store.append(a, a.event())
  store.append(b, b.event())
  await first
  // Appended while the failed batch waits for its retry: must come after it.
  store.append(a, a.event())
  store.append(b, b.event())
  await store.flush()
  assert.equal(errors.length, 1)
  assert.equal(errors[0]![1], 1)
  assert.equal((errors[0]![0] as Error).message, 'disk full')
  assert.deepEqual(ids(await backend.readEvents('a', 0, 10)), ['a#1', 'a#2', 'a#3'])
  assert.deepEqual(ids(await backend.readEvents('b', 0, 10)), ['b#1', 'b#2'])
  assert.deepEqual(ids(a.delivered), ['a#1', 'a#2', 'a#3'])
  assert.deepEqual(ids(b.delivered), ['b#1', 'b#2'])
  assert.equal(backend.trace[0], 'commit-failed')
  assert.ok(
    !backend.trace.slice(0, backend.trace.indexOf('commit-failed') + 1).some((t) => t.startsWith('delivered')),
    'nothing delivered before the failure',
  )
  assert.equal((await backend.getSession('a'))?.lastSeq, 3)
})

test('a record field written by a failed commit is still written by the retry', async () => {
  const backend = new RecordingBackend()
  const store = new EventStore(backend, { onError: () => {} })
  const a = new Writer('a')
  backend.failNext = 1
  a.setState({ step: 1 })
  store.append(a, a.event())
  await store.flush()
  assert.equal(backend.attempts, 2)
  assert.deepEqual((await backend.getSession('a'))?.state, { step: 1 }, 'the state of the failed unit was dropped')
})

test('append returns true at the high-water mark; drained() resolves after the commit', async () => {
  const backend = new RecordingBackend()
  const store = new EventStore(backend, { highWaterEvents: 3 })
  const a = new Writer('a')
  const release = backend.hold()
  assert.equal(store.append(a, a.event()), false)
  assert.equal(store.append(a, a.event()), false)
  let drained = false
  await store.drained(a) // below the mark: resolves at once
  assert.equal(store.append(a, a.event()), true)
  const wait = store.drained(a).then(() => {
    drained = true
  })
  await backend.nextCommit()
  assert.equal(drained, false, 'drained while the commit is still open')
  release()
  await wait
  assert.deepEqual(ids(await backend.readEvents('a', 0, 10)), ['a#1', 'a#2', 'a#3'])
  assert.equal(a.delivered.length, 3)
  assert.equal(store.append(a, a.event()), false, 'below the mark again')
  await store.flush()
})

test('the high-water mark is per session: a burst of many sessions commits each whole; at the total mark the commit starts at once, or, with one in flight, everyone waits', async () => {
  const backend = new RecordingBackend()
  const store = new EventStore(backend, { highWaterEvents: 3, totalHighWaterEvents: 8 })
  const writers = ['a', 'b', 'c'].map((id) => new Writer(id))
  const [a, b, c] = writers as [Writer, Writer, Writer]
  // Two events each: under a session's mark (3), although together (6) over it.
  for (const w of writers) for (let i = 0; i < 2; i++) assert.equal(store.append(w, w.event()), false)
  await store.drained(a) // resolves at once
  const release = backend.hold()
  assert.equal(store.append(a, a.event()), true, "a's third event reaches its own mark")
  assert.equal(backend.attempts, 0, 'nothing is committed before the total mark or the end of the tick')
  assert.equal(store.append(b, b.event()), true, 'b reaches its own mark (3); 8 pending in all reach the total…')
  assert.equal(backend.attempts, 1, '…so their commit starts at once, inside the append')
  assert.equal(backend.committed.length, 0, 'still in flight (held)')
  // With that commit in flight, a new burst that reaches the total mark makes everyone wait.
  for (let i = 0; i < 2; i++) assert.equal(store.append(c, c.event()), false, 'c starts over below its mark')
  for (const w of [a, b]) for (let i = 0; i < 2; i++) store.append(w, w.event())
  assert.equal(store.append(c, c.event()), true, 'c reaches its mark')
  assert.equal(store.append(a, a.event()), true, '8 pending again, with a commit in flight: everyone waits')
  let anyGoes = false
  const anyWait = store.drained().then(() => (anyGoes = true))
  assert.equal(backend.attempts, 1, 'no second commit while one is in flight')
  await new Promise((r) => setImmediate(r))
  assert.equal(anyGoes, false, 'nobody goes on before the commit')
  release()
  await store.flush()
  await anyWait
  assert.deepEqual(
    ids(backend.committed[0]!.events),
    ['a#1', 'a#2', 'a#3', 'b#1', 'b#2', 'b#3', 'c#1', 'c#2'],
    'the first burst, each session whole, in order',
  )
  assert.deepEqual(ids(backend.committed[1]!.events), ['c#3', 'c#4', 'c#5', 'a#4', 'a#5', 'a#6', 'b#4', 'b#5'])
  assert.deepEqual(
    writers.map((w) => w.delivered.length),
    [6, 5, 5],
  )
})

test('flush() resolves once everything appended so far is committed, including appends during a commit', async () => {
  const backend = new RecordingBackend()
  const store = new EventStore(backend)
  await store.flush() // idle: resolves at once
  const a = new Writer('a')
  const release = backend.hold()
  store.append(a, a.event())
  await backend.nextCommit()
  let flushed = false
  const f = store.flush().then(() => {
    flushed = true
  })
  store.append(a, a.event()) // while the first commit is open
  store.append(a, a.event())
  assert.equal(flushed, false)
  release()
  await f
  assert.deepEqual(ids(await backend.readEvents('a', 0, 10)), ['a#1', 'a#2', 'a#3'])
  assert.deepEqual(ids(a.delivered), ['a#1', 'a#2', 'a#3'])
  assert.equal(backend.committed.length, 2)
})

test('touch() writes a record without events', async () => {
  const backend = new RecordingBackend()
  const store = new EventStore(backend)
  const a = new Writer('a')
  a.setState({ x: 1 })
  store.touch(a)
  await store.flush()
  assert.deepEqual(
    backend.committed.map((u) => [u.events.length, u.sessions.length]),
    [[0, 1]],
  )
  assert.deepEqual((await backend.getSession('a'))?.state, { x: 1 })
  assert.deepEqual(a.delivered, [])
})

test('a listener that throws in onCommitted does not stop delivery to others or later commits', async () => {
  const backend = new RecordingBackend()
  const listenerErrors: unknown[] = []
  const store = new EventStore(backend, { onListenerError: (err) => listenerErrors.push(err) })
  const bad = new Writer('bad')
  const good = new Writer('good')
  bad.onDelivered = () => {
    throw new Error('subscriber bug')
  }
  store.append(bad, bad.event())
  store.append(good, good.event())
  await store.flush()
  assert.deepEqual(ids(good.delivered), ['good#1'])
  assert.equal(listenerErrors.length, 1)
  store.append(good, good.event())
  await store.flush()
  assert.deepEqual(ids(good.delivered), ['good#1', 'good#2'])
})

test('read() pages through the backend', async () => {
  const backend = new RecordingBackend()
  const store = new EventStore(backend)
  const a = new Writer('a')
  for (let i = 0; i < 5; i++) store.append(a, a.event())
  await store.flush()
  assert.deepEqual(ids(await store.read('a', 2, 2)), ['a#3', 'a#4'])
})

test('the next commit starts before the previous batch is delivered (pipelining), in order, and flush waits for both', async () => {
  const backend = new RecordingBackend()
  // Window 0: commit 2 may start the moment commit 1 ends (with a window it waits out the rest of it).
  const store = new EventStore(backend, { commitWindowMs: 0 })
  const a = new Writer('a', backend.trace)
  const release = backend.hold()
  const first = backend.nextCommit()
  store.append(a, a.event())
  await first
  store.append(a, a.event()) // queued while commit 1 is open
  let flushed = false
  const f = store.flush().then(() => (flushed = true))
  let commitsAtFirstDelivery = -1
  a.onDelivered = (events) => {
    if (events[0]!.seq === 1) commitsAtFirstDelivery = backend.attempts
  }
  release()
  await f
  assert.equal(commitsAtFirstDelivery, 2, 'commit 2 was under way when batch 1 was delivered')
  assert.equal(flushed, true)
  assert.deepEqual(backend.trace, ['committed:a#1', 'delivered:a:1', 'committed:a#2', 'delivered:a:2'])
})

/** Resolves after `n` turns of the event loop (each a separate tick, so each append lands in its own). */
async function ticks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

test('commit window: after a quiet spell the first event commits in its own tick; events of the next ticks within the window share one commit', async () => {
  const backend = new RecordingBackend()
  const store = new EventStore(backend, { commitWindowMs: 60_000 })
  const a = new Writer('a')
  const b = new Writer('b')
  store.append(a, a.event())
  await ticks(2)
  assert.equal(backend.committed.length, 1, 'the first commit does not wait for a window')
  // Five more ticks, one event each, as paced sessions produce them: without a window, five commits.
  for (let i = 0; i < 5; i++) {
    store.append(i % 2 ? a : b, (i % 2 ? a : b).event())
    await ticks(1)
  }
  assert.equal(backend.committed.length, 1, 'they wait for the window')
  assert.equal(a.delivered.length + b.delivered.length, 1, 'nothing is delivered before it is committed')
  await store.flush() // does not wait out the window
  assert.equal(backend.committed.length, 2)
  assert.deepEqual(ids(backend.committed[1]!.events), ['b#1', 'b#2', 'b#3', 'a#2', 'a#3'], 'one commit, grouped by session')
})

test('commit window: commitWindowEvents pending events start the commit early, and flush waits for it', async () => {
  const backend = new RecordingBackend()
  const store = new EventStore(backend, { commitWindowMs: 60_000, commitWindowEvents: 3 })
  const a = new Writer('a')
  store.append(a, a.event())
  await ticks(2)
  for (let i = 0; i < 3; i++) {
    store.append(a, a.event())
    await ticks(1)
  }
  await ticks(2)
  assert.equal(backend.committed.length, 2)
  assert.deepEqual(ids(backend.committed[1]!.events), ['a#2', 'a#3', 'a#4'])
  assert.deepEqual(ids(a.delivered), ['a#1', 'a#2', 'a#3', 'a#4'])
  await store.flush()
})

test('commit window 0 commits every tick', async () => {
  const backend = new RecordingBackend()
  const store = new EventStore(backend, { commitWindowMs: 0 })
  const a = new Writer('a')
  for (let i = 0; i < 4; i++) {
    store.append(a, a.event())
    await ticks(2)
  }
  assert.equal(backend.committed.length, 4)
  await store.flush()
})

test("the commit window defaults to the backend's: none for a backend without one, the backend's own otherwise; an explicit option wins", async () => {
  const paced = async (store: EventStore, backend: RecordingBackend) => {
    const a = new Writer('a')
    for (let i = 0; i < 4; i++) {
      store.append(a, a.event())
      await ticks(2)
    }
    const commits = backend.committed.length
    await store.flush()
    return commits
  }
  const plain = new RecordingBackend()
  assert.equal(await paced(new EventStore(plain), plain), 4, 'no window: a commit per tick')
  const slow = Object.assign(new RecordingBackend(), { commitWindowMs: 60_000 })
  assert.equal(await paced(new EventStore(slow), slow), 1, "the backend's window: the ticks after the first wait for it")
  const overridden = Object.assign(new RecordingBackend(), { commitWindowMs: 60_000 })
  assert.equal(await paced(new EventStore(overridden, { commitWindowMs: 0 }), overridden), 4, 'the option overrides the backend')
})
