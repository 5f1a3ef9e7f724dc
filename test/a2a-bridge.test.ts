// The A2A bridge (src/agents/a2a, `--agent a2a:URL`): a Parlance serving the demo agent over A2A, a second one
// serving it through `a2aBridgeAgent`, and HAI (and AG-UI) clients driving the second, as the AG-UI bridge's
// tests do (a client tool travels as an input-required task answered by its next message).
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { AguiClient, textOf, type HaiServerMessage } from '../src/client/index.js'
import { a2aBridgeAgent } from '../src/agents/a2a/index.js'
import type { StoredEvent } from '../src/index.js'
import { verifyHaiStream } from './hai-lifecycle.js'
import { startServer, type TestServer } from './harness.js'
import { unreachable } from './agui-bridge-support.js'
import { watch } from './huma-support.js'
import { agentFor, last, run, text } from './agui-support.js'

let remote: TestServer
let bridge: TestServer
before(async () => {
  remote = await startServer()
  bridge = await startServer({ agents: [a2aBridgeAgent({ url: `${remote.url}/a2a/demo/.well-known/agent-card.json` })] })
})
after(async () => {
  await bridge.close()
  await remote.close()
})

const chunks = (msgs: HaiServerMessage[]) => msgs.filter((m): m is Extract<HaiServerMessage, { type: 'assistant_message_chunk' }> => m.type === 'assistant_message_chunk' && !m.is_final)
const of = <T extends HaiServerMessage['type']>(msgs: HaiServerMessage[], type: T) => msgs.filter((m): m is Extract<HaiServerMessage, { type: T }> => m.type === type)

test('echo: the remote text arrives streamed, chunk by chunk, with its status; a second turn continues the conversation', async () => {
  const c = await bridge.hai()
  c.say('hello bridge')
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  assert.equal(textOf(msgs), 'Echo: hello bridge')
  assert.ok(chunks(msgs).length >= 3, 'streamed in the remote chunks, not as one block')
  assert.deepEqual(of(msgs, 'status')[0], { ...of(msgs, 'status')[0], status: 'thinking', message: 'Assistant is thinking...' })
  c.say('and again')
  assert.equal(textOf(await c.untilCompleted()), 'Echo: and again')
})

test('weather: the remote server tool is relayed as a tool call with its arguments and result', async () => {
  const c = await bridge.hai()
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
  test(`delete: the remote input-required becomes a HAI approval request; ${approved ? 'approving runs the tool' : 'rejecting (with feedback) does not'}`, async () => {
    const c = await bridge.hai()
    c.say('delete my notes')
    const req = await c.next('tool_approval_request')
    assert.deepEqual(
      [req.tool_name, req.parameters, req.risk_level, req.reasoning, req.tool_description],
      ['delete_file', { path: 'notes/demo.txt' }, 'high', 'You asked me to delete the demo notes file.', 'Deletes a file permanently'],
    )
    c.approve(req.approval_id, approved, approved ? undefined : 'keep it')
    const msgs = await c.untilCompleted()
    verifyHaiStream(c.received)
    if (approved) assert.equal(textOf(msgs), 'Done: deleted notes/demo.txt.')
    else assert.equal(textOf(msgs), 'Not approved, so notes/demo.txt was not deleted. (keep it)')
    // The remote run got the answer itself (the task's next message), not a new turn.
    const log = await remoteLog((e) => e.type === 'approval.resolved' && e.approved === approved)
    const resolved = log.find((e) => e.type === 'approval.resolved')
    assert.deepEqual(resolved?.type === 'approval.resolved' ? [resolved.approved, resolved.by] : null, [approved, 'user'])
    assert.equal(log.filter((e) => e.type === 'run.started').length, 1, 'one remote run')
  })
}

test('state and failure: the remote state becomes the session state; a failed remote task fails the run', async () => {
  const c = await bridge.hai()
  c.say('state please')
  await c.untilCompleted()
  const s = await bridge.server.sessions.open(c.sessionId, 'anonymous')
  assert.deepEqual(s.model.state, { counter: 1 })
  c.say('fail now')
  const msgs = await c.untilCompleted()
  const err = of(msgs, 'error')[0]
  assert.equal(err?.error_code, 'execution_error')
  assert.match(err.message, /the remote A2A agent failed: .*flaky_tool/)
})

test('cancel: stops the bridge run and the remote task; AG-UI watches the same bridged session', async () => {
  const c = await bridge.hai()
  c.say('slow')
  const first = await c.next('assistant_message_chunk')
  assert.equal(first.content, '1 ')
  const watcher = (async () => {
    let seen = ''
    for await (const e of new AguiClient({ url: bridge.url }).resume(c.sessionId, 0)) if (e.event.type === 'TEXT_MESSAGE_CONTENT') seen += String(e.event.delta)
    return seen
  })()
  c.cancel()
  const msgs = await c.untilCompleted()
  assert.equal(of(msgs, 'error')[0]?.error_code, 'cancelled')
  assert.match(await watcher, /^1 /, 'the AG-UI client saw the bridged text')
  // The remote task was cancelled too: its run ended cancelled.
  const log = await remoteLog((e) => e.type === 'run.error' && e.code === 'cancelled')
  assert.ok(log.some((e) => e.type === 'message.user' && e.content === 'slow'))
  c.say('hello after cancel')
  assert.equal(textOf(await c.untilCompleted()), 'Echo: hello after cancel')
})

test('client: the remote client tool goes to the HAI client; its result goes back to the remote agent', async () => {
  const c = await bridge.hai()
  c.say('client info please')
  const call = await c.next('tool_call_start')
  assert.deepEqual([call.tool_name, call.parameters, call.metadata?.target], ['get_client_info', {}, 'client'])
  c.toolResult(call.tool_call_id, { result: { browser: 'hai-test', width: 1280 } })
  const msgs = await c.untilCompleted()
  verifyHaiStream(c.received)
  assert.equal(textOf(msgs), 'Client info: {"browser":"hai-test","width":1280}')
  const log = await remoteLog((e) => e.type === 'tool.result' && e.toolName === 'get_client_info')
  const result = log.find((e) => e.type === 'tool.result')
  assert.deepEqual(result?.type === 'tool.result' ? result.result : null, { browser: 'hai-test', width: 1280 })
})

test('client: a failing client tool is reported to the remote agent, whose run then fails', async () => {
  const c = await bridge.hai()
  c.say('client')
  const call = await c.next('tool_call_start')
  c.toolResult(call.tool_call_id, { error: 'no screen' })
  const msgs = await c.untilCompleted()
  const err = of(msgs, 'error')[0]
  assert.equal(err?.error_code, 'tool_error')
  assert.match(err.message, /the remote A2A agent failed: .*no screen/)
})

test('plan: plan, steps and progress are relayed', async () => {
  const c = await bridge.hai()
  const w = await watch(bridge, c.sessionId)
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
  assert.deepEqual(progress.map((p) => (p.type === 'progress' ? [p.planId, p.taskId] : null)), plan.tasks.map((t) => [plan.planId, t.id]))
})

test('interrupt: a new message while the remote streams stops it and answers the new one', async () => {
  const c = await bridge.hai()
  c.say('slow')
  await c.next('assistant_message_chunk')
  c.say('hello instead')
  const msgs = await c.untilCompleted()
  assert.equal(of(msgs, 'error')[0]?.error_code, 'interrupted')
  const next = await c.untilCompleted()
  verifyHaiStream(next)
  assert.equal(textOf(next), 'Echo: hello instead')
})

test('AG-UI: the official HttpAgent drives the bridge — weather with its tool call, then an approval across runs (interrupt and resume)', async () => {
  const agent = agentFor(bridge.url)
  const weather = await run(agent, 'weather in Paris')
  const call = weather.find((e) => e.type === 'TOOL_CALL_START')
  assert.equal(call?.toolCallName, 'get_weather')
  assert.ok(weather.some((e) => e.type === 'TOOL_CALL_RESULT' && String(e.content).includes('cloudy')))
  assert.equal(text(weather), 'The weather in Paris is cloudy at 18 °C.')
  const first = await run(agent, 'delete my notes')
  const outcome = last(first).outcome as { type: string; interrupts: Array<{ id: string }> }
  assert.equal(outcome.type, 'interrupt')
  const second = await run(agent, null, { resume: [{ interruptId: outcome.interrupts[0]!.id, status: 'resolved', payload: { approved: true } }] })
  assert.match(text(second), /Done: deleted notes\/demo\.txt/)
  assert.equal(last(second).type, 'RUN_FINISHED')
})

test('an unreachable remote agent: the run fails with unavailable, naming the URL', async (t) => {
  const dead = await unreachable()
  t.after(() => dead.close())
  const s = await startServer({ agents: [a2aBridgeAgent({ url: dead.url })] })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello')
  const msgs = await c.untilCompleted()
  const err = of(msgs, 'error')[0]
  assert.equal(err?.error_code, 'unavailable')
  assert.match(err.message, /cannot reach the A2A agent at http:\/\/127\.0\.0\.2/)
  assert.throws(() => a2aBridgeAgent({ url: 'not a url' }), /not a valid URL/)
  assert.throws(() => a2aBridgeAgent({ url: 'ftp://example.com/' }), /must be http: or https:/)
})

/** The log of the remote session (an A2A context of the bridge) in which an event matching `pred` appears (waits up to 3 s). */
async function remoteLog(pred: (e: StoredEvent) => boolean): Promise<StoredEvent[]> {
  const until = Date.now() + 3000
  for (;;) {
    for (const s of remote.server.sessions.loadedSessions()) {
      const log = await remote.server.sessions.store.read(s.id, 0, 10_000)
      if (log.some(pred)) return log
    }
    if (Date.now() > until) throw new Error('no remote session with such an event')
    await new Promise((r) => setTimeout(r, 50))
  }
}
