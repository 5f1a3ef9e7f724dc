// Conversation control (issue 19) over MyAgent: onBusy policies, metadata.onBusy, user.regenerate.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MyAgentClient, type MyAgentServerEvent } from '../src/client/index.js'
import type { OnBusy } from '../src/index.js'
import { gatedAgent, userTurns } from './conversation-support.js'
import { startServer } from './harness.js'
import { watch } from './huma-support.js'
import { waitFor } from './support/wait.js'

/** A server with a gated agent, a client in a new session, and a watch on the session's log (MyAgent has no run-end event). */
async function setup(t: { after(fn: () => unknown): void }, onBusy?: OnBusy) {
  const g = gatedAgent()
  const s = await startServer({ agents: [g.agent], ...(onBusy ? { onBusy } : {}) })
  t.after(() => s.close())
  const c = await MyAgentClient.connect({ url: s.url })
  t.after(() => c.close())
  const sessionId = await c.createSession()
  return { s, g, c, sessionId, w: await watch(s, sessionId) }
}

const named = (name: string) => (e: MyAgentServerEvent) => e.event === name
const answers = (es: readonly MyAgentServerEvent[]) => es.filter(named('agent.final_answer')).map((e) => (e.content as { answer: string }).answer)
const seqs = (es: readonly MyAgentServerEvent[]) => es.flatMap((e) => (typeof e.metadata.seq === 'number' ? [e.metadata.seq] : []))

/** Session events come once each, in order. */
function inOrder(es: readonly MyAgentServerEvent[]): void {
  const s = seqs(es)
  for (let i = 1; i < s.length; i++) assert.ok(s[i]! > s[i - 1]!, `seq ${s[i]} after ${s[i - 1]}`)
}

test('enqueue: two messages sent in one tick during a run are queued (agent.message_queued) and answered in order, each in its own run', async (t) => {
  const { s, g, c, sessionId } = await setup(t, 'enqueue')
  c.message('one')
  await c.next('agent.final_answer')
  c.message('two')
  c.message('three')
  const q2 = await c.next('agent.message_queued')
  const q3 = await c.next('agent.message_queued')
  assert.deepEqual([q2.content, q3.content], ['two', 'three'])
  g.release()
  await c.next('agent.final_answer')
  g.release()
  await c.next('agent.final_answer')
  g.release()
  assert.deepEqual(answers(c.received), ['answer to one', 'answer to two', 'answer to three'])
  assert.deepEqual(g.seen.map(userTurns), [['one'], ['one', 'two'], ['one', 'two', 'three']])
  inOrder(c.received)
  const log = await s.log(sessionId)
  const runOf = (id: unknown) => log.find((e) => e.type === 'message.user' && e.messageId === id)?.runId
  const first = log.find((e) => e.type === 'message.user')!.runId
  assert.equal(new Set([first, runOf(q2.metadata.message_id), runOf(q3.metadata.message_id)]).size, 3, 'three runs')
})

test('reject: the second message gets system.error ERR_BUSY_409; the first run streams on, intact and once; the connection stays up', async (t) => {
  const { g, c, w } = await setup(t, 'reject')
  c.message('one')
  await c.next('agent.final_answer')
  c.message('two')
  const busy = await c.next('system.error')
  assert.equal(busy.metadata.error_code, 'ERR_BUSY_409')
  assert.equal(busy.metadata.parlance_code, 'busy')
  g.release()
  const partials = c.received.filter(named('agent.partial_answer'))
  assert.deepEqual(
    partials.map((e) => e.content),
    ['answer to ', 'one'],
  )
  assert.deepEqual(
    partials.map((e) => e.metadata.chunk_index),
    [0, 1],
  )
  assert.deepEqual(answers(c.received), ['answer to one'])
  await w.runEnd()
  c.message('three')
  g.release()
  await c.next((e) => e.event === 'agent.final_answer' && (e.content as { answer: string }).answer === 'answer to three')
  assert.equal(c.received.filter((e) => e.event.startsWith('error.') || e.event === 'system.error').length, 1, 'only the busy error')
  assert.deepEqual(g.seen.map(userTurns), [['one'], ['one', 'three']])
  inOrder(c.received)
})

test('rollback: agent.history_rewound, and the next run does not see the rolled-back turn', async (t) => {
  const { g, c, w } = await setup(t, 'rollback')
  c.message('one')
  g.release()
  await c.next('agent.final_answer')
  await w.runEnd()
  c.message('two')
  await c.next('agent.final_answer')
  c.message('three')
  const stopped = await c.next('error.execution')
  assert.equal(stopped.metadata.error_type, 'interrupted')
  const mark = await c.next('agent.history_rewound')
  assert.equal(mark.metadata.reason, 'rollback')
  assert.equal(typeof mark.metadata.dropped_run_id, 'string')
  await c.next('agent.final_answer')
  g.release()
  assert.deepEqual(answers(c.received), ['answer to one', 'answer to two', 'answer to three'])
  assert.deepEqual(g.seen[2], ['u:one', 'a:answer to one', 'u:three'])
  inOrder(c.received)
})

test('interrupt (the default): the run ends error.execution interrupted; the next run sees the whole history', async (t) => {
  const { g, c } = await setup(t)
  c.message('one')
  await c.next('agent.final_answer')
  c.message('two')
  assert.equal((await c.next('error.execution')).metadata.error_type, 'interrupted')
  await c.next('agent.final_answer')
  g.release()
  assert.deepEqual(answers(c.received), ['answer to one', 'answer to two'])
  assert.ok(!c.received.some((e) => e.event === 'agent.history_rewound' || e.event === 'agent.message_queued'))
  assert.deepEqual(g.seen[1], ['u:one', 'a:answer to one', 'u:two'])
})

test('metadata.onBusy overrides the server policy, per message; a bad value is error.validation naming the field', async (t) => {
  const { g, c, sessionId } = await setup(t, 'reject')
  c.message('one')
  await c.next('agent.final_answer')
  c.message('bad', sessionId, { onBusy: 'soon' })
  const bad = await c.next('error.validation')
  assert.equal(bad.metadata.field, 'metadata.onBusy')
  assert.match(String(bad.metadata.constraint), /interrupt, enqueue, reject, rollback/)
  c.message('two', sessionId, { onBusy: 'enqueue' })
  assert.equal((await c.next('agent.message_queued')).content, 'two')
  c.message('three', sessionId, { onBusy: 'interrupt' })
  assert.equal((await c.next('error.execution')).metadata.error_type, 'interrupted')
  await c.next('agent.final_answer')
  g.release() // "three" ends; the queued "two" runs after it
  await c.next('agent.final_answer')
  g.release()
  assert.deepEqual(answers(c.received), ['answer to one', 'answer to three', 'answer to two'])
  assert.deepEqual(g.seen.map(userTurns), [['one'], ['one', 'three'], ['one', 'three', 'two']])
})

test('user.regenerate: the last user turn is answered again without the old answer in ctx.history; busy under reject', async (t) => {
  const { g, c, w } = await setup(t)
  c.regenerate()
  assert.equal((await c.next('error.validation')).metadata.parlance_code, 'not_found', 'nothing to answer again yet')
  c.message('one')
  g.release()
  await c.next('agent.final_answer')
  assert.equal((await w.runEnd()).type, 'run.finished')
  c.regenerate()
  const mark = await c.next('agent.history_rewound')
  assert.equal(mark.metadata.reason, 'regenerate')
  await c.next('agent.final_answer')
  c.regenerate(undefined, { onBusy: 'reject' })
  assert.equal((await c.next('system.error')).metadata.error_code, 'ERR_BUSY_409')
  c.regenerate('msg_nope')
  assert.equal((await c.next('error.validation')).metadata.parlance_code, 'not_found')
  g.release()
  assert.deepEqual(answers(c.received), ['answer to one', 'answer to one'])
  assert.deepEqual(g.seen, [['u:one'], ['u:one']], 'the agent ran again on the last user turn, without its old answer')
  inOrder(c.received)
})

test('a message named by metadata.message_id can be withdrawn while queued (user.cancel message_id) and regenerated by that id', async (t) => {
  const { s, g, c, sessionId, w } = await setup(t, 'enqueue')
  c.message('one', sessionId, { message_id: 'mine-1' })
  await c.next('agent.final_answer')
  c.message('two', sessionId, { message_id: 'mine-2' })
  const q = await c.next('agent.message_queued')
  assert.equal(q.metadata.message_id, 'mine-2', 'the queued message carries the id the client gave')
  c.cancel('not now', 'mine-2')
  const log = () => s.log(sessionId)
  await waitFor(async () => (await log()).some((e) => e.type === 'message.withdrawn'), { what: 'the queued message to be withdrawn' })
  g.release()
  assert.equal((await w.runEnd()).type, 'run.finished', 'run one ends; nothing queued follows it')
  c.regenerate('mine-1')
  await g.started(2)
  assert.deepEqual(userTurns(g.seen[1]!), ['one'], 'mine-2 never ran; mine-1 answered again')
  g.release()
  c.message('x', sessionId, { message_id: 7 })
  const err = await c.next('error.validation')
  assert.match(JSON.stringify(err), /metadata.message_id/)
})
