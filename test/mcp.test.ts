// MCP (src/dialects/mcp) driven by the official SDK's Client over StreamableHTTPClientTransport: each agent a
// tool, progress while it works, approvals through elicitation (or left pending for another client), cancel.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema, type ElicitResult, type Progress } from '@modelcontextprotocol/sdk/types.js'
import { connectMcp } from '../src/client/index.js'
import { startServer, type TestServer } from './harness.js'
import { tcpProxy } from './support/tcp-proxy.js'
import { watch } from './huma-support.js'
import { waitFor } from './support/wait.js'

/** A connected SDK client; `elicit` answers elicitation requests (and declares the capability) when given. */
async function mcpClient(s: TestServer, elicit?: (message: string) => ElicitResult): Promise<{ client: Client; asked: string[] }> {
  const client = new Client({ name: 'parlance-test', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} })
  const asked: string[] = []
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params.message)
      return elicit(req.params.message)
    })
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`)))
  return { client, asked }
}

type Structured = { sessionId: string; runId: string; status: string; state?: unknown; approvalId?: string; code?: string }
const textOf = (r: unknown) => ((r as { content: unknown }).content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('')

test('tools: one ask_<agent> per agent; a call streams progress and answers with the text, the session and the state', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const { client } = await mcpClient(s)
  t.after(() => client.close())
  const { tools } = await client.listTools()
  assert.deepEqual(
    tools.map((x) => x.name),
    ['ask_demo'],
  )
  assert.deepEqual(tools[0]!.inputSchema.required, ['message'])

  const progress: Progress[] = []
  const r = await client.callTool({ name: 'ask_demo', arguments: { message: 'count 5' } }, undefined, { onprogress: (p) => progress.push(p) })
  assert.equal(textOf(r), '1 2 3 4 5')
  const out = r.structuredContent as Structured
  assert.equal(out.status, 'completed')
  assert.ok(progress.length >= 5, `progress while it streamed (${progress.length})`)
  assert.deepEqual(
    progress.map((p) => p.progress),
    progress.map((_, i) => i + 1),
    'progress increases',
  )
  assert.ok(
    progress.some((p) => p.message?.includes('3')),
    'the streamed text as progress messages',
  )

  // The same conversation continues with its session id; the state comes back.
  const state = await client.callTool({ name: 'ask_demo', arguments: { message: 'state please', sessionId: out.sessionId } })
  assert.deepEqual(
    [(state.structuredContent as Structured).sessionId, (state.structuredContent as Structured).state],
    [out.sessionId, { counter: 1 }],
  )
  const session = await s.server.sessions.open(out.sessionId, 'anonymous')
  assert.deepEqual(
    session.model.messages.filter((m) => m.role === 'user').map((m) => m.content),
    ['count 5', 'state please'],
    'a normal Parlance session',
  )

  // A failing run is a tool error, not a protocol error; bad arguments are the SDK's own invalid-params answer,
  // which the SDK's server gives as a tool error too (not a JSON-RPC error the call would throw).
  const failed = await client.callTool({ name: 'ask_demo', arguments: { message: 'fail now' } })
  assert.equal(failed.isError, true)
  assert.match(textOf(failed), /flaky_tool/)
  const bad = await client.callTool({ name: 'ask_demo', arguments: { message: 42 } })
  assert.equal(bad.isError, true)
  assert.match(textOf(bad), /^MCP error -32602: Input validation error: Invalid arguments for tool ask_demo: .* at message$/)
})

for (const approve of [true, false]) {
  test(`an approval is asked through elicitation; ${approve ? 'accepted, the tool runs' : 'declined, it does not'}`, async (t) => {
    const s = await startServer()
    t.after(() => s.close())
    const { client, asked } = await mcpClient(s, () => (approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' }))
    t.after(() => client.close())
    const r = await client.callTool({ name: 'ask_demo', arguments: { message: 'delete my notes' } })
    assert.equal(asked.length, 1)
    assert.match(asked[0]!, /delete_file/)
    assert.match(asked[0]!, /notes\/demo\.txt/)
    if (approve) assert.equal(textOf(r), 'Done: deleted notes/demo.txt.')
    else assert.match(textOf(r), /^Not approved, so notes\/demo\.txt was not deleted\./)
  })
}

test('a client without elicitation: the call says what waits; a HAI client of the session answers it', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const { client } = await mcpClient(s)
  t.after(() => client.close())
  const r = await client.callTool({ name: 'ask_demo', arguments: { message: 'delete my notes' } })
  const out = r.structuredContent as Structured
  assert.equal(out.status, 'input-required')
  assert.match(textOf(r), /waits for approval .* delete_file/)
  const w = await watch(s, out.sessionId)
  const hai = await s.hai({ sessionId: out.sessionId, resumeAfter: 0 })
  const req = await hai.next('tool_approval_request')
  assert.equal(req.approval_id, out.approvalId)
  hai.approve(req.approval_id, true)
  await w.next((e) => e.type === 'run.finished')
  assert.ok(w.events.some((e) => e.type === 'tool.result' && e.toolName === 'delete_file'))
})

test('cancelling the call (AbortSignal → notifications/cancelled) stops the run', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const { client } = await mcpClient(s)
  t.after(() => client.close())
  const abort = new AbortController()
  const call = client.callTool({ name: 'ask_demo', arguments: { message: 'slow please', sessionId: 'mcp-cancel-test' } }, undefined, {
    signal: abort.signal,
  })
  const w = await watch(s, 'mcp-cancel-test')
  await w.next((e) => e.type === 'text.delta')
  abort.abort('enough')
  await assert.rejects(call, /enough/, 'the call ends with the reason it was aborted with')
  const end = await w.runEnd()
  assert.equal(end.type === 'run.error' ? end.code : end.type, 'cancelled')
  // The MCP session goes on.
  assert.equal(textOf(await client.callTool({ name: 'ask_demo', arguments: { message: 'count 2' } })), '1 2')
})

test('bad requests get JSON-RPC errors with the right HTTP status: unknown session 404, no session 400', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const unknown = await fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'nope' },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  })
  assert.equal(unknown.status, 404)
  assert.deepEqual(((await unknown.json()) as { error: { code: number } }).error.code, -32001)
  const none = await fetch(`${s.url}/mcp`)
  assert.equal(none.status, 400)
  const notInit = await fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  })
  assert.equal(notInit.status, 400)
  // The server is still fine.
  const { client } = await mcpClient(s)
  assert.equal((await client.listTools()).tools.length, 1)
  await client.close()
})

test('auth: connectMcp with a token; another principal can use neither the MCP session nor the Parlance session', async (t) => {
  const users: Record<string, string> = { 'alice-token': 'alice', 'bob-token': 'bob' }
  const s = await startServer({ auth: { authenticate: (_req: unknown, token: string | null) => (token ? (users[token] ?? null) : null) } })
  t.after(() => s.close())
  await assert.rejects(connectMcp({ url: s.url }), /401|nauthori/)
  const alice = await connectMcp({ url: s.url, token: 'alice-token' })
  t.after(() => alice.close())
  const r = await alice.callTool({ name: 'ask_demo', arguments: { message: 'secret plans' } })
  const sid = (r.structuredContent as Structured).sessionId
  const bob = await connectMcp({ url: s.url, token: 'bob-token' })
  t.after(() => bob.close())
  const stolen = await bob.callTool({ name: 'ask_demo', arguments: { message: 'show me', sessionId: sid } })
  assert.equal(stolen.isError, true)
  assert.match(textOf(stolen), /someone else/)
  // Bob's token on Alice's MCP session: 403.
  const aliceSession = (alice.transport as StreamableHTTPClientTransport).sessionId!
  const res = await fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': aliceSession,
      authorization: 'Bearer bob-token',
    },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  })
  assert.equal(res.status, 403)
})

test('a dropped stream resumes (Last-Event-ID): the call completes with every progress notification once, in order', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const link = await tcpProxy([{ host: '127.0.0.1', port: Number(new URL(s.url).port) }])
  t.after(() => link.close())
  const client = new Client({ name: 'parlance-test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${link.url}/mcp`), {
      reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 500, reconnectionDelayGrowFactor: 1.5, maxRetries: 20 },
    }),
  )
  t.after(() => client.close())
  const progress: Progress[] = []
  let cut = false
  const call = client.callTool({ name: 'ask_demo', arguments: { message: 'slow please' } }, undefined, {
    timeout: 30_000,
    onprogress: (p) => {
      progress.push(p)
      if (!cut && progress.length === 5) {
        cut = true
        link.cut() // the connection drops mid-stream…
        setTimeout(() => link.restore(), 300) // …and the network comes back
      }
    },
  })
  const r = await call
  assert.ok(cut)
  assert.equal(textOf(r).trim(), Array.from({ length: 50 }, (_, i) => i + 1).join(' '))
  assert.deepEqual(
    progress.map((p) => p.progress),
    progress.map((_, i) => i + 1),
    'no progress notification lost or repeated',
  )
  assert.equal(progress.filter((p) => /^\d+ $/.test(p.message ?? '')).length, 50, 'every streamed chunk once')
})

test('an idle MCP session is closed (404: initialize again); a client with its stream open keeps its own', async (t) => {
  const s = await startServer({ limits: { mcpSessionIdleMs: 300 } })
  t.after(() => s.close())
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  // A client that initializes over plain HTTP and goes away without DELETE.
  const init = await fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gone', version: '1' } },
    }),
  })
  const gone = init.headers.get('mcp-session-id')!
  await init.text()
  // The SDK client keeps its GET stream open: it is not idle, however long it waits.
  const { client } = await mcpClient(s)
  t.after(() => client.close())
  // Polled slower than idle + sweep (300 + 150 ms): a poll that finds it open counts as use and restarts its idle
  // time, so the next gap is long enough to close it. Closing it takes more than mcpSessionIdleMs after the SDK
  // client connected too, so the connected one has been idle that long when it is checked below.
  const probe = async () => {
    const res = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': gone },
      body: '{"jsonrpc":"2.0","id":9,"method":"tools/list"}',
    })
    await res.text()
    return res.status === 404
  }
  await waitFor(probe, { what: 'the idle session to be closed (404)', intervalMs: 1000, timeoutMs: 15_000 })
  assert.equal(textOf(await client.callTool({ name: 'ask_demo', arguments: { message: 'count 2' } })).trim(), '1 2', 'the connected one was kept')
})
