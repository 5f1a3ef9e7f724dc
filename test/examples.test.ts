// Each runnable example in examples/ (besides hello-agent.ts, see example.test.ts) started as its own process
// and talked to over a socket.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { HaiClient, HumaClient, textOf } from '../src/client/index.js'
import { startServer } from './harness.js'
import { fakeOpenAI } from './support/fake-openai.js'
import { startExample as start } from './support/run-example.js'

async function hai(t: TestContext, url: string): Promise<HaiClient> {
  const c = await HaiClient.connect({ url })
  t.after(() => c.close())
  return c
}

test('examples/tools-agent.ts: server tool, approval (approve and reject) and client tool over HAI', async (t) => {
  const c = await hai(t, await start(t, 'tools-agent.ts'))
  c.say('list')
  let msgs = await c.untilCompleted()
  assert.deepEqual(
    msgs.filter((m) => m.type === 'tool_call_end').map((m) => (m.type === 'tool_call_end' ? [m.tool_name, m.result] : null)),
    [['list_files', '["todo.txt","notes.md"]']],
  )
  assert.equal(textOf(msgs), 'Files: todo.txt, notes.md')

  c.say('delete todo.txt')
  let req = await c.next('tool_approval_request')
  assert.deepEqual(
    [req.tool_name, req.parameters, req.risk_level, req.tool_description],
    ['delete_file', { name: 'todo.txt' }, 'high', 'Deletes a file permanently'],
  )
  c.approve(req.approval_id, true)
  assert.equal(textOf(await c.untilCompleted()), 'Done: deleted todo.txt.')

  c.say('delete notes.md')
  req = await c.next('tool_approval_request')
  c.approve(req.approval_id, false, 'I still need it')
  msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'Kept notes.md: I still need it.')
  assert.equal(msgs.filter((m) => m.type === 'tool_call_start').length, 0)

  c.say('where am I?')
  const call = await c.next('tool_call_start')
  assert.deepEqual([call.tool_name, call.metadata?.target], ['get_location', 'client'])
  c.toolResult(call.tool_call_id, { result: { city: 'Lisbon' } })
  assert.equal(textOf(await c.untilCompleted()), 'You are in Lisbon.')

  c.say('list')
  assert.equal(textOf(await c.untilCompleted()), 'Files: notes.md')
})

test('examples/llm-agent.ts: streams the model and runs its tool call, against a local OpenAI-compatible server', async (t) => {
  const llm = await fakeOpenAI()
  t.after(() => llm.close())
  const c = await hai(t, await start(t, 'llm-agent.ts', { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'test', OPENAI_MODEL: 'fake-1' }))
  c.say('hello model')
  let msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'You said: hello model')
  assert.ok(msgs.filter((m) => m.type === 'assistant_message_chunk' && !m.is_final).length >= 3, 'streamed as the model wrote it')

  c.say('weather in Paris?')
  msgs = await c.untilCompleted()
  const start_ = msgs.find((m) => m.type === 'tool_call_start')
  assert.deepEqual(start_?.type === 'tool_call_start' ? [start_.tool_name, start_.parameters] : null, ['get_weather', { city: 'Paris' }])
  assert.equal(textOf(msgs), 'The tool said: {"city":"Paris","temperature_c":21,"conditions":"sunny"}')
  const request = llm.requests.at(-1)!
  assert.equal(request.messages[0]?.role, 'system')
  assert.ok(JSON.stringify(request.tools).includes('get_weather'), 'the tool was offered to the model')
})

test('examples/agui-bridge.ts: a remote AG-UI agent served over HUMA and HAI', async (t) => {
  const remote = await startServer()
  t.after(() => remote.close())
  const url = await start(t, 'agui-bridge.ts', { AGUI_URL: `${remote.url}/agui` })
  const c = await hai(t, url)
  c.say('weather in Lima')
  assert.equal(textOf(await c.untilCompleted()), 'The weather in Lima is cloudy at 18 °C.')
  const huma = await HumaClient.connect({ url: url.replace(/^ws/, 'http').replace(/\/ws$/, '') })
  t.after(() => huma.close())
  huma.contextUpdate('hello over huma')
  assert.equal((await huma.nextMessaging('message_sent')).message, 'Echo: hello over huma')
})
