// Conversation control (issue 19) over HUMA: no per-event field, so the agent's / server's onBusy policy decides
// what a triggering context-update does while a run is active.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HumaClient } from '../src/client/index.js'
import type { OnBusy } from '../src/index.js'
import { gatedAgent } from './conversation-support.js'
import { startServer } from './harness.js'
import { FAST, watch } from './huma-support.js'

async function setup(t: { after(fn: () => unknown): void }, onBusy?: OnBusy) {
  const g = gatedAgent()
  const s = await startServer({ agents: [g.agent], limits: FAST, ...(onBusy ? { onBusy } : {}) })
  t.after(() => s.close())
  const c = await HumaClient.connect({ url: s.url })
  t.after(() => c.close())
  return { s, g, c, w: await watch(s, c.sessionId) }
}

const sent = (c: HumaClient) => c.received.flatMap((e) => (e.type === 'messaging' && e.event === 'message_sent' ? [e.message] : []))

test('enqueue (server policy): two triggering context-updates in one tick during a run are answered in order, each in its own run', async (t) => {
  const { s, g, c, w } = await setup(t, 'enqueue')
  c.contextUpdate('one')
  await c.nextMessaging('message_sent')
  c.contextUpdate('two')
  c.contextUpdate('three')
  await w.next((e) => e.type === 'message.queued' && e.content === 'three')
  g.release()
  await c.nextMessaging('message_sent')
  g.release()
  await c.nextMessaging('message_sent')
  g.release()
  assert.deepEqual(sent(c), ['answer to one', 'answer to two', 'answer to three'])
  assert.equal(g.seen.length, 3)
  assert.deepEqual(g.inputs, ['one', 'two', 'three'])
  const runs = new Set(w.events.filter((e) => e.type === 'run.started').map((e) => e.runId))
  assert.equal(runs.size, 3)
  assert.equal(c.errors.length, 0)
  assert.deepEqual(
    g.seen[2]!.filter((x) => x.startsWith('a:')),
    ['a:answer to one', 'a:answer to two'],
    'each run sees the answers before it',
  )
  await s.flush()
})

test('reject (server policy): the second context-update gets error BUSY on the error channel; the first run goes on once; the socket stays up', async (t) => {
  const { g, c, w } = await setup(t, 'reject')
  c.contextUpdate('one')
  await c.nextMessaging('message_sent')
  c.contextUpdate('two')
  const busy = await c.nextError()
  assert.equal(busy.code, 'BUSY')
  g.release()
  assert.equal((await w.runEnd()).type, 'run.finished')
  assert.deepEqual(sent(c), ['answer to one'])
  assert.equal(c.received.filter((e) => e.type === 'messaging' && e.event === 'typing_end').length, 1)
  c.contextUpdate('three')
  g.release()
  await c.nextMessaging('message_sent')
  assert.deepEqual(sent(c), ['answer to one', 'answer to three'])
  assert.equal(c.errors.length, 1)
})

test('rollback (agent policy): the next run does not see the rolled-back turn', async (t) => {
  const g = gatedAgent('gated', 'rollback')
  const s = await startServer({ agents: [g.agent], limits: FAST })
  t.after(() => s.close())
  const c = await HumaClient.connect({ url: s.url })
  t.after(() => c.close())
  const w = await watch(s, c.sessionId)
  c.contextUpdate('one')
  g.release()
  await w.runEnd()
  c.contextUpdate('two')
  await c.nextMessaging('message_sent')
  c.contextUpdate('three')
  await w.next((e) => e.type === 'history.rewound' && e.reason === 'rollback')
  await c.next((e) => e.type === 'messaging' && e.event === 'message_sent' && e.message === 'answer to three')
  g.release()
  assert.deepEqual(sent(c), ['answer to one', 'answer to two', 'answer to three'])
  assert.ok(!g.seen[2]!.some((x) => x.includes('two')), `run three does not see turn two: ${JSON.stringify(g.seen[2])}`)
})

test('interrupt (the default): a new triggering context-update stops the run and starts the next', async (t) => {
  const { g, c, w } = await setup(t)
  c.contextUpdate('one')
  await c.nextMessaging('message_sent')
  c.contextUpdate('two')
  const end = await w.runEnd()
  assert.equal(end.type === 'run.error' && end.code, 'interrupted')
  await c.nextMessaging('message_sent')
  g.release()
  assert.deepEqual(sent(c), ['answer to one', 'answer to two'])
  assert.deepEqual(g.inputs, ['one', 'two'])
  assert.equal(c.errors.length, 0, 'an interrupt is no error on HUMA')
  assert.ok(!w.events.some((e) => e.type === 'message.queued' || e.type === 'history.rewound'))
})
