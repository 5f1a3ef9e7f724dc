// Conversation control (issue 19) over HAI: onBusy policies, metadata.onBusy, regenerate, a queue across a kill -9.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { HaiClient, textOf, type HaiServerMessage } from '../src/client/index.js'
import type { OnBusy } from '../src/index.js'
import { gatedAgent, userTurns, type Gated } from './conversation-support.js'
import { spawnServe } from './support/serve-process.js'
import { startServer, type TestServer } from './harness.js'
import { verifyHaiStream } from './hai-lifecycle.js'
import { waitFor } from './support/wait.js'

type Status = Extract<HaiServerMessage, { type: 'status' }>

async function setup(t: { after(fn: () => Promise<void>): void }, onBusy?: OnBusy): Promise<{ s: TestServer; g: Gated; c: HaiClient }> {
  const g = gatedAgent()
  const s = await startServer({ agents: [g.agent], ...(onBusy ? { onBusy } : {}) })
  t.after(() => s.close())
  return { s, g, c: await s.hai() }
}

const isFinal = (m: HaiServerMessage) => m.type === 'assistant_message_chunk' && m.is_final
const isQueued = (m: HaiServerMessage): m is Status => m.type === 'status' && m.queued !== undefined
const isRewound = (m: HaiServerMessage): m is Status => m.type === 'status' && m.rewound !== undefined
const completed = (ms: readonly HaiServerMessage[]) => ms.filter((m) => m.type === 'status' && m.status === 'completed').length

/** The stream split at each `status: completed` (one slice per run), each checked by the seed's lifecycle rules. */
function runs(ms: readonly HaiServerMessage[]): HaiServerMessage[][] {
  const out: HaiServerMessage[][] = [[]]
  for (const m of ms) {
    out.at(-1)!.push(m)
    if (m.type === 'status' && m.status === 'completed') out.push([])
  }
  if (out.at(-1)!.length === 0) out.pop()
  for (const r of out) verifyHaiStream(r)
  return out
}

test('enqueue: two messages sent in one tick during a run are queued (status queued) and answered in order, each in its own run', async (t) => {
  const { s, g, c } = await setup(t, 'enqueue')
  c.say('one')
  await c.next(isFinal)
  c.say('two')
  c.say('three')
  const q2 = (await c.next(isQueued)) as Status
  const q3 = (await c.next(isQueued)) as Status
  assert.deepEqual([q2.queued?.content, q3.queued?.content, q2.status], ['two', 'three', 'thinking'])
  assert.equal(completed(c.received), 0, 'the first run goes on')
  g.release()
  await c.untilCompleted()
  await c.next(isFinal)
  g.release()
  await c.untilCompleted()
  await c.next(isFinal)
  g.release()
  await c.untilCompleted()
  const [r1, r2, r3] = runs(c.received)
  assert.deepEqual([textOf(r1!), textOf(r2!), textOf(r3!)], ['answer to one', 'answer to two', 'answer to three'])
  assert.deepEqual(g.seen.map(userTurns), [['one'], ['one', 'two'], ['one', 'two', 'three']])
  // Each queued message is the user message of a run of its own.
  const log = await s.log(c.sessionId)
  const runOf = (id: string | undefined) => log.find((e) => e.type === 'message.user' && e.messageId === id)?.runId
  const ids = [runOf(q2.queued?.message_id), runOf(q3.queued?.message_id)]
  const first = log.find((e) => e.type === 'message.user')!.runId
  assert.equal(new Set([first, ...ids]).size, 3, `three runs: ${JSON.stringify([first, ...ids])}`)
})

test('reject: the second message gets error busy; the first run streams on, intact and once; the socket stays up', async (t) => {
  const { g, c } = await setup(t, 'reject')
  c.say('one')
  await c.next(isFinal)
  c.say('two')
  const busy = await c.next('error')
  assert.equal(busy.error_code, 'busy')
  assert.equal(typeof busy.details?.activeRunId, 'string')
  g.release()
  await c.untilCompleted()
  verifyHaiStream(c.received)
  assert.equal(textOf(c.received), 'answer to one', 'the stream of run one arrives whole, once')
  assert.equal(c.received.filter(isFinal).length, 1)
  assert.equal(completed(c.received), 1)
  assert.equal(c.received.filter((m) => m.type === 'error').length, 1, 'only the busy error')
  c.say('three')
  g.release()
  const after = await c.untilCompleted()
  assert.equal(textOf(after), 'answer to three')
  assert.deepEqual(g.seen.map(userTurns), [['one'], ['one', 'three']], 'nothing of the refused message reached the agent')
})

test('rollback: the interrupted turn is cut from the history of the next run, announced by status rewound', async (t) => {
  const { g, c } = await setup(t, 'rollback')
  c.say('one')
  g.release()
  await c.untilCompleted()
  c.say('two')
  await c.next(isFinal)
  c.say('three')
  const stopped = await c.untilCompleted()
  assert.ok(stopped.some((m) => m.type === 'error' && m.error_code === 'interrupted'))
  const mark = (await c.next(isRewound)) as Status
  assert.equal(mark.rewound?.reason, 'rollback')
  assert.equal(typeof mark.rewound?.dropped_run_id, 'string')
  await c.next(isFinal)
  g.release()
  await c.untilCompleted()
  const all = runs(c.received)
  assert.equal(all.length, 3)
  assert.equal(textOf(all[2]!), 'answer to three')
  assert.deepEqual(g.seen[2], ['u:one', 'a:answer to one', 'u:three'], 'run three does not see turn two')
})

test('interrupt (the default): a new message stops the run (error interrupted) and the next run sees the whole history', async (t) => {
  const { g, c } = await setup(t)
  c.say('one')
  await c.next(isFinal)
  c.say('two')
  const stopped = await c.untilCompleted()
  assert.ok(stopped.some((m) => m.type === 'error' && m.error_code === 'interrupted'))
  g.release()
  const next = await c.untilCompleted()
  runs(c.received)
  assert.equal(textOf(next), 'answer to two')
  assert.ok(!c.received.some((m) => isRewound(m) || isQueued(m)))
  assert.deepEqual(g.seen[1], ['u:one', 'a:answer to one', 'u:two'])
})

test('metadata.onBusy overrides the server policy, per message; a bad value is invalid_message naming the field', async (t) => {
  const { g, c } = await setup(t, 'reject')
  c.say('one')
  await c.next(isFinal)
  c.say('bad', { onBusy: 'later' })
  const bad = await c.next('error')
  assert.equal(bad.error_code, 'invalid_message')
  assert.equal(bad.details?.field, 'metadata/onBusy')
  assert.deepEqual(bad.details?.allowed, ['interrupt', 'enqueue', 'reject', 'rollback'])
  c.say('two', { onBusy: 'enqueue' })
  assert.equal(((await c.next(isQueued)) as Status).queued?.content, 'two')
  c.say('three')
  assert.equal((await c.next('error')).error_code, 'busy', 'without metadata the server policy (reject) holds')
  c.say('four', { onBusy: 'rollback' })
  await c.untilCompleted()
  assert.equal(((await c.next(isRewound)) as Status).rewound?.reason, 'rollback')
  g.release()
  await c.untilCompleted()
  await c.next(isFinal) // the queued "two" was not dropped by the rollback: it runs after "four"
  g.release()
  await c.untilCompleted()
  const all = runs(c.received)
  assert.deepEqual(
    all.map((r) => textOf(r)),
    ['answer to one', 'answer to four', 'answer to two'],
  )
  assert.deepEqual(g.seen.map(userTurns), [['one'], ['four'], ['four', 'two']])
})

test('regenerate: the last user turn is answered again without the old answer in ctx.history; refused while busy with reject', async (t) => {
  const { g, c } = await setup(t)
  c.regenerate()
  assert.equal((await c.next('error')).error_code, 'not_found', 'a session that does not exist has nothing to regenerate')
  c.say('one')
  g.release()
  await c.untilCompleted()
  c.regenerate()
  const mark = (await c.next(isRewound)) as Status
  assert.equal(mark.rewound?.reason, 'regenerate')
  await c.next(isFinal)
  c.regenerate(undefined, { onBusy: 'reject' })
  assert.equal((await c.next('error')).error_code, 'busy')
  c.regenerate('msg_nope')
  assert.equal((await c.next('error')).error_code, 'not_found')
  g.release()
  await c.untilCompleted()
  assert.deepEqual(g.seen, [['u:one'], ['u:one']], 'the agent ran again on the last user turn, without its old answer')
  // The inbound errors (not in the log) aside, two runs, the second answering "one" again.
  const all = runs(c.received.filter((m) => m.type !== 'error' || m.seq !== undefined))
  assert.deepEqual(
    all.map((r) => textOf(r)),
    ['answer to one', 'answer to one'],
  )
})

test('a queued message survives kill -9: the restarted server runs it by itself, and a client resuming sees the rest', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parlance-queue-crash-'))
  t.after(() => rmSync(dataDir, { recursive: true, force: true }))
  const server = await spawnServe(t, ['--store', 'sqlite', '--data', dataDir, '--on-busy', 'enqueue'])
  const url = server.url
  const a = await HaiClient.connect({ url })
  t.after(() => a.close())
  a.say('client') // the demo agent waits for a client tool result: the run stays active
  await a.next('tool_call_start')
  a.say('hello after the crash')
  const queued = (await a.next(isQueued)) as Status // sent once committed
  assert.equal(queued.queued?.content, 'hello after the crash')
  await server.kill()
  await a.closed

  const second = await startServer({ store: 'sqlite', dataDir })
  t.after(() => second.close())
  // The restarted server resumes the session by itself, before any client comes back: the queued message runs.
  const log = () => second.server.sessions.store.read(a.sessionId, 0, 1000)
  await waitFor(async () => (await log()).some((e) => e.type === 'run.finished'), { what: 'the resumed run to finish' })
  assert.ok(
    (await log()).some((e) => e.type === 'message.user' && e.content === 'hello after the crash'),
    'the queued message ran without a client',
  )
  const b = await second.hai({ sessionId: a.sessionId, resumeAfter: a.lastSeq })
  const closed = await b.untilCompleted()
  assert.ok(
    closed.some((m) => m.type === 'error' && m.error_code === 'interrupted'),
    'the killed run is closed as interrupted',
  )
  const rest = await b.untilCompleted()
  assert.equal(textOf(rest), 'Echo: hello after the crash')
  verifyHaiStream(rest)
  const session = await second.server.sessions.open(a.sessionId, 'anonymous')
  assert.deepEqual(session.model.queue, [])
  assert.deepEqual(
    session.model.messages.filter((m) => m.role === 'user').map((m) => m.content),
    ['client', 'hello after the crash'],
  )
})

test('a message named by metadata.message_id can be withdrawn while queued (cancel message_id) and answered again by that id', async (t) => {
  const { s, g, c } = await setup(t, 'enqueue')
  c.say('one', { message_id: 'mine-1' })
  await c.next(isFinal)
  c.say('two', { message_id: 'mine-2' })
  const q = (await c.next(isQueued)) as Status
  assert.equal(q.queued?.message_id, 'mine-2', 'the queued message carries the id the client gave')
  c.cancel('mine-2')
  const log = () => s.log(c.sessionId)
  await waitFor(async () => (await log()).some((e) => e.type === 'message.withdrawn'), { what: 'the queued message to be withdrawn' })
  g.release()
  await c.untilCompleted()
  assert.equal(g.seen.length, 1, 'the withdrawn message never ran')
  // Regenerate the first message by the id the client gave it.
  c.regenerate('mine-1')
  await c.next(isRewound)
  g.release()
  await c.untilCompleted()
  assert.deepEqual(userTurns(g.seen[1]!), ['one'])
  c.sendRaw({ type: 'user_message', session_id: c.sessionId, content: 'x', metadata: { message_id: 7 } })
  const err = await c.next((m) => m.type === 'error')
  assert.match(JSON.stringify(err), /metadata.message_id/)
})
