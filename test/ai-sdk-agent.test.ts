// aiSdkAgent on the real AI SDK (`ai` with @ai-sdk/openai-compatible) against a local fake OpenAI-compatible
// server, driven over HAI (the Parlance client), the `ai` package's own chat transport and @ag-ui/client.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { DefaultChatTransport, readUIMessageStream, tool, type UIMessage } from 'ai'
import { z } from 'zod'
import { aiSdkAgent, type AiSdkAgentOptions } from '../src/agents/ai-sdk/index.js'
import { HaiClient, textOf } from '../src/client/index.js'
import { startServer } from './harness.js'
import { agentFor, run as aguiRun } from './agui-support.js'
import { fakeOpenAI } from './support/fake-openai.js'
import { waitFor } from './support/wait.js'
import { startExample } from './support/run-example.js'

const removed: string[] = []

const tools = {
  get_weather: tool({
    description: 'Current weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, temperature_c: 18 }),
  }),
  // No execute: the client runs it.
  get_client_info: tool({ description: 'What the client knows about itself', inputSchema: z.object({}) }),
  delete_file: tool({
    description: 'Deletes a file',
    inputSchema: z.object({ name: z.string() }),
    needsApproval: true,
    execute: ({ name }) => {
      removed.push(name)
      return `deleted ${name}`
    },
  }),
  // needsApproval as a function of the input: scratch files go without asking.
  archive: tool({
    description: 'Archives a file',
    inputSchema: z.object({ name: z.string() }),
    needsApproval: ({ name }) => !name.startsWith('scratch'),
    execute: ({ name }) => `archived ${name}`,
  }),
  broken: tool({
    description: 'Always fails',
    inputSchema: z.object({}),
    execute: async (): Promise<string> => {
      throw new Error('disk full')
    },
  }),
  // A Parlance ToolDefinition (as mcpTools gives them) next to the AI SDK tools.
  shout: {
    description: 'Upper-cases text',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute: ({ text }: Record<string, unknown>) => String(text).toUpperCase(),
  },
}

async function setup(t: TestContext, extra: Partial<AiSdkAgentOptions> = {}) {
  const llm = await fakeOpenAI()
  const provider = createOpenAICompatible({ name: 'fakeai', baseURL: llm.url, apiKey: 'test', includeUsage: true })
  const agent = aiSdkAgent({ name: 'ai', model: provider.chatModel('fake-1'), system: 'Be brief.', tools, maxRetries: 0, ...extra })
  // exposeErrors: the tests read the adapter's failure messages, which a server without it keeps for its log.
  const s = await startServer({ agents: [agent], limits: { clientToolTimeoutMs: 5000, approvalTimeoutMs: 5000 }, exposeErrors: true })
  t.after(async () => {
    await s.close()
    await llm.close()
  })
  return { llm, s }
}

test('text streams over HAI; the next turn sends the history with the system prompt', async (t) => {
  const { llm, s } = await setup(t)
  const c = await s.hai()
  c.say('hello model')
  const msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'You said: hello model')
  assert.ok(msgs.filter((m) => m.type === 'assistant_message_chunk' && !m.is_final).length >= 3, 'streamed as the model wrote it')
  c.say('again')
  await c.untilCompleted()
  const second = llm.requests.at(-1)!.messages.map((m) => `${m.role}:${m.content ?? ''}`)
  assert.deepEqual(second, ['system:Be brief.', 'user:hello model', 'assistant:You said: hello model', 'user:again'])
})

test("reasoning and text reach the ai package's chat transport as reasoning and text parts", async (t) => {
  const { s } = await setup(t)
  const transport = new DefaultChatTransport({ api: `${s.url}/api/chat` })
  const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'ponder this' }] }
  const stream = await transport.sendMessages({
    chatId: 'chat-r',
    trigger: 'submit-message',
    messageId: undefined,
    messages: [user],
    abortSignal: undefined,
  })
  let last: UIMessage | undefined
  for await (const m of readUIMessageStream({ stream })) last = m
  const parts = last!.parts.filter((p) => p.type === 'reasoning' || p.type === 'text').map((p) => [p.type, (p as { text: string }).text])
  assert.deepEqual(parts, [
    ['reasoning', 'Let me think.'],
    ['text', 'You said: ponder this'],
  ])
})

test('a tool with execute runs as a server tool: every dialect sees its call and result, and the model gets the result', async (t) => {
  const { llm, s } = await setup(t)
  const c = await s.hai()
  c.say('weather please')
  const msgs = await c.untilCompleted()
  const start = msgs.find((m) => m.type === 'tool_call_start')
  assert.deepEqual(start?.type === 'tool_call_start' ? [start.tool_name, start.parameters, start.metadata?.target] : null, [
    'get_weather',
    { city: 'Paris' },
    'server',
  ])
  const end = msgs.find((m) => m.type === 'tool_call_end')
  assert.equal(end?.type === 'tool_call_end' ? end.result : null, '{"city":"Paris","temperature_c":18}')
  assert.equal(textOf(msgs), 'The tool said: {"city":"Paris","temperature_c":18}')
  assert.equal(llm.requests.length, 2)
  assert.deepEqual(llm.requests[1]!.messages.at(-1), { role: 'tool', tool_call_id: 'call_1', content: '{"city":"Paris","temperature_c":18}' })

  // Over AG-UI, reasoning and text streamed before the call end before the call starts; the result follows the call.
  const events = await aguiRun(agentFor(s.url, undefined, '/agui/ai'), 'ponder, preface, then call:get_weather{"city":"Oslo"}')
  const kinds = [
    'REASONING_MESSAGE_CONTENT',
    'REASONING_MESSAGE_END',
    'TEXT_MESSAGE_CONTENT',
    'TEXT_MESSAGE_END',
    'TOOL_CALL_START',
    'TOOL_CALL_RESULT',
  ]
  const order = events.map((e) => String(e.type)).filter((ty) => kinds.includes(ty))
  const [rc, re, tc, te, callStart, callResult] = kinds
  assert.deepEqual(order, [rc, rc, re, tc, tc, te, callStart, callResult, tc, tc, te])

  // A failing tool: every dialect sees the error, the model is told and the run goes on.
  c.say('call:broken{}')
  const broken = await c.untilCompleted()
  assert.equal(textOf(broken), 'The tool said: tool broken failed: disk full')
  const failed = broken.find((m) => m.type === 'tool_call_error')
  assert.deepEqual(failed?.type === 'tool_call_error' ? [failed.tool_name, failed.error] : null, ['broken', 'disk full'])

  // A Parlance ToolDefinition in the same record runs the same way.
  c.say('call:shout{"text":"hi there"}')
  const shouted = await c.untilCompleted()
  assert.equal(textOf(shouted), 'The tool said: HI THERE')
  assert.ok(shouted.some((m) => m.type === 'tool_call_start' && m.tool_name === 'shout'))
})

test('a tool without execute goes to the client, and its result back to the model', async (t) => {
  const { s } = await setup(t)
  const c = await s.hai()
  c.say('client info please')
  const call = await c.next('tool_call_start')
  assert.deepEqual([call.tool_name, call.metadata?.target], ['get_client_info', 'client'])
  c.toolResult(call.tool_call_id, { result: { os: 'test' } })
  assert.equal(textOf(await c.untilCompleted()), 'The tool said: {"os":"test"}')
})

test('needsApproval asks through ctx.approve with the arguments; approved it runs, refused the model is told and it does not', async (t) => {
  const { llm, s } = await setup(t)
  const c = await s.hai()
  c.say('call:delete_file{"name":"todo.txt"}')
  let req = await c.next('tool_approval_request')
  assert.deepEqual(
    [req.tool_name, req.parameters, req.risk_level, req.tool_description],
    ['delete_file', { name: 'todo.txt' }, 'medium', 'Deletes a file'],
  )
  c.approve(req.approval_id, true)
  let msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'The tool said: deleted todo.txt')
  assert.deepEqual(removed, ['todo.txt'])

  c.say('call:delete_file{"name":"notes.md"}')
  req = await c.next('tool_approval_request')
  c.approve(req.approval_id, false, 'I still need it')
  msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'The tool said: I still need it')
  assert.equal(msgs.filter((m) => m.type === 'tool_call_start').length, 0, 'a refused tool never runs')
  assert.deepEqual(removed, ['todo.txt'])

  // Refused without a reason: the model gets the SDK's own denial text.
  c.say('call:delete_file{"name":"b.md"}')
  req = await c.next('tool_approval_request')
  c.approve(req.approval_id, false)
  assert.equal(textOf(await c.untilCompleted()), 'The tool said: Tool call execution denied.')
  assert.equal(llm.requests.at(-1)!.messages.at(-1)!.role, 'tool')

  // A function decides: a scratch file needs no approval, another one does.
  c.say('call:archive{"name":"scratch-1"}')
  msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'The tool said: archived scratch-1')
  assert.equal(msgs.filter((m) => m.type === 'tool_approval_request').length, 0)
  c.say('call:archive{"name":"report.pdf"}')
  req = await c.next('tool_approval_request')
  assert.deepEqual(req.parameters, { name: 'report.pdf' })
  c.approve(req.approval_id, true)
  assert.equal(textOf(await c.untilCompleted()), 'The tool said: archived report.pdf')
})

test('cancel mid-stream aborts the provider request (the model server sees the connection close)', async (t) => {
  const { llm, s } = await setup(t)
  const c = await s.hai()
  c.say('slow')
  await c.next('assistant_message_chunk')
  c.cancel()
  assert.equal((await c.next('error')).error_code, 'cancelled')
  await waitFor(() => llm.aborted() > 0, { what: 'the fake model server to see the request aborted' })
  assert.equal(llm.aborted(), 1, 'the provider request was aborted once')
})

test('provider errors end the run naming provider, status and message (HAI and AG-UI); the step limit too', async (t) => {
  const { s } = await setup(t, { maxSteps: 3 })
  const c = await s.hai()
  c.say('boom')
  const err = await c.next('error')
  assert.equal(err.error_code, 'execution_error')
  assert.match(String(err.message), /^fakeai\.chat at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions answered 500: model overloaded$/)
  await c.untilCompleted()

  // AG-UI: the run's last event is its RUN_ERROR (the client does not throw).
  const events = await aguiRun(agentFor(s.url, undefined, '/agui/ai'), 'unauthorized please')
  const runError = events.at(-1)
  assert.equal(runError?.type, 'RUN_ERROR')
  assert.equal(runError.code, 'execution_error')
  assert.match(String(runError.message), /^fakeai\.chat at .* answered 401: Incorrect API key provided$/)

  c.say('loop forever')
  const loop = await c.next('error')
  assert.match(String(loop.message), /stopped after 3 model calls/)
  await c.untilCompleted()

  // Nothing listens at the provider's URL: unavailable, with the network cause.
  const { createServer: netServer } = await import('node:net')
  const probe = netServer().listen(0, '127.0.0.1')
  await new Promise((r) => probe.once('listening', r))
  const port = (probe.address() as import('node:net').AddressInfo).port
  await new Promise((r) => probe.close(r))
  const gone = createOpenAICompatible({ name: 'gone', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'k' })
  const s2 = await startServer({ agents: [aiSdkAgent({ model: gone.chatModel('m'), maxRetries: 0 })], exposeErrors: true })
  t.after(() => s2.close())
  const c2 = await s2.hai()
  c2.say('hello')
  const down = await c2.next('error')
  assert.equal(down.error_code, 'unavailable')
  assert.match(String(down.message), new RegExp(`^cannot reach gone\\.chat at http://127\\.0\\.0\\.1:${port}/v1/chat/completions: ECONNREFUSED`))
})

test('examples/ai-sdk-agent.ts as its own process: a tool call, an approval and usage in /metrics', async (t) => {
  const llm = await fakeOpenAI()
  t.after(() => llm.close())
  const url = await startExample(t, 'ai-sdk-agent.ts', { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'test', OPENAI_MODEL: 'fake-1' })
  const c = await HaiClient.connect({ url })
  t.after(() => c.close())
  c.say('weather in Paris?')
  let msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'The tool said: {"city":"Paris","temperature_c":21,"conditions":"sunny"}')
  c.say('call:delete_file{"name":"todo.txt"}')
  const req = await c.next('tool_approval_request')
  assert.deepEqual([req.tool_name, req.parameters, req.risk_level], ['delete_file', { name: 'todo.txt' }, 'high'])
  c.approve(req.approval_id, true)
  msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'The tool said: deleted todo.txt')
  const metrics = await (await fetch(`${url.replace(/^ws/, 'http').replace(/\/ws$/, '')}/metrics`)).text()
  assert.match(metrics, /parlance_tokens_total\{agent="assistant",model="fake-1",kind="output"\} 28\n/, 'four model calls of 7 output tokens each')
})
