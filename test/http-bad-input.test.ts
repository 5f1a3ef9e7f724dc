// Bad input on the HTTP dialects that had no test of it (issue 40): a malformed, oversized (413) or wrongly typed
// (415) body to /api/chat and /mcp is answered in the dialect's own error shape with the right status, the server
// stays up, and bad tool arguments sent by the official MCP SDK client are a tool error naming the argument,
// after which the same MCP session still works.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { startServer, type TestServer } from './harness.js'

const MAX = 64 * 1024

/** A body sent in chunks with no Content-Length, so the limit must hold while it is read. */
function chunked(text: string): { body: ReadableStream<Uint8Array>; duplex: 'half' } {
  const bytes = new TextEncoder().encode(text)
  let at = 0
  return {
    duplex: 'half',
    body: new ReadableStream({
      pull(c) {
        if (at >= bytes.length) return c.close()
        c.enqueue(bytes.subarray(at, (at += 16 * 1024)))
      },
    }),
  }
}

async function post(s: TestServer, path: string, body: string | ReturnType<typeof chunked>, contentType = 'application/json') {
  const headers = { 'content-type': contentType, accept: 'application/json, text/event-stream' }
  const res = await fetch(`${s.url}${path}`, { method: 'POST', headers, ...(typeof body === 'string' ? { body } : body) })
  const type = res.headers.get('content-type') ?? ''
  const text = await res.text()
  return { status: res.status, type, text, body: (type.startsWith('application/json') ? JSON.parse(text) : {}) as Record<string, unknown> }
}

const chatBody = (text: string) => JSON.stringify({ id: 'chat-big', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }] })
const rpcInit = (pad: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1', pad } },
  })

test('/api/chat: malformed JSON 400, oversized 413 (declared or streamed), wrong content-type 415, bad shape 400 naming the field', async (t) => {
  const s = await startServer({ limits: { maxFrameBytes: MAX } })
  t.after(() => s.close())
  const malformed = await post(s, '/api/chat', '{"id":')
  assert.equal(malformed.status, 400)
  assert.equal((malformed.body.error as { code: string }).code, 'invalid_json')
  const declared = await post(s, '/api/chat', chatBody('x'.repeat(MAX)))
  assert.equal(declared.status, 413)
  assert.equal((declared.body.error as { code: string }).code, 'frame_too_large')
  const streamed = await post(s, '/api/chat', chunked(chatBody('x'.repeat(MAX))))
  assert.equal(streamed.status, 413)
  assert.equal((streamed.body.error as { code: string }).code, 'frame_too_large')
  const typed = await post(s, '/api/chat', chatBody('hello'), 'text/plain')
  assert.equal(typed.status, 415)
  assert.match((typed.body.error as { message: string }).message, /content-type must be application\/json/)
  const shape = await post(s, '/api/chat', JSON.stringify({ id: 'chat-1', messages: [{ role: 'user', parts: [] }] }))
  assert.equal(shape.status, 400)
  assert.deepEqual(
    [(shape.body.error as { code: string }).code, (shape.body.error as { field: string }).field],
    ['invalid_message', 'messages[0].id'],
  )
  // Issue 46: an HTTP body is a body, not a frame; an empty conversation has nothing to answer.
  assert.match((malformed.body.error as { message: string }).message, /^body is not valid JSON: /)
  const empty = await post(s, '/api/chat', JSON.stringify({ id: 'chat-empty', messages: [] }))
  assert.equal(empty.status, 400)
  assert.deepEqual([(empty.body.error as { code: string }).code, (empty.body.error as { field: string }).field], ['invalid_message', 'messages'])
  assert.match((empty.body.error as { message: string }).message, /messages is empty/)
  assert.deepEqual(await s.server.sessions.store.read('chat-empty', 0, 100), [])
  const agui = await post(s, '/agui', '{"threadId":')
  assert.equal(agui.status, 400)
  assert.match((agui.body.error as { message: string }).message, /^body is not valid JSON: /)
  for (const r of [malformed, declared, streamed, typed, shape, empty, agui]) assert.match(r.type, /^application\/json/)
  // Nothing was recorded for the refused bodies, and the endpoint still answers a good one.
  assert.deepEqual(await s.server.sessions.store.read('chat-big', 0, 100), [])
  const ok = await fetch(`${s.url}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody('hello') })
  assert.equal(ok.status, 200)
  const deltas = [...(await ok.text()).matchAll(/"type":"text-delta","id":"[^"]+","delta":"([^"]*)"/g)].map((m) => m[1]).join('')
  assert.equal(deltas, 'Echo: hello')
})

test('/mcp: malformed JSON is a -32700 parse error (400), oversized 413, wrong content-type 415, in JSON-RPC shape', async (t) => {
  const s = await startServer({ limits: { maxFrameBytes: MAX } })
  t.after(() => s.close())
  const malformed = await post(s, '/mcp', '{"jsonrpc":')
  assert.equal(malformed.status, 400)
  assert.equal((malformed.body.error as { code: number }).code, -32700)
  // Past Parlance's frame limit (not only the SDK's own 4 MiB default), declared or streamed.
  const declared = await post(s, '/mcp', rpcInit('x'.repeat(MAX)))
  assert.equal(declared.status, 413, JSON.stringify(declared.body))
  const streamed = await post(s, '/mcp', chunked(rpcInit('x'.repeat(MAX))))
  assert.equal(streamed.status, 413, JSON.stringify(streamed.body))
  const typed = await post(s, '/mcp', rpcInit(''), 'text/plain')
  assert.equal(typed.status, 415)
  for (const r of [malformed, declared, streamed, typed]) {
    assert.equal(r.body.jsonrpc, '2.0')
    assert.equal(r.body.id, null)
    assert.match(r.type, /^application\/json/)
  }
  // Under the limit, the same initialize is accepted.
  const ok = await post(s, '/mcp', rpcInit('x'.repeat(1000)))
  assert.equal(ok.status, 200, ok.text)
  assert.match(ok.text, /"result":\{"protocolVersion"/)
})

test('MCP SDK client: bad tool arguments are a tool error naming the argument (-32602), nothing runs, and the session goes on', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const client = new Client({ name: 'parlance-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`)))
  t.after(() => client.close())
  const bad = async (args: Record<string, unknown>, field: RegExp) => {
    const r = (await client.callTool({ name: 'ask_demo', arguments: args })) as { isError?: boolean; content: Array<{ text?: string }> }
    assert.equal(r.isError, true, JSON.stringify(r))
    const text = r.content.map((c) => c.text ?? '').join('')
    assert.match(text, /-32602/)
    assert.match(text, field)
  }
  await bad({ message: 123 }, /at message/)
  await bad({}, /at message/)
  await bad({ message: '' }, /at message/)
  await bad({ message: 'x'.repeat(10_001) }, /at message/) // maxUserMessageChars, as every other dialect enforces it
  await bad({ message: 'hi', onBusy: 'later' }, /at onBusy/)
  await bad({ message: 'hi', sessionId: 'x'.repeat(300) }, /at sessionId/)
  const unknown = (await client.callTool({ name: 'ask_nobody', arguments: { message: 'hi' } })) as {
    isError?: boolean
    content: Array<{ text?: string }>
  }
  assert.equal(unknown.isError, true)
  assert.match(unknown.content[0]!.text ?? '', /Tool ask_nobody not found/)
  assert.equal(s.server.sessions.loadedCount, 0, 'no session was opened for a refused call')
  const good = (await client.callTool({ name: 'ask_demo', arguments: { message: 'hello' } })) as {
    isError?: boolean
    content: Array<{ text?: string }>
  }
  assert.notEqual(good.isError, true)
  assert.equal(good.content[0]!.text, 'Echo: hello')
})
