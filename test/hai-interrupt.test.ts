import assert from 'node:assert/strict'
import { test } from 'node:test'
import { textOf } from '../src/client/index.js'
import { startServer } from './harness.js'
import { verifyHaiStream } from './hai-lifecycle.js'

test('a new message interrupts a streaming run: its message is closed, error interrupted, then the new run', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('slow')
  const first = await c.next('assistant_message_chunk')
  c.say('hello')
  const msgs = [first, ...(await c.untilCompleted())]
  const interrupted = msgs.findIndex((m) => m.type === 'error' && m.error_code === 'interrupted')
  assert.ok(interrupted > 0, 'the slow run ends with error interrupted')
  const slowFinal = msgs.findIndex((m) => m.type === 'assistant_message_chunk' && m.message_id === first.message_id && m.is_final)
  assert.ok(slowFinal >= 0 && slowFinal < interrupted, 'the interrupted message gets its final chunk first')
  assert.equal(interrupted, msgs.length - 2, "the interrupted run's own completed follows its error")
  verifyHaiStream(msgs)
  const echo = await c.untilCompleted()
  verifyHaiStream(echo)
  assert.equal(textOf(echo), 'Echo: hello', 'the new run carries nothing of the slow one')
})

test('interrupting a run that waits for a client tool cancels the tool call', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('client')
  const start = await c.next('tool_call_start')
  c.say('never mind')
  const msgs = await c.untilCompleted()
  const cancel = msgs.find((m) => m.type === 'tool_call_error')
  assert.ok(cancel?.type === 'tool_call_error')
  assert.equal(cancel.tool_call_id, start.tool_call_id)
  assert.equal(cancel.metadata?.cancelled, true)
  assert.equal(textOf(await c.untilCompleted()), 'Echo: never mind')
  // a late result for the cancelled call is refused
  c.toolResult(start.tool_call_id, { result: 'late' })
  assert.equal((await c.next('error')).error_code, 'not_found')
  verifyHaiStream(c.received)
})

test('cancel stops a slow run; cancel with no run is not_found', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('slow')
  await c.next('assistant_message_chunk')
  c.cancel()
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs, { complete: false })
  assert.ok(msgs.some((m) => m.type === 'error' && m.error_code === 'cancelled'))
  c.cancel()
  assert.equal((await c.next('error')).error_code, 'not_found')
  verifyHaiStream(c.received)
})

test('cancel, tool_result or an approval naming an unknown session is not_found and creates no session', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.cancel()
  c.sendRaw({ type: 'tool_result', tool_call_id: 'call_nope', session_id: c.sessionId, result: 1 })
  c.sendRaw({ type: 'tool_approval_response', approval_id: 'appr_nope', approved: true, session_id: c.sessionId })
  for (let i = 0; i < 3; i++) assert.equal((await c.next('error')).error_code, 'not_found')
  await assert.rejects(s.server.sessions.open(c.sessionId, 'anonymous', { create: false }), /no session/)
  assert.deepEqual(await s.server.sessions.store.backend.listSessions(10), [])
  c.say('now it exists')
  assert.equal(textOf(await c.untilCompleted()), 'Echo: now it exists')
  verifyHaiStream(c.received)
})
