// OpenAI's API as a dialect (issue 48), driven by the official `openai` client against the demo agent: models, Chat
// Completions (streamed or not, client tools, approvals as `parlance_approval` calls), Responses (streamed or not,
// previous_response_id, approvals as mcp_approval_request items, function tools, background, replay with
// starting_after, cancel) and errors in OpenAI's shape.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import OpenAI from 'openai'
import { startServer, type TestServer } from './harness.js'

let s: TestServer
let client: OpenAI

before(async () => {
  s = await startServer()
  client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'unused', maxRetries: 0 })
})
after(() => s.close())

const TOOLS = [
  {
    type: 'function' as const,
    function: { name: 'get_client_info', description: 'About the client', parameters: { type: 'object', properties: {} } },
  },
]

describe('models', () => {
  test('one model per served agent, and each by id', async () => {
    const list = await client.models.list()
    assert.deepEqual(
      list.data.map((m) => [m.id, m.object, m.owned_by]),
      [['demo', 'model', 'parlance']],
    )
    assert.equal((await client.models.retrieve('demo')).id, 'demo')
  })

  test('an unknown model is a 404 in OpenAI error shape, naming the param and the served models', async () => {
    const err = await client.chat.completions.create({ model: 'gpt-nothing', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)
    assert.ok(err instanceof OpenAI.NotFoundError, String(err))
    assert.equal(err.code, 'not_found')
    assert.equal(err.param, 'model')
    assert.equal(err.type, 'invalid_request_error')
    assert.match(err.message, /"demo"/)
  })
})

describe('chat completions', () => {
  test('not streamed: one chat.completion with the answer and usage', async () => {
    const c = await client.chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: 'hello there' }] })
    assert.equal(c.object, 'chat.completion')
    assert.equal(c.choices[0]!.message.content, 'Echo: hello there')
    assert.equal(c.choices[0]!.finish_reason, 'stop')
    assert.deepEqual(c.usage, { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 })
  })

  test('streamed: role first, content deltas, finish_reason stop, the usage chunk, then [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'demo',
      messages: [{ role: 'user', content: 'count 20' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    const chunks: OpenAI.ChatCompletionChunk[] = []
    for await (const c of stream) chunks.push(c)
    assert.equal(chunks[0]!.choices[0]!.delta.role, 'assistant')
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')
    assert.equal(text.trim(), Array.from({ length: 20 }, (_, i) => i + 1).join(' '))
    assert.equal(chunks.at(-2)!.choices[0]!.finish_reason, 'stop')
    assert.deepEqual(chunks.at(-1)!.choices, [])
    assert.ok(chunks.at(-1)!.usage, 'usage chunk last')
    assert.ok(chunks.every((c) => c.id === chunks[0]!.id && c.object === 'chat.completion.chunk'))
  })

  test("a client tool: finish_reason tool_calls, then the app's tool message resumes the agent", async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'ask the client' }]
    const first = await client.chat.completions.create({ model: 'demo', messages, tools: TOOLS })
    assert.equal(first.choices[0]!.finish_reason, 'tool_calls')
    const call = first.choices[0]!.message.tool_calls![0]!
    assert.equal(call.type === 'function' && call.function.name, 'get_client_info')
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify({ app: 'sdk' }) })
    const second = await client.chat.completions.create({ model: 'demo', messages, tools: TOOLS })
    assert.equal(second.choices[0]!.message.content, 'Client info: {"app":"sdk"}')
  })

  for (const [answer, said] of [
    ['{"approved": true}', 'Done: deleted notes/demo.txt.'],
    ['no', 'Not approved, so notes/demo.txt was not deleted.'],
  ] as const) {
    test(`an approval as a parlance_approval call, answered ${answer}`, async () => {
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'delete the notes' }]
      const stream = await client.chat.completions.create({ model: 'demo', messages, stream: true })
      const calls: Array<{ id?: string; function?: { name?: string; arguments?: string } }> = []
      let finish: string | null = null
      for await (const c of stream) {
        calls.push(...(c.choices[0]?.delta.tool_calls ?? []))
        finish = c.choices[0]?.finish_reason ?? finish
      }
      assert.equal(finish, 'tool_calls')
      assert.equal(calls[0]!.function!.name, 'parlance_approval')
      assert.equal((JSON.parse(calls[0]!.function!.arguments!) as { tool: string }).tool, 'delete_file')
      messages.push(
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: calls[0]!.id!, type: 'function', function: { name: 'parlance_approval', arguments: calls[0]!.function!.arguments! } }],
        },
        { role: 'tool', tool_call_id: calls[0]!.id!, content: answer },
      )
      const done = await client.chat.completions.create({ model: 'demo', messages })
      assert.equal(done.choices[0]!.message.content, said)
    })
  }

  test('a session named by metadata keeps the conversation on the server', async () => {
    const session = `oa-${Date.now()}`
    await client.chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: 'first' }], metadata: { parlance_session: session } })
    await client.chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: 'second' }], metadata: { parlance_session: session } })
    const stored = (await s.server.sessions.open(session, 'anonymous')).model.messages
    assert.deepEqual(
      stored.map((m) => [m.role, m.content]),
      [
        ['user', 'first'],
        ['assistant', 'Echo: first'],
        ['user', 'second'],
        ['assistant', 'Echo: second'],
      ],
    )
  })

  test('history sent by a stateless client seeds a new session', async () => {
    const raw = await client.chat.completions
      .create({
        model: 'demo',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'earlier' },
          { role: 'assistant', content: 'Echo: earlier' },
          { role: 'user', content: 'now' },
        ],
      })
      .withResponse()
    const session = raw.response.headers.get('x-parlance-session')!
    assert.equal(raw.data.choices[0]!.message.content, 'Echo: now')
    const stored = (await s.server.sessions.open(session, 'anonymous')).model.messages
    assert.deepEqual(
      stored.map((m) => m.content),
      ['earlier', 'Echo: earlier', 'now', 'Echo: now'],
    )
  })

  test('bad input: OpenAI-shaped 400s that name the param', async () => {
    const cases: Array<[unknown, string]> = [
      [{ model: 'demo' }, 'messages'],
      [{ model: 'demo', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] }, 'messages[0].content[0]'],
      [{ model: 'demo', messages: [{ role: 'assistant', content: 'no user turn' }] }, 'messages'],
      // Found by the HTTP fuzz: the session id is echoed in a response header, so an oversized one is refused.
      [
        { model: 'demo', messages: [{ role: 'user', content: 'hi' }], metadata: { parlance_session: 'y'.repeat(100_000) } },
        'metadata.parlance_session',
      ],
      // Found by the HTTP fuzz (100,000 bodies): invalid UTF-8 in the id reads as U+FFFD, which no header can carry (it was a 500).
      [
        { model: 'demo', messages: [{ role: 'user', content: 'hi' }], metadata: { parlance_session: '\ufffd\ufffdfz-oa' } },
        'metadata.parlance_session',
      ],
      [{ model: 'demo', messages: [{ role: 'user', content: 'hi' }], metadata: { parlance_session: 'line\nbreak' } }, 'metadata.parlance_session'],
    ]
    for (const [body, param] of cases) {
      const res = await fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      assert.equal(res.status, 400, JSON.stringify(body))
      const err = ((await res.json()) as { error: { type: string; param: string; message: string } }).error
      assert.equal(err.type, 'invalid_request_error')
      assert.equal(err.param, param, err.message)
    }
    const res = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' })
    assert.equal(res.status, 400)
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_json')
  })
})

describe('responses', () => {
  test('not streamed: a completed response with one message item and output_text', async () => {
    const r = await client.responses.create({ model: 'demo', input: 'hello responses' })
    assert.equal(r.status, 'completed')
    assert.equal(r.output_text, 'Echo: hello responses')
    assert.equal(r.output[0]!.type, 'message')
  })

  test('streamed: the documented event sequence with contiguous sequence numbers; previous_response_id continues', async () => {
    const stream = await client.responses.create({ model: 'demo', input: 'count 10', stream: true })
    const events: OpenAI.Responses.ResponseStreamEvent[] = []
    for await (const e of stream) events.push(e)
    assert.deepEqual(
      events.map((e) => e.sequence_number),
      events.map((_, i) => i),
    )
    const types = events.map((e) => e.type)
    assert.deepEqual(types.slice(0, 4), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added'])
    assert.deepEqual(types.slice(-4), ['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed'])
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent
    const text = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('')
    assert.equal(text.trim(), '1 2 3 4 5 6 7 8 9 10')
    const next = await client.responses.create({ model: 'demo', input: 'and now this', previous_response_id: completed.response.id })
    assert.equal(next.output_text, 'Echo: and now this')
    assert.equal(next.previous_response_id, completed.response.id)
    const fetched = await client.responses.retrieve(completed.response.id)
    assert.equal(fetched.status, 'completed')
    assert.equal(fetched.output_text.trim(), '1 2 3 4 5 6 7 8 9 10')
  })

  for (const approve of [true, false]) {
    test(`an approval: mcp_approval_request, answered approve=${approve} by an mcp_approval_response`, async () => {
      const asked = await client.responses.create({ model: 'demo', input: 'delete the notes' })
      const request = asked.output.find((i) => i.type === 'mcp_approval_request')
      assert.ok(request && request.type === 'mcp_approval_request', JSON.stringify(asked.output))
      assert.equal(request.name, 'delete_file')
      const answered = await client.responses.create({
        model: 'demo',
        previous_response_id: asked.id,
        input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve }],
      })
      assert.equal(answered.output_text, approve ? 'Done: deleted notes/demo.txt.' : 'Not approved, so notes/demo.txt was not deleted.')
    })
  }

  test('a function tool: a function_call item, answered by function_call_output', async () => {
    const tools = [{ type: 'function' as const, name: 'get_client_info', parameters: { type: 'object', properties: {} }, strict: false }]
    const asked = await client.responses.create({ model: 'demo', input: 'client please', tools })
    const call = asked.output.find((i) => i.type === 'function_call')
    assert.ok(call && call.type === 'function_call')
    assert.equal(call.name, 'get_client_info')
    const answered = await client.responses.create({
      model: 'demo',
      previous_response_id: asked.id,
      tools,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"app":"responses"}' }],
    })
    assert.equal(answered.output_text, 'Client info: {"app":"responses"}')
  })

  test('background: a replay from starting_after continues the stream without gap or repeat', async () => {
    const queued = await client.responses.create({ model: 'demo', input: 'count 300', background: true })
    assert.ok(queued.status === 'queued' || queued.status === 'in_progress')
    const whole: OpenAI.Responses.ResponseStreamEvent[] = []
    for await (const e of await client.responses.retrieve(queued.id, { stream: true })) whole.push(e)
    const cut = 37
    const rest: OpenAI.Responses.ResponseStreamEvent[] = []
    for await (const e of await client.responses.retrieve(queued.id, { stream: true, starting_after: cut })) rest.push(e)
    assert.deepEqual(
      rest.map((e) => e.sequence_number),
      whole.slice(cut + 1).map((e) => e.sequence_number),
    )
    assert.deepEqual(rest, whole.slice(cut + 1))
    const text = whole.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('')
    assert.equal(text.trim().split(' ').length, 300)
    assert.equal(whole.at(-1)!.type, 'response.completed')
  })

  test('cancel: a running response ends cancelled', async () => {
    const r = await client.responses.create({ model: 'demo', input: 'slow please', background: true })
    const cancelled = await client.responses.cancel(r.id)
    assert.equal(cancelled.status, 'cancelled')
    assert.equal((await client.responses.retrieve(r.id)).status, 'cancelled')
  })

  test('store: false: answered, but not kept to fetch or continue', async () => {
    const r = await client.responses.create({ model: 'demo', input: 'forget me', store: false })
    assert.equal(r.output_text, 'Echo: forget me')
    await assert.rejects(client.responses.retrieve(r.id), (e: unknown) => e instanceof OpenAI.NotFoundError)
    await assert.rejects(
      client.responses.create({ model: 'demo', input: 'again', previous_response_id: r.id }),
      (e: unknown) => e instanceof OpenAI.NotFoundError && e.param === 'previous_response_id',
    )
  })

  test('non-function tools and non-text input are refused with the param named', async () => {
    await assert.rejects(
      client.responses.create({ model: 'demo', input: 'x', tools: [{ type: 'web_search' }] }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && e.param === 'tools[0]',
    )
    await assert.rejects(
      client.responses.create({ model: 'demo', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:,', detail: 'auto' }] }] }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && e.param === 'input[0].content[0]',
    )
  })
})
