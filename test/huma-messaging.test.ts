import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventOf } from '../src/core/index.js'
import { humaServer, watch } from './huma-support.js'

test('echo: a triggering context-update runs the agent; ctx.say arrives as typing_start → message_sent → typing_end', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma()
  const w = await watch(s, c.sessionId)
  c.contextUpdate('Alice sent a message: "hello"', { context: { group: { id: 'g1' } } })
  const start = await c.nextMessaging('typing_start')
  const sent = await c.nextMessaging('message_sent')
  const end = await c.nextMessaging('typing_end')
  assert.match(start.toolCallId!, /^msg_/, 'a streamed message: the burst is named by its message id')
  assert.deepEqual(
    [sent.toolCallId, sent.message, sent.messageIndex, sent.messageCount],
    [start.toolCallId, 'Echo: Alice sent a message: "hello"', 0, 1],
  )
  assert.equal(end.toolCallId, start.toolCallId)
  assert.equal(end.reason, undefined)
  assert.equal((await w.runEnd()).type, 'run.finished')
  const input = w.events.find((e) => e.type === 'context.update') as EventOf<'context.update'>
  assert.deepEqual([input.name, input.triggering, input.context], ['new-message', true, { group: { id: 'g1' } }])
  assert.deepEqual(
    (await s.stored(c.sessionId))!.messages.map((m) => [m.role, m.content]),
    [['assistant', 'Echo: Alice sent a message: "hello"']],
    'the delivered message is in the history',
  )
})

test('triggering:false only records the context: no run', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma()
  const w = await watch(s, c.sessionId)
  c.contextUpdate('You joined the group', { triggering: false, context: { conversationHistory: '[14:30] Alice: hi' } })
  const e = (await w.next((x) => x.type === 'context.update')) as EventOf<'context.update'>
  assert.deepEqual([e.triggering, e.description, e.runId], [false, 'You joined the group', ''])
  c.contextUpdate('now say something')
  await c.nextMessaging('message_sent')
  assert.equal(w.events.filter((x) => x.type === 'run.started').length, 1, 'only the triggering update started a run')
})

test('burst: each message waits for its confirmation; data.context updates the session context', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma({
    confirm: (e) => ({ messageIndex: e.messageIndex, success: true, context: { conversationHistory: `delivered ${e.messageIndex}` } }),
  })
  const w = await watch(s, c.sessionId)
  c.contextUpdate('send a burst')
  const sent = [await c.nextMessaging('message_sent'), await c.nextMessaging('message_sent'), await c.nextMessaging('message_sent')]
  assert.deepEqual(
    sent.map((m) => [m.messageIndex, m.messageCount]),
    [
      [0, 3],
      [1, 3],
      [2, 3],
    ],
  )
  assert.equal(new Set(sent.map((m) => m.toolCallId)).size, 1, 'one toolCallId for the burst')
  assert.equal((await c.nextMessaging('typing_end')).reason, undefined)
  assert.equal((await w.runEnd()).type, 'run.finished')
  // In the log: message i+1 is sent only after message i's delivery was confirmed.
  const order = w.events
    .filter((e) => e.type === 'message.sent' || e.type === 'message.delivery')
    .map((e) => `${e.type === 'message.sent' ? 'sent' : 'ok'}${(e as { index: number }).index}`)
  assert.deepEqual(order, ['sent0', 'ok0', 'sent1', 'ok1', 'sent2', 'ok2'])
  const contexts = w.events.filter((e): e is EventOf<'context.update'> => e.type === 'context.update' && !e.triggering)
  assert.deepEqual(
    contexts.map((e) => e.context),
    [0, 1, 2].map((i) => ({ conversationHistory: `delivered ${i}` })),
  )
  assert.deepEqual(
    (await s.stored(c.sessionId))!.messages.map((m) => m.content),
    ['Here is the first message.', 'And a second one.', 'That was the burst.'],
  )
})

test('a failed delivery: the agent learns it; typing_end "failed"; the undelivered message stays out of the history', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma({ confirm: (e) => ({ messageIndex: e.messageIndex, success: e.messageIndex === 0, error: 'Failed to send: rate limited' }) })
  const w = await watch(s, c.sessionId)
  c.contextUpdate('send a burst')
  assert.equal((await c.nextMessaging('typing_end')).reason, 'failed')
  const err = await c.nextError()
  assert.equal(err.code, 'EXECUTION_ERROR')
  assert.match(err.message, /delivered 1 of 3 messages: Failed to send: rate limited/)
  assert.equal((await w.runEnd()).type, 'run.error')
  assert.deepEqual(
    (await s.stored(c.sessionId))!.messages.map((m) => m.content),
    ['Here is the first message.'],
  )
})

test('a missing confirmation times out (configured 150 ms) and the agent learns the delivery failed', async (t) => {
  const s = await humaServer({ messageConfirmTimeoutMs: 150 })
  t.after(() => s.close())
  const c = await s.huma({ confirm: () => null })
  const w = await watch(s, c.sessionId)
  c.contextUpdate('send a burst')
  await c.nextMessaging('message_sent')
  assert.equal((await c.nextMessaging('typing_end')).reason, 'failed')
  assert.match((await c.nextError()).message, /delivered 0 of 3 messages: no delivery confirmation within 150 ms/)
  const d = (await w.next((e) => e.type === 'message.delivery')) as EventOf<'message.delivery'>
  assert.deepEqual([d.ok, d.by], [false, 'timeout'])
  assert.equal(c.received.filter((e) => e.type === 'messaging' && e.event === 'message_sent').length, 1, 'no next message after a failure')
  // A late confirmation is accepted quietly.
  c.addonEvent(d.toolCallId, { messageIndex: 0, success: true })
  c.contextUpdate('still here')
  assert.equal((await c.nextMessaging('message_sent')).message, 'Echo: still here')
  assert.equal(c.errors.length, 1)
})

test('typing delay is proportional to message length (typingMsPerChar)', async (t) => {
  const s = await humaServer({ typingMsPerChar: 4 })
  t.after(() => s.close())
  const c = await s.huma()
  const w = await watch(s, c.sessionId)
  c.contextUpdate('send a burst')
  await w.runEnd()
  const typing = w.events.find((e) => e.type === 'typing')!
  const sent = w.events.filter((e): e is EventOf<'message.sent'> => e.type === 'message.sent')
  // 'Here is the first message.' is 26 characters: at least ~104 ms of typing before it is sent.
  assert.ok(sent[0]!.ts - typing.ts >= 26 * 4 - 5, `typed for ${sent[0]!.ts - typing.ts} ms`)
})

test('the demo behaviours over HUMA: weather, plan, state, count, fail', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma()
  const w = await watch(s, c.sessionId)
  const answer = async (description: string) => {
    c.contextUpdate(description)
    const m = await c.nextMessaging('message_sent')
    await w.runEnd()
    return m.message!
  }
  assert.match(await answer('What is the weather in Paris?'), /weather in Paris is cloudy at 18 °C/)
  assert.deepEqual(
    c.received.filter((e) => e.type === 'tool-call'),
    [],
    'server tools are not sent to the client',
  )
  assert.match(await answer('make a plan'), /plan is complete/)
  assert.match(await answer('show state'), /counter is 1/)
  assert.deepEqual((await s.stored(c.sessionId))?.state, { counter: 1 })
  assert.equal(await answer('count 5'), '1 2 3 4 5 ')
  c.contextUpdate('make it fail')
  const err = await c.nextError()
  assert.deepEqual([err.type, err.code], ['error', 'EXECUTION_ERROR'])
  assert.match(err.message, /flaky_tool is out of order/)
})
