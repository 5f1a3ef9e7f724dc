// The AG-UI bridge (src/agents/agui) over HUMA (Socket.IO): the same pair as agui-bridge-hai.test.ts, driven
// by a HUMA client. What HUMA has no event for (server tools, state, plan) is checked in the bridge's log.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { EventOf } from '../src/core/index.js'
import { startBridgePair, type BridgePair } from './agui-bridge-support.js'
import { watch } from './huma-support.js'

let pair: BridgePair
before(async () => {
  pair = await startBridgePair()
})
after(() => pair.close())

async function said(c: Awaited<ReturnType<BridgePair['huma']>>): Promise<string> {
  return (await c.nextMessaging('message_sent')).message ?? ''
}

test('echo: the remote answer arrives as a confirmed message', async () => {
  const c = await pair.huma()
  const w = await watch(pair.bridge, c.sessionId)
  c.contextUpdate('hello from huma')
  assert.equal((await c.nextMessaging('typing_start')).event, 'typing_start')
  assert.equal(await said(c), 'Echo: hello from huma')
  await c.nextMessaging('typing_end')
  const end = await w.runEnd()
  assert.equal(end.type, 'run.finished')
  // A streamed message does not wait for HUMA's confirmation (other dialects' clients stream it); it is recorded when it comes.
  const delivery = (await w.next((e) => e.type === 'message.delivery')) as EventOf<'message.delivery'>
  assert.deepEqual([delivery.ok, delivery.by], [true, 'client'], 'the HUMA client confirmed it')
  assert.deepEqual(c.errors, [])
})

test('weather: the remote server tool is in the log (HUMA shows no server tools); the answer names the city', async () => {
  const c = await pair.huma()
  const w = await watch(pair.bridge, c.sessionId)
  c.contextUpdate('weather in Oslo')
  assert.equal(await said(c), 'The weather in Oslo is cloudy at 18 °C.')
  await w.runEnd()
  const call = w.events.find((e) => e.type === 'tool.call') as EventOf<'tool.call'>
  const result = w.events.find((e) => e.type === 'tool.result') as EventOf<'tool.result'>
  assert.deepEqual([call.toolName, call.args, call.target], ['get_weather', { city: 'Oslo' }, 'server'])
  assert.deepEqual([result.toolCallId, result.result], [call.toolCallId, { city: 'Oslo', temperature_c: 18, conditions: 'cloudy' }])
  assert.equal(c.received.filter((e) => e.type === 'tool-call').length, 0)
})

test('client: the remote frontend tool becomes a HUMA tool-call; the tool-result reaches the remote agent', async () => {
  const c = await pair.huma()
  c.contextUpdate('client details')
  const call = await c.next('tool-call')
  assert.deepEqual([call.toolName, call.arguments], ['get_client_info', {}])
  c.toolResult(call, { result: { platform: 'huma', version: '2' } })
  assert.equal(await said(c), 'Client info: {"platform":"huma","version":"2"}')
})

for (const approved of [true, false]) {
  test(`delete: the remote interrupt becomes a request_approval tool-call; ${approved ? 'approved' : 'rejected'}`, async () => {
    const c = await pair.huma()
    c.contextUpdate('delete the notes')
    const ask = await c.next('tool-call')
    assert.equal(ask.toolName, 'request_approval')
    assert.deepEqual(
      [ask.arguments.toolName, ask.arguments.args, ask.arguments.risk, ask.arguments.reasoning, ask.arguments.description],
      ['delete_file', { path: 'notes/demo.txt' }, 'high', 'You asked me to delete the demo notes file.', 'Deletes a file permanently'],
    )
    c.toolResult(ask, { result: approved ? { approved: true } : { approved: false, feedback: 'not today' } })
    assert.equal(await said(c), approved ? 'Done: deleted notes/demo.txt.' : 'Not approved, so notes/demo.txt was not deleted. (not today)')
  })
}

test('plan and state: relayed into the bridge session (plan, steps, progress, state)', async () => {
  const c = await pair.huma()
  const w = await watch(pair.bridge, c.sessionId)
  c.contextUpdate('plan')
  assert.equal(await said(c), 'The plan is complete: requirements gathered, answer drafted and reviewed.')
  await w.runEnd()
  assert.deepEqual(
    w.events.filter((e) => e.type === 'progress').map((e) => (e.type === 'progress' ? [e.percent, e.message] : null)),
    [
      [33, 'Gather requirements (1/3)'],
      [66, 'Draft the answer (2/3)'],
      [100, 'Review (3/3)'],
    ],
  )
  c.contextUpdate('state')
  assert.equal(await said(c), 'State updated: counter is 1.')
  await w.runEnd()
  assert.deepEqual(w.session.model.state, { counter: 1 })
})

test('burst: three messages, each confirmed by the HUMA client before the next', async () => {
  const c = await pair.huma()
  c.contextUpdate('burst')
  assert.deepEqual([await said(c), await said(c), await said(c)], ['Here is the first message.', 'And a second one.', 'That was the burst.'])
  assert.deepEqual(c.errors, [])
})

test('fail: the remote run error reaches HUMA as EXECUTION_ERROR', async () => {
  const c = await pair.huma()
  c.contextUpdate('fail please')
  const err = await c.nextError()
  assert.equal(err.code, 'EXECUTION_ERROR')
  assert.equal(err.message, 'the remote AG-UI agent failed: the run failed: tool flaky_tool failed: flaky_tool is out of order')
})

test('interrupt: a new context-update while the remote streams cancels the burst and the remote run, then answers', async () => {
  const c = await pair.huma()
  const remote = await watch(pair.remote, pair.remoteSession(c.sessionId))
  c.contextUpdate('slow')
  await c.nextMessaging('typing_start')
  // Wait until the remote is streaming, so there is a remote run to stop.
  await remote.next((e) => e.type === 'text.delta')
  c.contextUpdate('stop, hello')
  assert.equal((await c.nextMessaging('typing_end')).reason, 'canceled')
  assert.equal(await said(c), 'Echo: stop, hello')
  const ends = remote.events
    .filter((e) => e.type === 'run.error' || e.type === 'run.finished')
    .map((e) => (e.type === 'run.error' ? e.code : 'finished'))
  assert.equal(ends[0] === 'cancelled' || ends[0] === 'interrupted', true, `the slow remote run stopped (${ends.join(', ')})`)
  assert.equal(c.received.filter((e) => e.type === 'messaging' && e.event === 'message_sent').length, 1, 'nothing of the slow answer was sent')
  assert.deepEqual(c.errors, [], 'an interrupt is not an error')
})
