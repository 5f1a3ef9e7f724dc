import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ParlanceError, type EventOf, type HistoryMessage } from '../core/index.js'
import { defineAgent, type AgentDefinition } from '../agent-api/index.js'
import { createMemoryStore } from '../store/index.js'
import { aborted, echo, isCode, say, setup } from './fixtures/harness.js'

// Conversation control (issue 19): what a message does while a run is active, regenerate, rewinds, forks.

/** Answers with the history it saw ("u:hi|a:…"), then waits until told to finish (or is stopped). */
function gated(name = 'gated', onBusy?: AgentDefinition['onBusy']) {
  const seen: string[][] = []
  const gates: Array<() => void> = []
  let permits = 0
  const agent = defineAgent({
    name,
    ...(onBusy ? { onBusy } : {}),
    async run(ctx) {
      seen.push(ctx.history.map((m: HistoryMessage) => `${m.role[0]}:${m.content}`))
      await ctx.say(`answer to ${ctx.input.text}`)
      if (permits > 0) permits--
      else {
        let open = () => {}
        await Promise.race([new Promise<void>((r) => gates.push((open = r))), aborted(ctx.signal)])
        // A run stopped at its gate leaves the line: release() opens the next live one.
        if (gates.includes(open)) gates.splice(gates.indexOf(open), 1)
      }
    },
  })
  const release = () => {
    const open = gates.shift()
    if (open) open()
    else permits++
  }
  return { agent, seen, release }
}

const user = (m: HistoryMessage[]) => m.filter((x) => x.role === 'user').map((x) => x.content)

test('enqueue: messages sent during a run wait in order, each in a run of its own, visible as message.queued', async () => {
  const g = gated('g', 'enqueue')
  const s = setup([g.agent])
  const { session, rec } = await s.open()
  const first = say(session, 'one')
  await rec.next('text.end', first)
  void session.handle({ type: 'user.message', sessionId: session.id, content: 'two', messageId: 'm2' })
  void session.handle({ type: 'user.message', sessionId: session.id, content: 'three', messageId: 'm3' })
  assert.equal(session.activeRunId, first, 'the active run goes on')
  assert.deepEqual(
    session.model.queue.map((q) => q.messageId),
    ['m2', 'm3'],
  )
  const queued = await rec.until((e) => e.type === 'message.queued' && e.messageId === 'm3')
  assert.equal(queued.runId, first)
  g.release()
  const second = (await rec.until((e) => e.type === 'message.user' && e.messageId === 'm2')).runId
  assert.notEqual(second, first, 'a queued message gets its own run')
  await rec.next('text.end', second)
  g.release()
  const third = (await rec.until((e) => e.type === 'message.user' && e.messageId === 'm3')).runId
  await rec.next('text.end', third)
  g.release()
  assert.equal((await rec.end(third)).type, 'run.finished')
  assert.deepEqual(user(session.model.messages), ['one', 'two', 'three'])
  assert.deepEqual(session.model.queue, [])
  assert.deepEqual(
    g.seen.map((h) => h.filter((x) => x.startsWith('u:'))),
    [['u:one'], ['u:one', 'u:two'], ['u:one', 'u:two', 'u:three']],
  )
  await s.store.flush()
  assert.deepEqual((await s.backend.getSession(session.id))?.queue, [])
})

test('reject: a message during a run is refused with busy and the run goes on untouched', async () => {
  const g = gated()
  const s = setup([g.agent])
  const { session, rec } = await s.open()
  const first = say(session, 'one')
  await rec.next('text.end', first)
  assert.throws(
    () => session.handle({ type: 'user.message', sessionId: session.id, content: 'two', onBusy: 'reject' }),
    (err: unknown) => {
      assert.ok(err instanceof ParlanceError && err.code === 'busy')
      assert.equal(err.details?.activeRunId, first)
      return true
    },
  )
  g.release()
  assert.equal((await rec.end(first)).type, 'run.finished')
  assert.equal(rec.events.filter((e) => e.type === 'message.user').length, 1, 'nothing of the refused message was recorded')
})

test('rollback: the interrupted turn is cut from the history the next run sees; the log keeps it, marked', async () => {
  const g = gated()
  const s = setup([g.agent], {})
  const { session, rec } = await s.open()
  const first = say(session, 'one')
  await rec.next('text.end', first)
  g.release()
  await rec.end(first)
  const second = say(session, 'two')
  await rec.next('text.end', second)
  const third = say(session, 'three', { onBusy: 'rollback' })
  const end = (await rec.end(second)) as EventOf<'run.error'>
  assert.equal(end.code, 'interrupted')
  const mark = await rec.next('history.rewound', third)
  assert.deepEqual([mark.reason, mark.droppedRunId, mark.toMessageId], ['rollback', second, session.model.messages[1]!.id])
  await rec.next('text.end', third)
  assert.deepEqual(g.seen[2], ['u:one', 'a:answer to one', 'u:three'], 'run three does not see turn two')
  assert.deepEqual(user(session.model.messages), ['one', 'three'])
  assert.ok(
    rec.events.some((e) => e.type === 'message.user' && e.content === 'two'),
    'the log keeps the rolled-back turn',
  )
  g.release()
})

test('regenerate: the last user turn is answered again; the old answer leaves the history, not the log', async () => {
  const g = gated()
  const s = setup([g.agent])
  const { session, rec } = await s.open()
  const first = say(session, 'one')
  g.release()
  await rec.end(first)
  void session.handle({ type: 'run.regenerate', sessionId: session.id })
  const again = session.activeRunId!
  assert.notEqual(again, first)
  const mark = await rec.next('history.rewound', again)
  assert.equal(mark.reason, 'regenerate')
  await rec.next('text.end', again)
  assert.deepEqual(g.seen[1], ['u:one'], 'the agent sees the user turn once and no old answer')
  const run = rec.of(again).map((e) => e.type)
  assert.ok(!run.includes('message.user'), 'no second copy of the user message')
  g.release()
  await rec.end(again)
  assert.deepEqual(
    session.model.messages.map((m) => m.content),
    ['one', 'answer to one'],
  )
  assert.equal(rec.events.filter((e) => e.type === 'text.end').length, 2)
  // Nothing to regenerate, and an unknown message: not_found; a regenerate under reject during a run: busy.
  const { session: empty } = await s.open()
  assert.throws(() => empty.handle({ type: 'run.regenerate', sessionId: empty.id }), isCode('not_found'))
  assert.throws(() => session.handle({ type: 'run.regenerate', sessionId: session.id, messageId: 'nope' }), isCode('not_found'))
  const busy = say(session, 'two')
  assert.throws(() => session.handle({ type: 'run.regenerate', sessionId: session.id, onBusy: 'reject' }), isCode('busy'))
  g.release()
  await rec.end(busy)
})

test('edit: a rewound message replaces the turns after the kept one', async () => {
  const s = setup([echo])
  const { session, rec } = await s.open()
  await rec.end(say(session, 'one', { messageId: 'u1' }))
  await rec.end(say(session, 'two', { messageId: 'u2' }))
  const a1 = session.model.messages[1]!.id
  const run = say(session, 'TWO', { messageId: 'u2', rewind: { toMessageId: a1, branch: 'fork_x' } })
  const mark = await rec.next('history.rewound', run)
  assert.deepEqual([mark.reason, mark.branch], ['edit', 'fork_x'])
  await rec.end(run)
  assert.deepEqual(
    session.model.messages.map((m) => m.content),
    ['one', 'Echo: one', 'TWO', 'Echo: TWO'],
  )
})

test('queued messages survive a restart (the record keeps them) and run once the session is loaded again', async () => {
  const backend = createMemoryStore()
  const g = gated('g', 'enqueue')
  const a = setup([g.agent], { backend })
  const { session, rec } = await a.open('restart-q')
  const first = say(session, 'one')
  await rec.next('text.end', first)
  void session.handle({ type: 'user.message', sessionId: session.id, content: 'two', messageId: 'q2' })
  await rec.next('message.queued')
  await a.store.flush()
  assert.deepEqual(
    (await backend.getSession('restart-q'))?.queue.map((q) => q.content),
    ['two'],
  )
  // A second manager over the same store stands for the restarted process (the first one's run is gone).
  const g2 = gated('g', 'enqueue')
  const b = setup([g2.agent], { backend })
  const { session: again, rec: rec2 } = await b.open('restart-q')
  const started = await rec2.until((e) => e.type === 'message.user' && e.messageId === 'q2')
  assert.ok(
    rec2.events.some((e) => e.type === 'run.error' && e.runId === first && e.code === 'interrupted'),
    'the old run ended as interrupted',
  )
  await rec2.next('text.end', started.runId)
  assert.deepEqual(
    g2.seen[0]?.filter((x) => x.startsWith('u:')),
    ['u:one', 'u:two'],
  )
  g2.release()
  await rec2.end(started.runId)
  assert.deepEqual(again.model.queue, [])
})

test('the server and agent defaults apply; a message may override them', async () => {
  const g = gated('g', 'reject')
  const s = setup([g.agent])
  const { session, rec } = await s.open()
  const first = say(session, 'one')
  assert.throws(() => session.handle({ type: 'user.message', sessionId: session.id, content: 'two' }), isCode('busy'))
  const second = say(session, 'two', { onBusy: 'interrupt' })
  assert.equal(((await rec.end(first)) as EventOf<'run.error'>).code, 'interrupted')
  g.release()
  await rec.end(second)
  assert.throws(() => defineAgent({ name: 'x', onBusy: 'later' as never, run() {} }), /onBusy must be one of interrupt, enqueue, reject, rollback/)
})

test('fork through the manager: the caller must own the source; a run active at atSeq is closed in the fork at once', async () => {
  const g = gated()
  const s = setup([g.agent])
  const { session, rec } = await s.open()
  const first = say(session, 'one')
  const text = await rec.next('text.end', first)
  const record = await s.manager.fork(session.id, 'alice', { atSeq: text.seq })
  assert.equal(record.activeRunId, null, 'the cut run is closed')
  await assert.rejects(s.manager.fork(session.id, 'mallory'), isCode('forbidden'))
  const fork = await s.manager.open(record.id, 'alice', { create: false })
  assert.equal(fork.forkedFrom?.sessionId, session.id)
  await s.store.flush()
  const log = await s.backend.readEvents(record.id, 0, 100)
  assert.deepEqual(
    log.slice(0, text.seq).map((e) => e.type),
    rec.events.slice(0, text.seq).map((e) => e.type),
    "events 1..k are the source's",
  )
  const end = log.at(-1) as EventOf<'run.error'>
  assert.deepEqual([end.type, end.code], ['run.error', 'interrupted'])
  assert.match(end.message, /forked from .* at seq \d+ while this run was active/)
  assert.equal((await s.backend.getSession(record.id))?.activeRunId, null)
  assert.equal(session.activeRunId, first, 'the source run goes on')
  g.release()
  await rec.end(first)
})

test('a cancel naming a queued message withdraws it; naming the answered message stops its run; anything else is not_found', async () => {
  const g = gated('g', 'enqueue')
  const s = setup([g.agent])
  const { session, rec } = await s.open()
  const first = say(session, 'one', { messageId: 'm1' })
  await rec.next('text.end', first)
  void session.handle({ type: 'user.message', sessionId: session.id, content: 'two', messageId: 'm2' })
  void session.handle({ type: 'user.message', sessionId: session.id, content: 'three', messageId: 'm3' })
  void session.handle({ type: 'run.cancel', sessionId: session.id, messageId: 'm2', reason: 'never mind' })
  const withdrawn = await rec.next('message.withdrawn')
  assert.deepEqual([withdrawn.messageId, withdrawn.reason], ['m2', 'never mind'])
  assert.deepEqual(
    session.model.queue.map((q) => q.messageId),
    ['m3'],
  )
  assert.equal(session.activeRunId, first, 'withdrawing a queued message leaves the active run alone')
  assert.throws(() => session.handle({ type: 'run.cancel', sessionId: session.id, messageId: 'm2' }), isCode('not_found'))
  void session.handle({ type: 'run.cancel', sessionId: session.id, messageId: 'm1' })
  assert.equal(((await rec.end(first)) as EventOf<'run.error'>).code, 'cancelled')
  // A cancelled run hands over to the queue: m3 runs, m2 never does.
  const third = (await rec.until((e) => e.type === 'message.user' && e.messageId === 'm3')).runId
  g.release()
  await rec.end(third)
  assert.deepEqual(user(session.model.messages), ['one', 'three'])
  assert.ok(!rec.events.some((e) => e.type === 'message.user' && e.messageId === 'm2'))
})
