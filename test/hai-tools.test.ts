import assert from 'node:assert/strict'
import { test } from 'node:test'
import { textOf } from '../src/client/index.js'
import { startServer } from './harness.js'
import { verifyHaiStream } from './hai-lifecycle.js'

test('weather: routing, executing_tools, get_weather start/end, answer names the city', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('What is the weather in Paris?')
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  const statuses = msgs.flatMap((m) => (m.type === 'status' ? [m.status] : []))
  assert.deepEqual(statuses, ['routing', 'executing_tools', 'completed'])
  const start = msgs.find((m) => m.type === 'tool_call_start')
  assert.ok(start?.type === 'tool_call_start')
  assert.equal(start.tool_name, 'get_weather')
  assert.deepEqual(start.parameters, { city: 'Paris' })
  const end = msgs.find((m) => m.type === 'tool_call_end')
  assert.ok(end?.type === 'tool_call_end')
  assert.equal(end.tool_call_id, start.tool_call_id)
  assert.deepEqual(JSON.parse(end.result), { city: 'Paris', temperature_c: 18, conditions: 'cloudy' })
  assert.match(textOf(msgs), /Paris/)

  c.say('weather please')
  const again = await c.untilCompleted()
  assert.match(textOf(again), /Amsterdam/)
  const defaultStart = again.find((m) => m.type === 'tool_call_start')
  assert.ok(defaultStart?.type === 'tool_call_start')
  assert.deepEqual(defaultStart.parameters, { city: 'Amsterdam' })
  verifyHaiStream(c.received)
})

test('fail: flaky_tool errors, then the run ends with execution_error', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('make it fail')
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  const types = msgs.map((m) => m.type)
  assert.deepEqual(types, ['status', 'tool_call_start', 'tool_call_error', 'error', 'status'])
  const err = msgs[3]
  assert.ok(err?.type === 'error')
  assert.equal(err.error_code, 'execution_error')
  assert.match(err.message, /flaky_tool is out of order/)
})

test('plan: progress arrives as status messages, then the answer', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('make a plan')
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  const progress = msgs.flatMap((m) => (m.type === 'status' && 'progress' in m ? [(m as { progress: number }).progress] : []))
  assert.deepEqual(progress, [33, 66, 100])
  assert.match(textOf(msgs), /plan is complete/)
})

test('state: the session state becomes {counter: 1}', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('show state')
  const msgs = await c.untilCompleted()
  assert.match(textOf(msgs), /counter is 1/)
  verifyHaiStream(msgs)
  assert.deepEqual((await s.stored(c.sessionId))?.state, { counter: 1 })
})

test('client tool: tool_call_start targets the client; its result comes back in the answer', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('client info please')
  const start = await c.next('tool_call_start')
  assert.equal(start.tool_name, 'get_client_info')
  assert.equal(start.metadata?.target, 'client')
  c.toolResult(start.tool_call_id, { result: { browser: 'test', width: 800 } })
  const msgs = await c.untilCompleted()
  verifyHaiStream([start, ...msgs])
  assert.equal(textOf(msgs), 'Client info: {"browser":"test","width":800}')
})

test('client tool: an error result fails the run; no result times out', async (t) => {
  // The error result on a server with the default timeout: with 150 ms, a loaded machine's round trip lost the race.
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('client')
  const start = await c.next('tool_call_start')
  c.toolResult(start.tool_call_id, { error: 'nope' })
  const failed = await c.untilCompleted()
  assert.ok(failed.some((m) => m.type === 'tool_call_error' && m.error === 'nope'))
  assert.ok(failed.some((m) => m.type === 'error' && m.error_code === 'tool_error'))
  verifyHaiStream(c.received)

  const quick = await startServer({ limits: { clientToolTimeoutMs: 150 } })
  t.after(() => quick.close())
  const q = await quick.hai()
  q.say('client again')
  await q.next('tool_call_start')
  const timedOut = await q.untilCompleted()
  assert.ok(timedOut.some((m) => m.type === 'tool_call_error' && /within 150 ms/.test(m.error)))
  assert.ok(timedOut.some((m) => m.type === 'error' && m.error_code === 'timeout'))
  verifyHaiStream(q.received)
})
