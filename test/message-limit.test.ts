// One user-message limit on every dialect (issue 50): a 70,000-character message (maxUserMessageChars is 10,000 by
// default) is refused by each dialect, through its real client where there is one, in that dialect's own error
// shape, before any run starts; the same client then gets an answer to a short message. The check lives in
// Session.handle, so a dialect added later inherits it.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { HttpAgent } from '@ag-ui/client'
import OpenAI from 'openai'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { HumaClient, MyAgentClient, RpcError, connectA2a, connectMcp } from '../src/client/index.js'
import { defineAgent } from '../src/index.js'
import { startServer, type TestServer } from './harness.js'
import { a2aMessage, asTask, taskText } from './support/a2a.js'
import { connect as hugaiConnect } from './hugai-support.js'

const BIG = 'x'.repeat(70_000)

/** An agent that records every input it runs for, so "no run started" is something a test can see fail. */
function counted() {
  const inputs: string[] = []
  const agent = defineAgent({
    name: 'demo',
    async run(ctx) {
      inputs.push(ctx.input.text)
      await ctx.say(`Echo: ${ctx.input.text}`)
    },
  })
  return { agent, inputs }
}

async function setup(t: { after(fn: () => Promise<void>): void }): Promise<{ s: TestServer; inputs: string[] }> {
  const { agent, inputs } = counted()
  const s = await startServer({ agents: [agent], limits: { typingMsPerChar: 0 } })
  t.after(() => s.close())
  return { s, inputs }
}

test('HAI: message_too_long, no run', async (t) => {
  const { s, inputs } = await setup(t)
  const c = await s.hai()
  c.say(BIG)
  const err = await c.next('error')
  assert.equal(err.error_code, 'message_too_long')
  assert.deepEqual(inputs, [])
  c.say('hi')
  await c.untilCompleted()
  assert.deepEqual(inputs, ['hi'])
})

test('MyAgent: error.validation ERR_VALIDATION_400, no run', async (t) => {
  const { s, inputs } = await setup(t)
  const c = await MyAgentClient.connect({ url: s.url })
  t.after(() => c.close())
  await c.createSession()
  c.message(BIG)
  assert.equal((await c.next('error.validation')).metadata.error_code, 'ERR_VALIDATION_400')
  assert.deepEqual(inputs, [])
  c.message('hi')
  await c.next('agent.final_answer')
  assert.deepEqual(inputs, ['hi'])
})

test('HUMA: a triggering context-update whose description is over the limit is INVALID_EVENT, no run', async (t) => {
  const { s, inputs } = await setup(t)
  const c = await HumaClient.connect({ url: s.url })
  t.after(() => c.close())
  c.contextUpdate(BIG, { triggering: true })
  const err = await c.nextError()
  assert.equal(err.code, 'INVALID_EVENT')
  assert.match(err.message, /description has 70000 characters; the limit is 10000/)
  assert.deepEqual(inputs, [])
  c.contextUpdate('hi', { triggering: true })
  await c.nextMessaging('message_sent')
  assert.deepEqual(inputs, ['hi'])
})

test('HugAI: agent/request with an over-long task is JSON-RPC -32602, no run', async (t) => {
  const { s, inputs } = await setup(t)
  const c = await hugaiConnect(s)
  t.after(() => c.close())
  await assert.rejects(c.call('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'demo', task: BIG }), (err: unknown) => {
    assert.ok(err instanceof RpcError, String(err))
    assert.equal(err.code, -32602)
    assert.match(err.message, /params\.task.*10000/)
    return true
  })
  assert.deepEqual(inputs, [])
  await c.call('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'demo', task: 'hi' })
  assert.deepEqual(inputs, ['hi'])
})

test('AG-UI (HttpAgent): HTTP 400 message_too_long before the stream starts, nothing recorded', async (t) => {
  const { s, inputs } = await setup(t)
  const a = new HttpAgent({ url: `${s.url}/agui`, threadId: randomUUID() })
  a.addMessage({ id: randomUUID(), role: 'user', content: BIG })
  const err = (await a.runAgent({}).then(
    () => assert.fail('the message ran'),
    (e: unknown) => e,
  )) as { status?: number; payload?: { error?: { code?: string } } }
  assert.equal(err.status, 400)
  assert.equal(err.payload?.error?.code, 'message_too_long')
  assert.deepEqual(inputs, [])
  const stored = await s.server.sessions.store.read(a.threadId, 0, 100)
  assert.equal(stored.filter((e) => e.type === 'message.user').length, 0)
})

test('/api/chat (ai DefaultChatTransport): HTTP 400 message_too_long before the stream starts, no run', async (t) => {
  const { s, inputs } = await setup(t)
  const user = (text: string): UIMessage => ({ id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] })
  const transport = new DefaultChatTransport({ api: `${s.url}/api/chat` })
  const send = (text: string) =>
    transport.sendMessages({ chatId: 'chat-big', trigger: 'submit-message', messageId: undefined, messages: [user(text)], abortSignal: undefined })
  await assert.rejects(send(BIG), /message_too_long/)
  const raw = await fetch(`${s.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'chat-big', messages: [user(BIG)] }),
  })
  assert.equal(raw.status, 400)
  assert.equal(((await raw.json()) as { error: { code: string } }).error.code, 'message_too_long')
  assert.deepEqual(inputs, [])
  const ok = await send('hi')
  for await (const chunk of ok) void chunk
  assert.deepEqual(inputs, ['hi'])
})

test('MCP (SDK client): ask_demo with an over-long message is a -32602 tool error, no run', async (t) => {
  const { s, inputs } = await setup(t)
  const client = await connectMcp({ url: s.url })
  t.after(() => client.close())
  const r = (await client.callTool({ name: 'ask_demo', arguments: { message: BIG } })) as { isError?: boolean; content: Array<{ text?: string }> }
  assert.equal(r.isError, true)
  assert.match(r.content.map((c) => c.text ?? '').join(''), /-32602[\s\S]*message/)
  assert.deepEqual(inputs, [])
  const ok = (await client.callTool({ name: 'ask_demo', arguments: { message: 'hi' } })) as { content: Array<{ text?: string }> }
  assert.equal(ok.content[0]!.text, 'Echo: hi')
})

test('A2A (SDK client): send and stream are JSON-RPC -32602 (RequestMalformedError) before any task exists, no run', async (t) => {
  const { s, inputs } = await setup(t)
  const c = await connectA2a({ url: s.url, agent: 'demo' })
  const malformed = (err: Error) => {
    assert.equal(err.name, 'RequestMalformedError')
    assert.match(err.message, /message\.parts has 70000 characters; the limit is 10000/)
    return true
  }
  const big = a2aMessage(BIG)
  await assert.rejects(c.sendMessage({ tenant: '', message: big, configuration: undefined, metadata: undefined }), malformed)
  await assert.rejects(async () => {
    for await (const e of c.sendMessageStream({ tenant: '', message: a2aMessage(BIG), configuration: undefined, metadata: undefined })) void e
  }, malformed)
  assert.deepEqual(inputs, [])
  const ok = asTask(await c.sendMessage({ tenant: '', message: a2aMessage('hi'), configuration: undefined, metadata: undefined }))
  assert.equal(taskText(ok), 'Echo: hi')
  assert.deepEqual(inputs, ['hi'])
})

test('the limit is the server option, counted in characters (code points), in every dialect', async (t) => {
  const { agent, inputs } = counted()
  const s = await startServer({ agents: [agent], limits: { maxUserMessageChars: 5 } })
  t.after(() => s.close())
  const a = new HttpAgent({ url: `${s.url}/agui`, threadId: randomUUID() })
  a.addMessage({ id: randomUUID(), role: 'user', content: '😀😀😀😀😀😀' }) // 6 code points, 12 UTF-16 units
  const err = (await a.runAgent({}).catch((e: unknown) => e)) as { status?: number; payload?: { error?: { code?: string } } }
  assert.equal(err.status, 400)
  assert.equal(err.payload?.error?.code, 'message_too_long')
  const b = new HttpAgent({ url: `${s.url}/agui`, threadId: randomUUID() })
  b.addMessage({ id: randomUUID(), role: 'user', content: '😀😀😀😀😀' }) // 5 code points: within the limit
  await b.runAgent({})
  assert.deepEqual(inputs, ['😀😀😀😀😀'])
})

test('A2A and MCP refuse bodies nested past maxJsonDepth, odd ids and __proto__ keys as Invalid Request (-32600), in JSON-RPC shape', async (t) => {
  const { s, inputs } = await setup(t)
  const post = async (path: string, body: string) => {
    const res = await fetch(`${s.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    })
    return { status: res.status, body: (await res.json()) as { jsonrpc: string; id: unknown; error?: { code: number; message: string } } }
  }
  const deep = '['.repeat(5000) + ']'.repeat(5000)
  const send = (id: string, extra: string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]${extra}}}}`
  for (const [body, message, code] of [
    [send('1', `,"metadata":{"x":${deep}}`), /JSON nesting deeper than 64/, -32600],
    [send(deep, ''), /"id" must be a string/, -32600],
    [send('1', ',"metadata":{"__proto__":{"polluted":true}}'), /forbidden key "__proto__"/, -32600],
  ] as const) {
    const r = await post('/a2a', body)
    assert.equal(r.status, 200)
    assert.equal(r.body.error?.code, code, JSON.stringify(r.body).slice(0, 200))
    assert.match(r.body.error.message, message)
  }
  const init = (extra: string) =>
    `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"${extra}}}}`
  for (const [body, message, id, code] of [
    [init(`,"x":${deep}`), /JSON nesting deeper than 64/, 1, -32600],
    [init(',"__proto__":{"polluted":true}'), /forbidden key "__proto__"/, 1, -32600],
  ] as const) {
    const r = await post('/mcp', body)
    assert.equal(r.status, 400)
    assert.deepEqual([r.body.jsonrpc, r.body.id, r.body.error?.code], ['2.0', id, code], JSON.stringify(r.body).slice(0, 200))
    assert.match(r.body.error!.message, message)
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
  assert.deepEqual(inputs, [])
  assert.equal((await fetch(`${s.url}/healthz`)).status, 200)
})

test('OpenAI (official client): Chat Completions and Responses answer 400 message_too_long before any run; deep bodies, __proto__ keys and bodies past maxFrameBytes get their 400 and 413 in OpenAI error shape', async (t) => {
  const { s, inputs } = await setup(t)
  const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'unused', maxRetries: 0 })
  const refused = (code: string) => (err: unknown) => {
    assert.ok(err instanceof OpenAI.BadRequestError, String(err))
    assert.equal(err.code, code)
    return true
  }
  await assert.rejects(client.chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: BIG }] }), refused('message_too_long'))
  await assert.rejects(
    client.chat.completions.create({ model: 'demo', stream: true, messages: [{ role: 'user', content: BIG }] }),
    refused('message_too_long'),
  )
  await assert.rejects(client.responses.create({ model: 'demo', input: BIG }), refused('message_too_long'))
  await assert.rejects(
    client.responses.create({ model: 'demo', input: [{ role: 'user', content: [{ type: 'input_text', text: BIG }] }] }),
    refused('message_too_long'),
  )
  assert.deepEqual(inputs, [])
  const deep = '['.repeat(5000) + ']'.repeat(5000)
  for (const [path, body, status, code] of [
    ['/v1/chat/completions', `{"model":"demo","messages":[{"role":"user","content":"hi"}],"metadata":{"x":${deep}}}`, 400, 'too_deep'],
    ['/v1/responses', `{"model":"demo","input":"hi","__proto__":{"polluted":true}}`, 400, 'forbidden_key'],
    ['/v1/chat/completions', JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'y'.repeat(1_100_000) }] }), 413, 'frame_too_large'],
  ] as const) {
    const res = await fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    assert.equal(res.status, status, path)
    const err = ((await res.json()) as { error: { type: string; code: string } }).error
    assert.deepEqual([err.type, err.code], ['invalid_request_error', code])
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
  assert.deepEqual(inputs, [])
  const ok = await client.chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: 'hi' }] })
  assert.equal(ok.choices[0]!.message.content, 'Echo: hi')
  assert.deepEqual(inputs, ['hi'])
})
