import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startServer } from './harness.js'
import { agentFor, custom, last, run, text, types } from './agui-support.js'
import { within } from './support/wait.js'

test('echo through the official HttpAgent: RUN_STARTED … RUN_FINISHED, text streamed, messages and thread kept', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const agent = agentFor(s.url)
  const events = await run(agent, 'hello agui')
  assert.equal(types(events)[0], 'RUN_STARTED')
  assert.equal(last(events).type, 'RUN_FINISHED')
  assert.equal(text(events), 'Echo: hello agui')
  assert.ok(types(events).filter((x) => x === 'TEXT_MESSAGE_CONTENT').length >= 3)
  assert.deepEqual(custom(events, 'parlance.status')[0], { status: 'thinking', message: 'Assistant is thinking...' })
  assert.deepEqual(
    agent.messages.map((m) => [m.role, m.content]),
    [
      ['user', 'hello agui'],
      ['assistant', 'Echo: hello agui'],
    ],
  )
  // A second turn on the same thread: the server reconciles, and nothing is duplicated.
  const second = await run(agent, 'again')
  assert.equal(text(second), 'Echo: again')
  assert.deepEqual(
    (await s.stored(agent.threadId))?.messages.map((m) => m.content),
    ['hello agui', 'Echo: hello agui', 'again', 'Echo: again'],
  )
})

test('weather: server tool call START/ARGS/END and TOOL_CALL_RESULT, then the answer', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const agent = agentFor(s.url)
  const events = await run(agent, 'weather in Paris')
  const start = events.find((e) => e.type === 'TOOL_CALL_START')!
  assert.equal(start.toolCallName, 'get_weather')
  const args = events
    .filter((e) => e.type === 'TOOL_CALL_ARGS' && e.toolCallId === start.toolCallId)
    .map((e) => e.delta)
    .join('')
  assert.deepEqual(JSON.parse(args), { city: 'Paris' })
  const result = events.find((e) => e.type === 'TOOL_CALL_RESULT')!
  assert.deepEqual(JSON.parse(String(result.content)), { city: 'Paris', temperature_c: 18, conditions: 'cloudy' })
  assert.match(text(events), /Paris is cloudy at 18/)
  assert.ok(agent.messages.some((m) => m.role === 'tool'))
})

test('state: STATE_SNAPSHOT then STATE_DELTA; the client state follows and is sent back unchanged', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const agent = agentFor(s.url)
  const events = await run(agent, 'state')
  assert.deepEqual(events.find((e) => e.type === 'STATE_SNAPSHOT')!.snapshot, { counter: 0 })
  assert.deepEqual(events.find((e) => e.type === 'STATE_DELTA')!.delta, [{ op: 'replace', path: '/counter', value: 1 }])
  assert.deepEqual(agent.state, { counter: 1 })
  // Client-side state changes win: the next run starts from the client's state.
  agent.setState({ counter: 41, theme: 'dark' })
  await run(agent, 'hello')
  assert.deepEqual((await s.stored(agent.threadId))?.state, { counter: 41, theme: 'dark' })
})

test('plan: plan and progress as CUSTOM, each task a STEP_STARTED/STEP_FINISHED pair', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const events = await run(agentFor(s.url), 'plan')
  assert.equal((custom(events, 'parlance.plan')[0] as { tasks: unknown[] }).tasks.length, 3)
  assert.deepEqual(
    custom(events, 'parlance.progress').map((p) => (p as { percent: number }).percent),
    [33, 66, 100],
  )
  assert.deepEqual(
    events.filter((e) => e.type === 'STEP_STARTED' || e.type === 'STEP_FINISHED').map((e) => `${String(e.type)}:${String(e.stepName)}`),
    [
      'STEP_STARTED:Gather requirements',
      'STEP_FINISHED:Gather requirements',
      'STEP_STARTED:Draft the answer',
      'STEP_FINISHED:Draft the answer',
      'STEP_STARTED:Review',
      'STEP_FINISHED:Review',
    ],
  )
})

test('fail: the tool error is a TOOL_CALL_RESULT with the error in metadata, then RUN_ERROR execution_error', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const again = agentFor(s.url)
  const got: Array<Record<string, unknown>> = []
  again.addMessage({ id: 'u1', role: 'user', content: 'fail' })
  await again.runAgent({}, { onEvent: ({ event }) => void got.push(event) })
  const result = got.find((e) => e.type === 'TOOL_CALL_RESULT')!
  assert.match(String((result.metadata as { parlance: { error: string } }).parlance.error), /flaky_tool is out of order/)
  const end = got[got.length - 1]!
  assert.equal(end.type, 'RUN_ERROR')
  assert.equal(end.code, 'execution_error')
})

test('POST /agui/:agent picks the agent; an unknown one is a 404 JSON error', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const events = await run(agentFor(s.url, undefined, '/agui/demo'), 'hi')
  assert.equal(text(events), 'Echo: hi')
  const res = await fetch(`${s.url}/agui/nobody`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ threadId: 't', runId: 'r', messages: [] }),
  })
  assert.equal(res.status, 404)
  assert.match(((await res.json()) as { error: { message: string } }).error.message, /no agent named "nobody"/)
})

test('slow interrupted by a new message: the first stream ends with RUN_ERROR interrupted, the second runs the new message', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const first = agentFor(s.url)
  first.addMessage({ id: 'u-slow', role: 'user', content: 'slow' })
  const got: Array<Record<string, unknown>> = []
  let started!: () => void
  const streaming = new Promise<void>((r) => (started = r))
  const slow = first.runAgent({}, { onEvent: ({ event }) => void (got.push(event), (event.type as string) === 'TEXT_MESSAGE_CONTENT' && started()) })
  await within(streaming, 15_000, 'the slow run streaming')
  // A second tab on the same thread sends a new message while the slow run streams.
  const second = agentFor(s.url, first.threadId)
  const events = await run(second, 'hello again')
  await slow
  assert.equal(text(events), 'Echo: hello again')
  assert.equal(last(events).type, 'RUN_FINISHED')
  const end = got.at(-1)!
  assert.equal(end.type, 'RUN_ERROR')
  assert.equal(end.code, 'interrupted')
  assert.ok(got.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').length < 50, 'the slow run stopped early')
})

test('state: null is "no state" (as in @ag-ui/core) and leaves the stored state alone', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const agent = agentFor(s.url)
  await run(agent, 'state')
  const res = await fetch(`${s.url}/agui`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      threadId: agent.threadId,
      runId: 'r-null',
      state: null,
      messages: [...agent.messages, { id: 'u-n', role: 'user', content: 'hi' }],
    }),
  })
  assert.match(await res.text(), /RUN_FINISHED/)
  assert.deepEqual((await s.stored(agent.threadId))?.state, { counter: 1 })
})
