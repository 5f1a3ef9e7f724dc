import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai'
import { startServer } from './harness.js'

type Part = UIMessage['parts'][number] & Record<string, unknown>

/** Sends through the `ai` package's own transport and reads its stream with its own reader; the final assistant message. */
async function send(url: string, chatId: string, messages: UIMessage[], continueFrom?: UIMessage): Promise<UIMessage> {
  const transport = new DefaultChatTransport({ api: `${url}/api/chat` })
  const stream = await transport.sendMessages({ chatId, trigger: 'submit-message', messageId: undefined, messages, abortSignal: undefined })
  let last: UIMessage | undefined
  for await (const m of readUIMessageStream({ stream, ...(continueFrom ? { message: continueFrom } : {}), terminateOnError: false })) last = m
  assert.ok(last, 'the stream produced an assistant message')
  return last
}
const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })
const textOf = (m: UIMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')
const tools = (m: UIMessage) => m.parts.filter((p) => p.type === 'dynamic-tool') as Part[]

test('useChat body in, UI message stream out (read by the ai package): text, tool parts, data parts', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const hello = await send(s.url, 'chat-1', [user('u1', 'hello ai sdk')])
  assert.equal(textOf(hello), 'Echo: hello ai sdk')
  const weather = await send(s.url, 'chat-1', [user('u1', 'hello ai sdk'), hello, user('u2', 'weather in Lisbon')])
  const call = tools(weather)[0]!
  assert.equal(call.toolName, 'get_weather')
  assert.equal(call.state, 'output-available')
  assert.deepEqual(call.output, { city: 'Lisbon', temperature_c: 18, conditions: 'cloudy' })
  assert.match(textOf(weather), /Lisbon is cloudy/)
  const state = await send(s.url, 'chat-1', [user('u3', 'state')])
  assert.deepEqual((state.parts.find((p) => p.type === 'data-state') as Part).data, { counter: 0 })
  const res = await fetch(`${s.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'chat-1', messages: [user('u4', 'x')] }),
  })
  assert.equal(res.headers.get('x-vercel-ai-ui-message-stream'), 'v1')
  assert.match(await res.text(), /data: \[DONE\]\n\n$/)
})

test('client tool: the stream ends at the call; the next request carrying the output part resumes the agent', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const first = await send(s.url, 'chat-2', [user('u1', 'client')])
  const call = tools(first)[0]!
  assert.equal(call.toolName, 'get_client_info')
  assert.equal(call.state, 'input-available')
  const answered: UIMessage = {
    ...first,
    parts: first.parts.map((p) => (p === call ? ({ ...call, state: 'output-available', output: { os: 'test' } } as never) : p)),
  }
  const second = await send(s.url, 'chat-2', [user('u1', 'client'), answered], answered)
  assert.match(textOf(second), /Client info: \{"os":"test"\}/)
})

for (const approved of [true, false]) {
  test(`approval the AI SDK way: tool-approval-request, answered in the next request (${approved ? 'approved' : 'denied'})`, async (t) => {
    const s = await startServer()
    t.after(() => s.close())
    const first = await send(s.url, 'chat-3', [user('u1', 'delete it')])
    const asking = tools(first).find((p) => p.state === 'approval-requested')!
    assert.equal(asking.toolName, 'delete_file')
    const approval = asking.approval as { id: string }
    const responded: UIMessage = {
      ...first,
      parts: first.parts.map((p) =>
        p === asking
          ? ({ ...asking, state: 'approval-responded', approval: { id: approval.id, approved, reason: approved ? undefined : 'no' } } as never)
          : p,
      ),
    }
    const second = await send(s.url, 'chat-3', [user('u1', 'delete it'), responded], responded)
    assert.match(textOf(second), approved ? /Done: deleted notes\/demo\.txt/ : /Not approved/)
  })
}

test('resume: GET /api/chat/:id/stream re-attaches to the active stream (ai reconnectToStream); 204 when none; errors are JSON', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const transport = new DefaultChatTransport({ api: `${s.url}/api/chat` })
  // A chat the server has not seen yet (useChat({ resume: true }) asks on every page load, before the first
  // message) has nothing to resume: 204, which the transport reads as null — not an error.
  assert.equal(await transport.reconnectToStream({ chatId: 'nobody-yet' }), null)
  const ac = new AbortController()
  const stream = await transport.sendMessages({
    chatId: 'chat-4',
    trigger: 'submit-message',
    messageId: undefined,
    messages: [user('u1', 'slow')],
    abortSignal: ac.signal,
  })
  const reader = stream.getReader()
  for (let n = 0; n < 6; n++) await reader.read()
  ac.abort()
  const again = await transport.reconnectToStream({ chatId: 'chat-4' })
  assert.ok(again, 'an active stream to re-attach to')
  let last: UIMessage | undefined
  for await (const m of readUIMessageStream({ stream: again })) last = m
  assert.equal(textOf(last!), Array.from({ length: 50 }, (_, i) => `${i + 1} `).join(''))
  assert.equal(await transport.reconnectToStream({ chatId: 'chat-4' }), null, 'no active stream: 204')
  const bad = await fetch(`${s.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'c', messages: [{ id: 'm', role: 'robot', parts: [] }] }),
  })
  assert.equal(bad.status, 400)
  assert.equal(((await bad.json()) as { error: { field: string } }).error.field, 'messages[0].role')
})
