import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import type { EventBody, HistoryMessage, Json, StoredEvent } from '../src/core/index.js'
import { forkSession, loadSession, type SessionWrite, type StoreBackend } from '../src/store/index.js'
import { ConversationModel, ParlanceError } from '../src/core/index.js'

/** A stored event of `sessionId` at `seq` (a custom event carrying `value`, unless a body is given). */
export function ev(sessionId: string, seq: number, body: EventBody = { type: 'custom', name: 'n', value: seq }): StoredEvent {
  return { ...body, sessionId, runId: 'run_1', seq, ts: 1_700_000_000_000 + seq }
}

/** A session write; `state` and `messages` are left out unless given. */
export function rec(id: string, fields: Partial<SessionWrite> = {}): SessionWrite {
  return { id, agent: 'echo', owner: 'alice', createdAt: 1000, updatedAt: 1000, lastSeq: 0, activeRunId: null, ...fields }
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)
const seqs = (events: readonly StoredEvent[]): number[] => events.map((e) => e.seq)

/**
 * The contract every StoreBackend passes (STYLE.md §7): memory is the reference, SQLite (and later Redis) run
 * the same body. `make` returns a fresh, empty backend; each test closes it.
 */
export function runStoreContract(name: string, make: () => Promise<StoreBackend>): void {
  async function open(t: TestContext): Promise<StoreBackend> {
    const store = await make()
    t.after(() => store.close())
    return store
  }

  test(`${name} store: commit then readEvents round-trips the events`, async (t) => {
    const s = await open(t)
    const events = [ev('s1', 1), ev('s1', 2, { type: 'text.delta', messageId: 'm1', delta: 'hello' }), ev('s1', 3, { type: 'run.finished' })]
    await s.commit({ events, sessions: [rec('s1', { lastSeq: 3 })] })
    assert.deepEqual(await s.readEvents('s1', 0, 100), events)
    assert.deepEqual(await s.readEvents('other', 0, 100), [])
  })

  test(`${name} store: readEvents pages with afterSeq and limit, across commits`, async (t) => {
    const s = await open(t)
    await s.commit({ events: range(1, 4).map((i) => ev('s1', i)), sessions: [] })
    await s.commit({ events: range(5, 10).map((i) => ev('s1', i)), sessions: [] })
    assert.deepEqual(seqs(await s.readEvents('s1', 0, 3)), [1, 2, 3])
    assert.deepEqual(seqs(await s.readEvents('s1', 3, 3)), [4, 5, 6])
    assert.deepEqual(seqs(await s.readEvents('s1', 6, 100)), [7, 8, 9, 10])
    assert.deepEqual(seqs(await s.readEvents('s1', 9, 5)), [10])
    assert.deepEqual(seqs(await s.readEvents('s1', 0, 100)), range(1, 10))
    assert.deepEqual(await s.readEvents('s1', 10, 5), [], 'afterSeq at the end')
    assert.deepEqual(await s.readEvents('s1', 50, 5), [], 'afterSeq beyond the end')
    assert.deepEqual(await s.readEvents('s1', 2, 0), [], 'limit 0')
    // Paging until empty yields every event exactly once, in order.
    const all: number[] = []
    for (let after = 0; ;) {
      const page = await s.readEvents('s1', after, 3)
      if (page.length === 0) break
      all.push(...seqs(page))
      after = page[page.length - 1]!.seq
    }
    assert.deepEqual(all, range(1, 10))
  })

  test(`${name} store: several sessions interleaved in one commit unit`, async (t) => {
    const s = await open(t)
    const unit = [ev('a', 1), ev('b', 1), ev('a', 2), ev('c', 1), ev('b', 2), ev('a', 3)]
    await s.commit({ events: unit, sessions: [rec('a', { lastSeq: 3 }), rec('b', { lastSeq: 2 }), rec('c', { lastSeq: 1 })] })
    assert.deepEqual(await s.readEvents('a', 0, 10), [unit[0], unit[2], unit[5]])
    assert.deepEqual(await s.readEvents('b', 0, 10), [unit[1], unit[4]])
    assert.deepEqual(await s.readEvents('c', 0, 10), [unit[3]])
    assert.deepEqual(await s.readEvents('b', 1, 10), [unit[4]])
    assert.deepEqual(
      (await Promise.all(['a', 'b', 'c'].map((id) => s.getSession(id)))).map((r) => r?.lastSeq),
      [3, 2, 1],
    )
    // The next unit continues each session where it stopped.
    await s.commit({ events: [ev('b', 3), ev('a', 4)], sessions: [] })
    assert.deepEqual(seqs(await s.readEvents('a', 0, 10)), [1, 2, 3, 4])
    assert.deepEqual(seqs(await s.readEvents('b', 0, 10)), [1, 2, 3])
  })

  test(`${name} store: a session record defaults state {} and messages []`, async (t) => {
    const s = await open(t)
    await s.commit({ events: [], sessions: [rec('s1')] })
    assert.deepEqual(await s.getSession('s1'), {
      id: 's1',
      agent: 'echo',
      owner: 'alice',
      createdAt: 1000,
      updatedAt: 1000,
      lastSeq: 0,
      activeRunId: null,
      state: {},
      stateSeq: 0,
      messages: [],
      queue: [],
      forkedFrom: null,
    })
  })

  test(`${name} store: a write that keeps a prefix of the history (messagesKept) ends with exactly the history it gives`, async (t) => {
    const s = await open(t)
    const m = (id: string): HistoryMessage => ({ id, role: 'user', content: `content of ${id}` })
    const history = async () => (await s.getSession('s1'))?.messages.map((x) => x.id)
    await s.commit({ events: [], sessions: [rec('s1', { messages: [m('a'), m('b')] })] })
    // A turn appends: the first two are kept.
    await s.commit({ events: [], sessions: [rec('s1', { messages: [m('a'), m('b'), m('c'), m('d')], messagesKept: 2 })] })
    assert.deepEqual(await history(), ['a', 'b', 'c', 'd'])
    // A rewind to a, then a new answer: one kept.
    await s.commit({ events: [], sessions: [rec('s1', { messages: [m('a')], messagesKept: 1 })] })
    assert.deepEqual(await history(), ['a'])
    await s.commit({ events: [], sessions: [rec('s1', { messages: [m('a'), m('e')], messagesKept: 1 })] })
    assert.deepEqual(await history(), ['a', 'e'])
    // A rewind and an append in one write keep only what both left (the model reports the smaller prefix).
    await s.commit({ events: [], sessions: [rec('s1', { messages: [m('a'), m('f'), m('g')], messagesKept: 1 })] })
    assert.deepEqual(await history(), ['a', 'f', 'g'])
    // A snapshot replaces it all; a later write without messages keeps it.
    await s.commit({ events: [], sessions: [rec('s1', { messages: [m('x')], messagesKept: 0 })] })
    await s.commit({ events: [], sessions: [rec('s1', { updatedAt: 2000 })] })
    assert.deepEqual(await history(), ['x'])
    const stored = (await s.getSession('s1'))!.messages[0]!
    assert.deepEqual(stored, m('x'))
  })

  test(`${name} store: the state is a snapshot as of stateSeq; loadSession folds the state events after it`, async (t) => {
    const s = await open(t)
    const bodies: EventBody[] = [
      { type: 'state.snapshot', snapshot: { items: { a: 1 }, list: [] } },
      { type: 'state.delta', patch: [{ op: 'replace', path: '/items/a', value: 2 }] },
      { type: 'text.start', messageId: 'm1' },
      { type: 'state.delta', patch: [{ op: 'add', path: '/list/-', value: { x: 1 } }] },
    ]
    const events = bodies.map((b, i) => ev('s1', i + 1, b))
    // Snapshot at 1 (as a session writes it: JSON text), then two commits with no snapshot: the log has them.
    await s.commit({ events: events.slice(0, 1), sessions: [rec('s1', { lastSeq: 1, stateJson: '{"items":{"a":1},"list":[]}', stateSeq: 1 })] })
    await s.commit({ events: events.slice(1, 3), sessions: [rec('s1', { lastSeq: 3 })] })
    await s.commit({ events: events.slice(3), sessions: [rec('s1', { lastSeq: 4 })] })
    const raw = await s.getSession('s1')
    assert.deepEqual([raw?.state, raw?.stateSeq, raw?.lastSeq], [{ items: { a: 1 }, list: [] }, 1, 4])
    const loaded = await loadSession(s, 's1')
    assert.deepEqual([loaded?.state, loaded?.stateSeq], [{ items: { a: 2 }, list: [{ x: 1 }] }, 1])
    // The stored events are unchanged by the fold (the memory store keeps them by reference).
    assert.deepEqual((await s.readEvents('s1', 0, 10)).map((e) => e.type === 'state.snapshot' && e.snapshot)[0], { items: { a: 1 }, list: [] })
    // A new snapshot; then a write saying it is still current at a later seq (no state event since).
    await s.commit({ events: [], sessions: [rec('s1', { lastSeq: 4, stateJson: JSON.stringify(loaded!.state), stateSeq: 4 })] })
    await s.commit({
      events: [ev('s1', 5, { type: 'text.end', messageId: 'm1' })],
      sessions: [rec('s1', { lastSeq: 5, stateSeq: 5, updatedAt: 9000 })],
    })
    const now = await s.getSession('s1')
    assert.deepEqual([now?.state, now?.stateSeq], [{ items: { a: 2 }, list: [{ x: 1 }] }, 5])
    assert.deepEqual((await loadSession(s, 's1'))?.state, now?.state)
  })

  test(`${name} store: upsert keeps state/messages omitted by a later write, and the first createdAt and owner`, async (t) => {
    const s = await open(t)
    const messages: HistoryMessage[] = [
      { id: 'u1', role: 'user', content: 'hi' },
      { id: 'm1', role: 'assistant', content: 'hello', toolCalls: [{ id: 'c1', name: 'search', arguments: '{"q":"x"}' }] },
      { id: 'r1', role: 'tool', toolCallId: 'c1', content: '', error: 'boom' },
    ]
    await s.commit({ events: [], sessions: [rec('s1', { state: { count: 1 }, messages })] })
    await s.commit({
      events: [],
      sessions: [rec('s1', { agent: 'other', owner: 'mallory', createdAt: 5000, updatedAt: 2000, lastSeq: 7, activeRunId: 'run_9' })],
    })
    assert.deepEqual(await s.getSession('s1'), {
      id: 's1',
      agent: 'other',
      owner: 'alice',
      createdAt: 1000,
      updatedAt: 2000,
      lastSeq: 7,
      activeRunId: 'run_9',
      state: { count: 1 },
      stateSeq: 0,
      messages,
      queue: [],
      forkedFrom: null,
    })
    await s.commit({ events: [], sessions: [rec('s1', { updatedAt: 3000, lastSeq: 8, state: [1, 2] })] })
    const r = await s.getSession('s1')
    assert.deepEqual([r?.state, r?.messages, r?.activeRunId, r?.lastSeq], [[1, 2], messages, null, 8])
    await s.commit({ events: [], sessions: [rec('s1', { updatedAt: 4000, messages: [] })] })
    const r2 = await s.getSession('s1')
    assert.deepEqual([r2?.state, r2?.messages], [[1, 2], []])
    // A state of null is a value, not an omission.
    await s.commit({ events: [], sessions: [rec('s1', { updatedAt: 5000, state: null })] })
    assert.equal((await s.getSession('s1'))?.state, null)
  })

  test(`${name} store: records are copies (mutating what was written or read changes nothing)`, async (t) => {
    const s = await open(t)
    const state = { list: [1] }
    const write = rec('s1', { state })
    await s.commit({ events: [], sessions: [write] })
    state.list.push(2)
    write.lastSeq = 99
    const r = await s.getSession('s1')
    assert.deepEqual([r?.state, r?.lastSeq], [{ list: [1] }, 0])
    ;(r!.state as { list: number[] }).list.push(3)
    r!.messages.push({ id: 'x', role: 'user', content: 'x' })
    const again = await s.getSession('s1')
    assert.deepEqual([again?.state, again?.messages], [{ list: [1] }, []])
  })

  test(`${name} store: getSession of an unknown id is undefined`, async (t) => {
    const s = await open(t)
    assert.equal(await s.getSession('nope'), undefined)
    await s.commit({ events: [ev('s1', 1)], sessions: [] })
    assert.equal(await s.getSession('s1'), undefined, 'events alone make no session record')
  })

  test(`${name} store: listSessions is ordered by updatedAt descending and honours limit`, async (t) => {
    const s = await open(t)
    assert.deepEqual(await s.listSessions(10), [])
    await s.commit({
      events: [],
      sessions: [
        rec('old', { updatedAt: 1000 }),
        rec('newest', { updatedAt: 3000, lastSeq: 4, activeRunId: 'run_1', state: { big: 'x' } }),
        rec('middle', { updatedAt: 2000 }),
      ],
    })
    assert.deepEqual(
      (await s.listSessions(10)).map((x) => x.id),
      ['newest', 'middle', 'old'],
    )
    assert.deepEqual(await s.listSessions(2), [
      { id: 'newest', agent: 'echo', owner: 'alice', lastSeq: 4, updatedAt: 3000, activeRunId: 'run_1' },
      { id: 'middle', agent: 'echo', owner: 'alice', lastSeq: 0, updatedAt: 2000, activeRunId: null },
    ])
    // An update moves a session to the front.
    await s.commit({ events: [], sessions: [rec('old', { updatedAt: 4000 })] })
    assert.deepEqual(
      (await s.listSessions(1)).map((x) => x.id),
      ['old'],
    )
  })

  test(`${name} store: countSessions counts the sessions an owner owns`, async (t) => {
    const s = await open(t)
    assert.equal(await s.countSessions('alice'), 0)
    await s.commit({ events: [], sessions: [rec('a1'), rec('a2'), rec('b1', { owner: 'bob' })] })
    await s.commit({ events: [], sessions: [rec('a1', { updatedAt: 9000 })] })
    assert.equal(await s.countSessions('alice'), 2)
    assert.equal(await s.countSessions('bob'), 1)
    assert.equal(await s.countSessions('carol'), 0)
  })

  test(`${name} store: unicode and nested JSON round-trip intact`, async (t) => {
    const s = await open(t)
    const weird = 'émoji 😀 𝄞 "quotes" \\ back\\slash\nnew\tline \u2028\u2029 \u0000 ключ 中文 \ud83d'
    const nested: Json = {
      [weird]: [1, -2.5, 1e21, 0.1, true, false, null, '', { deep: { deeper: [[[{ a: weird }]]] } }],
      empty: {},
      list: [],
    }
    const events = [
      ev('s-ü😀', 1, { type: 'text.delta', messageId: 'm"1', delta: weird }),
      ev('s-ü😀', 2, { type: 'custom', name: weird, value: nested }),
      ev('s-ü😀', 3, { type: 'tool.call', toolCallId: 'c', toolName: 't', args: { q: weird, n: { m: [null] } }, target: 'client' }),
    ]
    const messages: HistoryMessage[] = [{ id: 'm"1', role: 'assistant', content: weird }]
    await s.commit({ events, sessions: [rec('s-ü😀', { agent: 'a', owner: 'ü', state: nested, messages, lastSeq: 3 })] })
    assert.deepEqual(await s.readEvents('s-ü😀', 0, 10), events)
    const r = await s.getSession('s-ü😀')
    assert.deepEqual([r?.state, r?.messages, r?.owner], [nested, messages, 'ü'])
  })

  test(`${name} store: a failed commit leaves nothing of its unit (duplicate seq inside the unit)`, async (t) => {
    const s = await open(t)
    await s.commit({ events: [ev('s1', 1)], sessions: [rec('s1', { lastSeq: 1, state: { v: 1 } })] })
    await assert.rejects(
      s.commit({
        events: [ev('s2', 1), ev('s1', 2), ev('s3', 1), ev('s1', 3), ev('s1', 3)],
        sessions: [rec('s1', { lastSeq: 3, updatedAt: 9000, state: { v: 2 } }), rec('s2', { lastSeq: 1 }), rec('s3', { lastSeq: 1 })],
      }),
      /seq gap in s1: 3 then 3/,
    )
    assert.deepEqual(seqs(await s.readEvents('s1', 0, 10)), [1])
    assert.deepEqual(await s.readEvents('s2', 0, 10), [])
    assert.deepEqual(await s.readEvents('s3', 0, 10), [])
    assert.equal(await s.getSession('s2'), undefined)
    assert.equal(await s.getSession('s3'), undefined)
    const r = await s.getSession('s1')
    assert.deepEqual([r?.lastSeq, r?.updatedAt, r?.state], [1, 1000, { v: 1 }])
    // The store is still usable and the same events commit once the unit is sound.
    await s.commit({ events: [ev('s2', 1), ev('s1', 2)], sessions: [rec('s2', { lastSeq: 1 })] })
    assert.deepEqual(seqs(await s.readEvents('s1', 0, 10)), [1, 2])
    assert.deepEqual(seqs(await s.readEvents('s2', 0, 10)), [1])
  })

  test(`${name} store: a failed commit leaves nothing of its unit (seq already committed)`, async (t) => {
    const s = await open(t)
    await s.commit({ events: [ev('s1', 1), ev('s1', 2)], sessions: [] })
    await assert.rejects(
      s.commit({ events: [ev('s9', 1), ev('s9', 2), ev('s1', 2)], sessions: [rec('s9', { lastSeq: 2 })] }),
      /seq gap in s1: 2 then 2/,
    )
    assert.deepEqual(await s.readEvents('s9', 0, 10), [])
    assert.equal(await s.getSession('s9'), undefined)
    assert.deepEqual(seqs(await s.readEvents('s1', 0, 10)), [1, 2])
  })

  test(`${name} store: a large unit (hundreds of events, several sessions) round-trips, and fails whole`, async (t) => {
    const s = await open(t)
    const unit: StoredEvent[] = []
    for (let i = 1; i <= 150; i++) for (const id of ['x', 'y', 'z']) if (id !== 'z' || i <= 7) unit.push(ev(id, i))
    await s.commit({ events: unit, sessions: [rec('x', { lastSeq: 150 })] })
    assert.deepEqual(
      await s.readEvents('x', 0, 1000),
      unit.filter((e) => e.sessionId === 'x'),
    )
    assert.deepEqual(seqs(await s.readEvents('y', 140, 1000)), range(141, 150))
    assert.deepEqual(seqs(await s.readEvents('z', 0, 1000)), range(1, 7))
    // A bad event deep inside a big unit still undoes all of it.
    const bad: StoredEvent[] = []
    for (let i = 1; i <= 130; i++) bad.push(ev('w', i), ev('x', 150 + i))
    bad.splice(100, 0, ev('y', 150)) // already committed
    await assert.rejects(s.commit({ events: bad, sessions: [rec('w', { lastSeq: 130 })] }), /seq gap in y: 150 then 150/)
    assert.deepEqual(await s.readEvents('w', 0, 1000), [])
    assert.deepEqual(await s.readEvents('x', 150, 1000), [])
    assert.equal(await s.getSession('w'), undefined)
  })

  test(`${name} store: the queue is kept like messages (omitted writes keep it), forkedFrom is set once`, async (t) => {
    const s = await open(t)
    const queue = [
      { messageId: 'q1', content: 'later', metadata: { a: 1 } },
      { messageId: 'q2', content: 'after that', agent: 'other' },
    ]
    await s.commit({ events: [], sessions: [rec('s1', { queue, forkedFrom: { sessionId: 'p', atSeq: 4 } })] })
    await s.commit({ events: [], sessions: [rec('s1', { updatedAt: 2000, lastSeq: 1 })] })
    let r = await s.getSession('s1')
    assert.deepEqual([r?.queue, r?.forkedFrom], [queue, { sessionId: 'p', atSeq: 4 }])
    await s.commit({ events: [], sessions: [rec('s1', { updatedAt: 3000, queue: [queue[1]!] })] })
    r = await s.getSession('s1')
    assert.deepEqual(r?.queue, [queue[1]])
    assert.deepEqual((await s.listSessions(10)).find((x) => x.id === 's1')?.forkedFrom, { sessionId: 'p', atSeq: 4 })
  })

  test(`${name} store: a fork at seq k holds exactly events 1..k of the original, folded; the original is unchanged`, async (t) => {
    const s = await open(t)
    const bodies: EventBody[] = [
      { type: 'message.user', messageId: 'u1', content: 'hi' },
      { type: 'run.started', agent: 'echo' },
      { type: 'text.start', messageId: 'a1' },
      { type: 'text.delta', messageId: 'a1', delta: 'hello' },
      { type: 'text.end', messageId: 'a1' },
      { type: 'state.snapshot', snapshot: { n: 1 } },
      { type: 'run.finished' },
      { type: 'message.user', messageId: 'u2', content: 'again' },
      { type: 'run.started', agent: 'echo' },
      { type: 'text.start', messageId: 'a2' },
      { type: 'text.delta', messageId: 'a2', delta: 'once more' },
      { type: 'text.end', messageId: 'a2' },
      { type: 'run.finished' },
    ]
    const events = bodies.map((b, i) => ({ ...ev('src', i + 1, b), runId: i < 7 ? 'run_1' : 'run_2' }))
    const original = new ConversationModel()
    for (const e of events) original.apply(e)
    await s.commit({ events, sessions: [rec('src', { lastSeq: 13, messages: original.messages, state: original.state })] })
    const before = await s.getSession('src')

    const fork = await forkSession(s, 'src', { id: 'f1', atSeq: 7, pageSize: 3 })
    const copied = await s.readEvents('f1', 0, 100)
    assert.deepEqual(
      copied,
      events.slice(0, 7).map((e) => ({ ...e, sessionId: 'f1' })),
      'events 1..7, only sessionId differs',
    )
    const stored = await s.getSession('f1')
    assert.deepEqual(stored, { ...fork, updatedAt: stored!.updatedAt })
    assert.deepEqual(
      stored?.messages.map((m) => m.content),
      ['hi', 'hello'],
    )
    assert.deepEqual(
      [stored?.state, stored?.lastSeq, stored?.activeRunId, stored?.forkedFrom, stored?.owner],
      [{ n: 1 }, 7, null, { sessionId: 'src', atSeq: 7 }, 'alice'],
    )
    assert.deepEqual(await s.getSession('src'), before, 'the original record is unchanged')
    assert.deepEqual(await s.readEvents('src', 0, 100), events, 'the original log is unchanged')

    // Mid-run: the run stays active in the fork's record (closed when the fork is opened, as after a restart).
    const mid = await forkSession(s, 'src', { id: 'f2', atSeq: 10 })
    assert.equal(mid.activeRunId, 'run_2')
    assert.deepEqual(
      mid.messages.map((m) => m.id),
      ['u1', 'a1', 'u2'],
    )
    // A fork of a fork, and the fork is a session like any other: it takes new events after k.
    await s.commit({ events: [ev('f1', 8)], sessions: [rec('f1', { lastSeq: 8 })] })
    assert.equal((await forkSession(s, 'f1', { id: 'f3', atSeq: 8 })).forkedFrom?.sessionId, 'f1')

    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: unknown) => (e instanceof ParlanceError ? e.code : String(e)),
      )
    assert.equal(await code(forkSession(s, 'src', { id: 'f4', atSeq: 14 })), 'invalid_message', 'beyond the last seq')
    assert.equal(await code(forkSession(s, 'src', { id: 'f4', atSeq: 0 })), 'invalid_message')
    assert.equal(await code(forkSession(s, 'src', { id: 'f1', atSeq: 3 })), 'conflict', 'the id exists')
    assert.equal(await code(forkSession(s, 'nope', { id: 'f5', atSeq: 1 })), 'not_found')
    assert.equal(await s.getSession('f4'), undefined, 'a refused fork writes nothing')
  })

  test(`${name} store: unfinished lists the sessions with an active run or queued messages`, async (t) => {
    const s = await open(t)
    assert.equal(typeof s.unfinished, 'function', 'every built-in backend lists its unfinished sessions')
    const unfinished = (limit: number) => s.unfinished!(limit)
    await s.commit({
      events: [],
      sessions: [
        rec('idle'),
        rec('running', { activeRunId: 'run_1', owner: 'bob' }),
        rec('queued', { queue: [{ messageId: 'q', content: 'later' }] }),
      ],
    })
    const got = (await unfinished(10)).map((u) => `${u.id}:${u.owner}`).sort()
    assert.deepEqual(got, ['queued:alice', 'running:bob'])
    assert.equal((await unfinished(1)).length, 1, 'limit')
    await s.commit({
      events: [],
      sessions: [rec('running', { activeRunId: null, owner: 'bob', updatedAt: 5000 }), rec('queued', { queue: [], updatedAt: 5000 })],
    })
    assert.deepEqual(await unfinished(10), [])
  })

  test(`${name} store: records are kept per (scope, key), overwritten, deleted and listed in key order by page`, async (t) => {
    const s = await open(t)
    assert.equal(await s.getRecord('a2a.task', 'nope'), undefined)
    await s.putRecord('a2a.task', 't2', { sessionId: 's1', n: 2 })
    await s.putRecord('a2a.task', 't1', { sessionId: 's1', n: 1 })
    await s.putRecord('a2a.task', 't3', 'three')
    await s.putRecord('other', 't1', [1, 'ü😀', null])
    assert.deepEqual(await s.getRecord('a2a.task', 't1'), { sessionId: 's1', n: 1 })
    assert.deepEqual(await s.getRecord('other', 't1'), [1, 'ü😀', null], 'scopes are apart')
    await s.putRecord('a2a.task', 't1', { sessionId: 's1', n: 10 })
    assert.deepEqual(await s.getRecord('a2a.task', 't1'), { sessionId: 's1', n: 10 }, 'overwritten')
    const keys = async (after: string, limit: number) => (await s.listRecords('a2a.task', after, limit)).map((r) => r.key)
    assert.deepEqual(await keys('', 10), ['t1', 't2', 't3'])
    assert.deepEqual(await keys('', 2), ['t1', 't2'])
    assert.deepEqual(await keys('t2', 2), ['t3'], 'after the last key of the previous page')
    assert.deepEqual(await keys('t3', 2), [])
    assert.deepEqual(await keys('', 0), [])
    assert.deepEqual((await s.listRecords('a2a.task', 't2', 5))[0]?.value, 'three')
    await s.putRecord('a2a.task', 't2', undefined)
    await s.putRecord('a2a.task', 'never', undefined)
    assert.equal(await s.getRecord('a2a.task', 't2'), undefined, 'deleted')
    assert.deepEqual(await keys('', 10), ['t1', 't3'])
    assert.deepEqual(await s.listRecords('empty', '', 10), [])
    // Key order is byte order: 'B' < 'a' < 'é' < '😀'.
    for (const k of ['😀', 'é', 'a', 'B']) await s.putRecord('order', k, k)
    assert.deepEqual(
      (await s.listRecords('order', '', 10)).map((r) => r.key),
      ['B', 'a', 'é', '😀'],
    )
  })

  test(`${name} store: ping is true while open and false after close`, async () => {
    const s = await make()
    assert.equal(await s.ping(), true)
    await s.close()
    assert.equal(await s.ping(), false)
    await s.close() // closing twice is harmless
  })
}
