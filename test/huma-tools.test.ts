import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventOf } from '../src/core/index.js'
import { humaServer, watch } from './huma-support.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

test('client tool success: tool-call with a UUID; the tool-result resumes the agent', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma()
  c.contextUpdate('client info please')
  const call = await c.next('tool-call')
  assert.match(call.toolCallId, UUID)
  assert.deepEqual([call.toolName, call.arguments], ['get_client_info', {}])
  c.toolResult(call, { result: { platform: 'web', version: '1.2' } })
  assert.equal((await c.nextMessaging('message_sent')).message, 'Client info: {"platform":"web","version":"1.2"}')
})

test('client tool failure and unknown tool: the agent learns the error (TOOL_ERROR)', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma()
  const w = await watch(s, c.sessionId)
  c.contextUpdate('client info please')
  let call = await c.next('tool-call')
  c.toolResult(call, { error: 'permission denied' })
  let err = await c.nextError()
  assert.equal(err.code, 'TOOL_ERROR')
  assert.match(err.message, /permission denied/)
  await w.runEnd()
  c.contextUpdate('client info again')
  call = await c.next('tool-call')
  c.toolResult(call, { error: `Unknown tool: ${call.toolName}` })
  err = await c.nextError()
  assert.match(err.message, /Unknown tool: get_client_info/)
  const e = (await w.next((x) => x.type === 'tool.error')) as EventOf<'tool.error'>
  assert.equal(e.error, 'Unknown tool: get_client_info')
})

test('tool-result for a call nobody waits for: triggering:true is NOT_FOUND, triggering:false is only recorded', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma()
  const w = await watch(s, c.sessionId)
  const call = { toolCallId: '660e8400-e29b-41d4-a716-446655440001', toolName: 'update_preferences' }
  const before = (await s.log(c.sessionId)).length
  c.toolResult(call, { result: 'x' }, true)
  const err = await c.nextError()
  assert.equal(err.code, 'NOT_FOUND')
  assert.equal((await s.log(c.sessionId)).length, before, 'no state change')
  c.toolResult(call, { result: 'Preferences updated for Alice' }, false)
  const rec = (await w.next((e) => e.type === 'custom')) as EventOf<'custom'>
  assert.deepEqual(rec.value, {
    toolCallId: call.toolCallId,
    outcome: 'success',
    toolName: 'update_preferences',
    result: 'Preferences updated for Alice',
  })
  assert.equal(c.errors.length, 1)
})

test('interrupt: a new triggering event cancels the pending client tool (cancel-tool-call) and starts a new run', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma()
  const w = await watch(s, c.sessionId)
  c.contextUpdate('client info please')
  const call = await c.next('tool-call')
  c.contextUpdate('never mind, hello')
  const cancel = await c.next('cancel-tool-call')
  assert.deepEqual([cancel.toolCallId, cancel.toolName, cancel.reason], [call.toolCallId, 'get_client_info', 'interrupted by new input'])
  assert.equal((await c.nextMessaging('message_sent')).message, 'Echo: never mind, hello')
  // The seed's client answers a cancel with a non-triggering canceled result: accepted quietly.
  c.toolResult(call, 'canceled')
  await w.next((e) => e.type === 'custom' && e.name === 'tool.result.unsolicited')
  assert.deepEqual(c.errors, [])
  const ends = w.events.filter((e) => e.type === 'run.error' || e.type === 'run.finished').map((e) => (e.type === 'run.error' ? e.code : 'finished'))
  assert.deepEqual(ends, ['interrupted', 'finished'])
})

test('interrupt mid-burst: typing_end with reason "canceled", then the new run answers', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma()
  c.contextUpdate('go slow')
  const start = await c.nextMessaging('typing_start')
  c.contextUpdate('stop, hello')
  const end = await c.nextMessaging('typing_end')
  assert.deepEqual([end.toolCallId, end.reason], [start.toolCallId, 'canceled'])
  assert.equal((await c.nextMessaging('message_sent')).message, 'Echo: stop, hello')
  assert.equal(c.received.filter((e) => e.type === 'messaging' && e.event === 'message_sent').length, 1, 'the slow message was never sent')
  assert.deepEqual(c.errors, [], 'an interrupt is not an error')
})

test('interrupt while waiting for a confirmation: typing_end canceled; the late confirmation is ignored', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma({ confirm: () => null })
  c.contextUpdate('send a burst')
  const sent = await c.nextMessaging('message_sent')
  c.contextUpdate('actually, hello', { triggering: true })
  assert.equal((await c.nextMessaging('typing_end')).reason, 'canceled')
  c.addonEvent(sent.toolCallId!, { messageIndex: 0, success: true })
  assert.equal((await c.nextMessaging('message_sent')).message, 'Echo: actually, hello')
  assert.deepEqual(c.errors, [])
})

test('approvals (extension): delete asks through a request_approval tool-call; approve and reject', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma()
  const w = await watch(s, c.sessionId)
  c.contextUpdate('please delete the file')
  let ask = await c.next('tool-call')
  assert.equal(ask.toolName, 'request_approval')
  assert.deepEqual([ask.arguments.toolName, ask.arguments.risk, ask.arguments.args], ['delete_file', 'high', { path: 'notes/demo.txt' }])
  c.toolResult(ask, { result: { approved: true } })
  assert.equal((await c.nextMessaging('message_sent')).message, 'Done: deleted notes/demo.txt.')
  await w.runEnd()
  c.contextUpdate('delete it again')
  ask = await c.next('tool-call')
  c.toolResult(ask, { result: { approved: false, feedback: 'keep it' } })
  assert.match((await c.nextMessaging('message_sent')).message!, /Not approved.*keep it/)
})

test('an unanswered approval times out: cancel-tool-call for request_approval', async (t) => {
  const s = await humaServer({ approvalTimeoutMs: 100 })
  t.after(() => s.close())
  const c = await s.huma()
  c.contextUpdate('delete something')
  const ask = await c.next('tool-call')
  const cancel = await c.next('cancel-tool-call')
  assert.deepEqual([cancel.toolCallId, cancel.toolName, cancel.reason], [ask.toolCallId, 'request_approval', 'the approval timed out'])
  assert.match((await c.nextMessaging('message_sent')).message!, /timed out/)
})
