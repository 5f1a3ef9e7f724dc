import assert from 'node:assert/strict'
import { test } from 'node:test'
import { textOf } from '../src/client/index.js'
import { openaiAgent } from '../src/agents/openai/index.js'
import { demoAgent } from '../src/index.js'
import { startServer } from './harness.js'
import { fakeOpenAI } from './support/fake-openai.js'
import { waitFor } from './support/wait.js'

async function setup(t: import('node:test').TestContext, maxSteps?: number) {
  const llm = await fakeOpenAI()
  const agent = openaiAgent({
    model: 'fake-1',
    baseURL: llm.url,
    apiKey: 'test',
    system: 'Be brief.',
    tools: { get_weather: demoAgent.tools.get_weather!, get_client_info: demoAgent.tools.get_client_info! },
    maxSteps,
  })
  // exposeErrors: the tests read the adapter's failure messages, which a server without it keeps for its log.
  const s = await startServer({ agents: [agent], limits: { clientToolTimeoutMs: 3000 }, exposeErrors: true })
  t.after(async () => {
    await s.close()
    await llm.close()
  })
  return { llm, s }
}

test('streams the model text through the normal agent API, with history and the system prompt', async (t) => {
  const { llm, s } = await setup(t)
  const c = await s.hai()
  c.say('hello model')
  assert.equal(textOf(await c.untilCompleted()), 'You said: hello model')
  c.say('again')
  await c.untilCompleted()
  const second = llm.requests.at(-1)!.messages.map((m) => `${m.role}:${m.content ?? ''}`)
  assert.deepEqual(second, ['system:Be brief.', 'user:hello model', 'assistant:You said: hello model', 'user:again'])
})

test('a server tool call runs the tool and feeds the result back for a second model call', async (t) => {
  const { llm, s } = await setup(t)
  const c = await s.hai()
  c.say('weather please')
  const all = await c.untilCompleted()
  const start = all.find((m) => m.type === 'tool_call_start')!
  assert.equal((start as { tool_name: string }).tool_name, 'get_weather')
  assert.match(textOf(all), /The tool said: \{"city":"Paris","temperature_c":18,"conditions":"cloudy"\}/)
  assert.equal(llm.requests.length, 2)
  assert.equal(llm.requests[1]!.messages.at(-1)!.role, 'tool')
})

test('a client tool goes to the client through ctx.callTool and its result back to the model', async (t) => {
  const { s } = await setup(t)
  const c = await s.hai()
  c.say('client info please')
  const call = await c.next('tool_call_start')
  assert.equal((call as { metadata?: { target?: string } }).metadata?.target, 'client')
  c.toolResult(String((call as { tool_call_id: string }).tool_call_id), { result: { os: 'test' } })
  assert.match(textOf(await c.untilCompleted()), /The tool said: \{"os":"test"\}/)
})

test('upstream errors and the step limit end the run with a clear error; cancel aborts the upstream request', async (t) => {
  const { llm, s } = await setup(t, 3)
  const c = await s.hai()
  c.say('boom')
  const err = await c.next('error')
  assert.equal(err.error_code, 'execution_error')
  assert.match(String(err.message), /model server at http:\/\/127\.0\.0\.1:\d+\/v1 answered 500: model overloaded$/)
  await c.untilCompleted()
  c.say('loop forever')
  const loop = await c.next('error')
  assert.match(String(loop.message), /stopped after 3 model calls/)
  await c.untilCompleted()
  c.say('slow')
  await c.next('assistant_message_chunk')
  c.cancel()
  assert.equal((await c.next('error')).error_code, 'cancelled')
  await waitFor(() => llm.aborted() > 0, { what: 'the upstream request to be aborted' })
  assert.equal(llm.aborted(), 1, 'the upstream request was aborted, once')
})

test('no model server, or a refused key: the error names the URL and the cause (issue 22)', async (t) => {
  // A port nothing listens on: bind one, note it, close it.
  const { createServer: netServer } = await import('node:net')
  const probe = netServer().listen(0, '127.0.0.1')
  await new Promise((r) => probe.once('listening', r))
  const port = (probe.address() as import('node:net').AddressInfo).port
  await new Promise((r) => probe.close(r))
  const agent = openaiAgent({ model: 'm', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'k' })
  const s = await startServer({ agents: [agent], exposeErrors: true })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello')
  const err = await c.next('error')
  assert.equal(err.error_code, 'unavailable')
  assert.match(String(err.message), new RegExp(`cannot reach the model server at http://127\\.0\\.0\\.1:${port}/v1: ECONNREFUSED`))
  await c.untilCompleted()

  const llm = await fakeOpenAI()
  t.after(() => llm.close())
  const keyless = openaiAgent({ name: 'keyless', model: 'm', baseURL: llm.url, apiKey: 'wrong' })
  const s2 = await startServer({ agents: [keyless], exposeErrors: true })
  t.after(() => s2.close())
  const c2 = await s2.hai()
  c2.say('unauthorized')
  const refused = await c2.next('error')
  assert.match(String(refused.message), /answered 401.*\(check OPENAI_API_KEY\)/)
})
