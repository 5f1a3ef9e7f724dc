// The AG-UI bridge (src/agents/agui) over HAI: a Parlance serving the demo agent over AG-UI, a second one
// serving it through `aguiBridgeAgent`, and a HAI client driving the second through every demo trigger.
import assert from 'node:assert/strict'
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net'
import { after, before, test } from 'node:test'
import { textOf, type HaiServerMessage } from '../src/client/index.js'
import { startBridgePair, unreachable, type BridgePair } from './agui-bridge-support.js'
import { verifyHaiStream } from './hai-lifecycle.js'
import { startServer } from './harness.js'
import { watch } from './huma-support.js'
import { aguiBridgeAgent } from '../src/agents/agui/index.js'

let pair: BridgePair
before(async () => {
  pair = await startBridgePair()
})
after(() => pair.close())

const chunks = (msgs: HaiServerMessage[]) => msgs.filter((m): m is Extract<HaiServerMessage, { type: 'assistant_message_chunk' }> => m.type === 'assistant_message_chunk' && !m.is_final)
const of = <T extends HaiServerMessage['type']>(msgs: HaiServerMessage[], type: T) => msgs.filter((m): m is Extract<HaiServerMessage, { type: T }> => m.type === type)

test('echo: the remote text arrives streamed, chunk by chunk, with its status', async () => {
  const c = await pair.bridge.hai()
  c.say('hello bridge')
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  assert.equal(textOf(msgs), 'Echo: hello bridge')
  assert.ok(chunks(msgs).length >= 3, 'streamed in the remote chunks, not as one block')
  assert.deepEqual(of(msgs, 'status')[0], { ...of(msgs, 'status')[0], status: 'thinking', message: 'Assistant is thinking...' })
  assert.equal(of(msgs, 'error').length, 0)
  // A second turn in the same conversation.
  c.say('and again')
  assert.equal(textOf(await c.untilCompleted()), 'Echo: and again')
})

test('weather: the remote server tool is relayed as a tool call with its arguments and result', async () => {
  const c = await pair.bridge.hai()
  c.say('weather in Paris')
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  const [start] = of(msgs, 'tool_call_start')
  assert.deepEqual([start?.tool_name, start?.parameters, start?.metadata?.target], ['get_weather', { city: 'Paris' }, 'server'])
  const [end] = of(msgs, 'tool_call_end')
  assert.equal(end?.tool_call_id, start?.tool_call_id)
  assert.deepEqual(JSON.parse(end!.result), { city: 'Paris', temperature_c: 18, conditions: 'cloudy' })
  assert.deepEqual(
    of(msgs, 'status').map((m) => [m.status, m.message]),
    [
      ['routing', 'Routing to the weather tool'],
      ['executing_tools', 'Looking up the weather in Paris'],
      ['completed', undefined],
    ],
  )
  assert.equal(textOf(msgs), 'The weather in Paris is cloudy at 18 °C.')
})

for (const approved of [true, false]) {
  test(`delete: the remote interrupt becomes a HAI approval request; ${approved ? 'approving runs the tool' : 'rejecting (with feedback) does not'}`, async () => {
    const c = await pair.bridge.hai()
    c.say('delete my notes')
    const req = await c.next('tool_approval_request')
    assert.deepEqual(
      [req.tool_name, req.parameters, req.risk_level, req.reasoning, req.tool_description],
      ['delete_file', { path: 'notes/demo.txt' }, 'high', 'You asked me to delete the demo notes file.', 'Deletes a file permanently'],
    )
    c.approve(req.approval_id, approved, approved ? undefined : 'keep it')
    const msgs = await c.untilCompleted()
    verifyHaiStream(c.received)
    if (approved) {
      assert.deepEqual(of(msgs, 'tool_call_start').map((m) => [m.tool_name, m.parameters]), [['delete_file', { path: 'notes/demo.txt' }]])
      assert.equal(of(msgs, 'tool_call_end')[0]?.result, 'deleted notes/demo.txt')
      assert.equal(textOf(msgs), 'Done: deleted notes/demo.txt.')
    } else {
      assert.equal(of(msgs, 'tool_call_start').length, 0)
      assert.equal(textOf(msgs), 'Not approved, so notes/demo.txt was not deleted. (keep it)')
    }
    // The remote agent got the answer itself (resume), not a new message.
    const remoteLog = await pair.remote.server.sessions.store.read(pair.remoteSession(c.sessionId), 0, 1000)
    const resolved = remoteLog.find((e) => e.type === 'approval.resolved')
    assert.deepEqual(resolved?.type === 'approval.resolved' ? [resolved.approved, resolved.by] : null, [approved, 'user'])
  })
}

test('client: the remote frontend tool goes to the HAI client; its result goes back to the remote agent', async () => {
  const c = await pair.bridge.hai()
  c.say('client info please')
  const call = await c.next('tool_call_start')
  assert.deepEqual([call.tool_name, call.parameters, call.metadata?.target], ['get_client_info', {}, 'client'])
  c.toolResult(call.tool_call_id, { result: { browser: 'hai-test', width: 1280 } })
  const msgs = await c.untilCompleted()
  verifyHaiStream(c.received)
  assert.equal(textOf(msgs), 'Client info: {"browser":"hai-test","width":1280}')
  const remoteLog = await pair.remote.server.sessions.store.read(pair.remoteSession(c.sessionId), 0, 1000)
  const result = remoteLog.find((e) => e.type === 'tool.result')
  assert.deepEqual(result?.type === 'tool.result' ? [result.toolName, result.result] : null, ['get_client_info', { browser: 'hai-test', width: 1280 }])
})

test('client: a failing client tool is reported to the remote agent, whose run then fails', async () => {
  const c = await pair.bridge.hai()
  c.say('client')
  const call = await c.next('tool_call_start')
  c.toolResult(call.tool_call_id, { error: 'no screen' })
  const msgs = await c.untilCompleted()
  const err = of(msgs, 'error')[0]
  assert.equal(err?.error_code, 'tool_error')
  assert.match(err.message, /the remote AG-UI agent failed: .*no screen/)
})

test('plan: plan, steps and progress are relayed', async () => {
  const c = await pair.bridge.hai()
  const w = await watch(pair.bridge, c.sessionId)
  c.say('make a plan')
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  assert.deepEqual(
    of(msgs, 'status').map((m) => [m.status, m.message, (m as { progress?: number }).progress]),
    [
      ['thinking', 'Plan: Gather requirements → Draft the answer → Review', undefined],
      ['executing_tools', 'Gather requirements (1/3)', 33],
      ['executing_tools', 'Draft the answer (2/3)', 66],
      ['executing_tools', 'Review (3/3)', 100],
      ['completed', undefined, undefined],
    ],
  )
  assert.equal(textOf(msgs), 'The plan is complete: requirements gathered, answer drafted and reviewed.')
  await w.runEnd()
  const steps = w.events.filter((e) => e.type === 'step.started' || e.type === 'step.finished').map((e) => `${e.type}:${'name' in e ? e.name : ''}`)
  assert.deepEqual(steps, ['Gather requirements', 'Draft the answer', 'Review'].flatMap((n) => [`step.started:${n}`, `step.finished:${n}`]))
  const plan = w.events.find((e) => e.type === 'plan')
  const progress = w.events.filter((e) => e.type === 'progress')
  assert.ok(plan?.type === 'plan')
  assert.deepEqual(plan.tasks.map((t) => t.id), ['task_1', 'task_2', 'task_3'])
  assert.deepEqual(progress.map((p) => (p.type === 'progress' ? [p.planId, p.taskId] : null)), plan.tasks.map((t) => [plan.planId, t.id]))
})

test('state: the remote snapshot and delta become the session state', async () => {
  const c = await pair.bridge.hai()
  const w = await watch(pair.bridge, c.sessionId)
  c.say('state')
  const msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'State updated: counter is 1.')
  await w.runEnd()
  const changes = w.events.filter((e) => e.type === 'state.snapshot' || e.type === 'state.delta').map((e) => (e.type === 'state.snapshot' ? e.snapshot : e.type === 'state.delta' ? e.patch : null))
  assert.deepEqual(changes, [{ counter: 0 }, [{ op: 'replace', path: '/counter', value: 1 }]])
  assert.deepEqual(w.session.model.state, { counter: 1 })
})

test('fail: the remote tool error and run error arrive as tool_call_error and an execution_error', async () => {
  const c = await pair.bridge.hai()
  c.say('fail')
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  const [start] = of(msgs, 'tool_call_start')
  assert.equal(start?.tool_name, 'flaky_tool')
  assert.deepEqual(of(msgs, 'tool_call_error').map((m) => [m.tool_call_id, m.error]), [[start.tool_call_id, 'flaky_tool is out of order']])
  const [err] = of(msgs, 'error')
  assert.equal(err?.error_code, 'execution_error')
  assert.equal(err?.message, 'the remote AG-UI agent failed: the run failed: tool flaky_tool failed: flaky_tool is out of order')
})

test('count N: exactly N chunks, in order', async () => {
  const c = await pair.bridge.hai()
  c.say('count 25')
  const msgs = await c.untilCompleted()
  assert.deepEqual(
    chunks(msgs).map((m) => m.content),
    Array.from({ length: 25 }, (_, i) => `${i + 1} `),
  )
})

test('burst: the three whole messages arrive as three messages', async () => {
  const c = await pair.bridge.hai()
  c.say('burst')
  const msgs = await c.untilCompleted()
  const ids = [...new Set(chunks(msgs).map((m) => m.message_id))]
  assert.deepEqual(
    ids.map((id) => textOf(msgs, id)),
    ['Here is the first message.', 'And a second one.', 'That was the burst.'],
  )
})

test('cancel: stops the bridge run and the remote run', async () => {
  const c = await pair.bridge.hai()
  const remote = await watch(pair.remote, pair.remoteSession(c.sessionId))
  c.say('slow')
  const first = await c.next('assistant_message_chunk')
  assert.equal(first.content, '1 ')
  c.cancel()
  const msgs = await c.untilCompleted()
  assert.equal(of(msgs, 'error')[0]?.error_code, 'cancelled')
  const end = await remote.runEnd()
  assert.deepEqual(end.type === 'run.error' ? end.code : end.type, 'cancelled', 'the remote run was cancelled too')
  // The conversation goes on.
  c.say('hello after cancel')
  assert.equal(textOf(await c.untilCompleted()), 'Echo: hello after cancel')
})

test('interrupt: a new message while the remote streams stops it and answers the new one', async () => {
  const c = await pair.bridge.hai()
  c.say('slow')
  await c.next('assistant_message_chunk')
  c.say('hello instead')
  const msgs = await c.untilCompleted()
  assert.equal(of(msgs, 'error')[0]?.error_code, 'interrupted')
  const next = await c.untilCompleted()
  verifyHaiStream(next)
  assert.equal(textOf(next), 'Echo: hello instead')
})

test('an unreachable remote agent: the run fails with unavailable, naming the URL', async (t) => {
  const dead = await unreachable()
  t.after(() => dead.close())
  const url = dead.url
  const s = await startServer({ agents: [aguiBridgeAgent({ url })] })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello?')
  const msgs = await c.untilCompleted()
  const [err] = of(msgs, 'error')
  assert.equal(err?.error_code, 'unavailable')
  assert.equal(err.message, `the remote AG-UI agent at ${url} could not be reached (ECONNREFUSED)`)
})

test('a remote that accepts connections and never answers: the run fails after responseTimeoutMs', async (t) => {
  const sockets = new Set<Socket>()
  const silent = createNetServer((socket) => void sockets.add(socket))
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.after(() => {
    for (const socket of sockets) socket.destroy()
    silent.close()
  })
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/agui`
  const s = await startServer({ agents: [aguiBridgeAgent({ url, responseTimeoutMs: 200 })] })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello?')
  const [err] = of(await c.untilCompleted(), 'error')
  assert.equal(err?.error_code, 'unavailable')
  assert.equal(err?.message, `the remote AG-UI agent at ${url} could not be reached (no response within 200 ms)`)
})

test('a remote that answers an HTTP error: the run fails with its status and message', async (t) => {
  const s = await startServer({ agents: [aguiBridgeAgent({ url: `${pair.remote.url}/agui/nobody` })] })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello?')
  const [err] = of(await c.untilCompleted(), 'error')
  assert.equal(err?.error_code, 'execution_error')
  assert.match(err.message, /answered HTTP 404: no agent named "nobody"/)
})

test('an invalid URL is refused when the agent is made', () => {
  assert.throws(() => aguiBridgeAgent({ url: 'not a url' }), /not a valid URL/)
  assert.throws(() => aguiBridgeAgent({ url: 'ftp://example.com/agui' }), /must be http: or https:/)
})
