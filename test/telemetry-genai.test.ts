// Model-call spans (issue 38, item 4) of the built-in model agents against a local fake OpenAI-compatible server:
// one `chat <model>` client span per model call, with the OpenTelemetry GenAI attributes (operation, provider,
// requested and answering model, token usage, finish reason), children of the run span beside the tool spans.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { aiSdkAgent } from '../src/agents/ai-sdk/index.js'
import { openaiAgent } from '../src/agents/openai/index.js'
import { demoAgent, type AgentDefinition } from '../src/index.js'
import { exporter, parentOf, span, spans } from './telemetry-support.js'
import { startServer } from './harness.js'
import { fakeOpenAI } from './support/fake-openai.js'

async function setup(t: TestContext, agent: (llmUrl: string) => AgentDefinition) {
  exporter.reset()
  const llm = await fakeOpenAI()
  const s = await startServer({ agents: [agent(llm.url)] })
  t.after(async () => {
    await s.close()
    await llm.close()
  })
  return { llm, s, port: Number(new URL(llm.url).port) }
}

/** The chat spans of session `sessionId`'s run and the run span. */
async function callsOf(sessionId: string, agent: string): Promise<{ run: ReadableSpan; calls: ReadableSpan[] }> {
  const run = await span(`invoke_agent ${agent}`, (x) => x.name === `invoke_agent ${agent}` && x.attributes['parlance.session.id'] === sessionId)
  // In the order they ended: one model call ends before the next is sent.
  const calls = spans().filter((x) => x.attributes['gen_ai.operation.name'] === 'chat' && x.spanContext().traceId === run.spanContext().traceId)
  return { run, calls }
}

const tools = { get_weather: demoAgent.tools.get_weather! }

test('openaiAgent: a span per model call with the GenAI attributes and token usage; the tool call beside them', async (t) => {
  const { s, port } = await setup(t, (url) => openaiAgent({ name: 'oa', model: 'fake-1', baseURL: url, apiKey: 'test', system: 'Be brief.', tools }))
  const c = await s.hai()
  c.say('call:get_weather{"city":"Paris"}')
  await c.untilCompleted()
  const { run, calls } = await callsOf(c.sessionId, 'oa')
  assert.equal(calls.length, 2, 'one span per model call: the tool round, then the answer')
  for (const call of calls) {
    assert.equal(call.name, 'chat fake-1')
    assert.equal(call.kind, SpanKind.CLIENT)
    assert.equal(parentOf(call), run.spanContext().spanId)
    assert.equal(call.attributes['gen_ai.provider.name'], 'openai')
    assert.equal(call.attributes['gen_ai.system'], 'openai')
    assert.equal(call.attributes['gen_ai.request.model'], 'fake-1')
    assert.equal(call.attributes['gen_ai.response.model'], 'fake', 'the model the server says answered')
    assert.equal(call.attributes['gen_ai.response.id'], 'c1')
    assert.equal(call.attributes['gen_ai.usage.output_tokens'], 7)
    assert.equal(call.attributes['server.address'], '127.0.0.1')
    assert.equal(call.attributes['server.port'], port)
    assert.equal(call.status.code, SpanStatusCode.UNSET)
  }
  // The fake counts 10 prompt tokens per message: system + user, then + the assistant's call and the tool's result.
  assert.deepEqual(
    calls.map((x) => x.attributes['gen_ai.usage.input_tokens']),
    [20, 40],
  )
  assert.deepEqual(
    calls.map((x) => x.attributes['gen_ai.response.finish_reasons']),
    [['tool_calls'], ['stop']],
  )
  const tool = await span(
    'execute_tool get_weather',
    (x) => x.name === 'execute_tool get_weather' && x.spanContext().traceId === run.spanContext().traceId,
  )
  assert.equal(parentOf(tool), run.spanContext().spanId)
})

test('openaiAgent: a model call the server refuses ends its span as an error', async (t) => {
  const { s } = await setup(t, (url) => openaiAgent({ name: 'oa', model: 'fake-1', baseURL: url, apiKey: 'test' }))
  const c = await s.hai()
  c.say('boom')
  await c.untilCompleted()
  const { run, calls } = await callsOf(c.sessionId, 'oa')
  assert.equal(calls.length, 1)
  assert.equal(calls[0]!.status.code, SpanStatusCode.ERROR)
  assert.match(String(calls[0]!.status.message), /answered 500/)
  assert.equal(calls[0]!.attributes['error.type'], 'execution_error')
  assert.equal(calls[0]!.attributes['gen_ai.usage.input_tokens'], undefined, 'no usage was reported')
  assert.equal(run.attributes['parlance.run.outcome'], 'execution_error')
})

test('aiSdkAgent: a span per step of streamText, named by the provider, with usage and the answering model', async (t) => {
  const { s } = await setup(t, (url) => {
    const provider = createOpenAICompatible({ name: 'fakeai', baseURL: url, apiKey: 'test', includeUsage: true })
    return aiSdkAgent({ name: 'ai', model: provider.chatModel('fake-1'), system: 'Be brief.', tools, maxRetries: 0 })
  })
  const c = await s.hai()
  c.say('call:get_weather{"city":"Paris"}')
  await c.untilCompleted()
  const { run, calls } = await callsOf(c.sessionId, 'ai')
  assert.equal(calls.length, 2)
  for (const call of calls) {
    assert.equal(call.name, 'chat fake-1')
    assert.equal(call.kind, SpanKind.CLIENT)
    assert.equal(parentOf(call), run.spanContext().spanId)
    assert.equal(call.attributes['gen_ai.provider.name'], 'fakeai')
    assert.equal(call.attributes['gen_ai.request.model'], 'fake-1')
    assert.equal(call.attributes['gen_ai.response.model'], 'fake')
    assert.equal(call.attributes['gen_ai.usage.output_tokens'], 7)
  }
  assert.deepEqual(
    calls.map((x) => x.attributes['gen_ai.usage.input_tokens']),
    [20, 40],
  )
  assert.deepEqual(
    calls.map((x) => x.attributes['gen_ai.response.finish_reasons']),
    [['tool-calls'], ['stop']],
  )
  const tool = await span(
    'execute_tool get_weather',
    (x) => x.name === 'execute_tool get_weather' && x.spanContext().traceId === run.spanContext().traceId,
  )
  assert.equal(tool.attributes['gen_ai.tool.name'], 'get_weather')
  assert.match(String(tool.attributes['gen_ai.tool.call.id']), /.+/)
})

test('aiSdkAgent: a failed model call ends its span as an error', async (t) => {
  const { s } = await setup(t, (url) =>
    aiSdkAgent({ name: 'ai', model: createOpenAICompatible({ name: 'fakeai', baseURL: url, apiKey: 'test' }).chatModel('fake-1'), maxRetries: 0 }),
  )
  const c = await s.hai()
  c.say('boom')
  await c.untilCompleted()
  const { calls } = await callsOf(c.sessionId, 'ai')
  assert.equal(calls.length, 1)
  assert.equal(calls[0]!.status.code, SpanStatusCode.ERROR)
})
