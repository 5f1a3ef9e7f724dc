// Odd JSON-RPC ids and deep bodies over HTTP, per JSON-RPC dialect (issue 50): A2A, MCP and HugAI answer an id
// that is not a string of at most 256 characters or a safe integer (or null, where allowed) with -32600 Invalid
// Request and id null, in each transport's HTTP status (A2A and HugAI 200, as their JSON-RPC answers every
// request error; MCP's Streamable HTTP 400), never a 500; the server stays up. The shared rule is
// `rpcEnvelopeError` / `classifyRpc` in src/core/jsonrpc.ts.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startServer } from './harness.js'

interface Dialect {
  name: string
  path: string
  headers: Record<string, string>
  /** A valid request with `id` spliced in as raw JSON text. */
  body(id: string): string
  /** HTTP status of an Invalid Request. */
  invalidStatus: number
  /** A null id is a valid id (JSON-RPC allows it; MCP does not). */
  nullId: boolean
}

const DIALECTS: Dialect[] = [
  {
    name: 'A2A',
    path: '/a2a/demo',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: (id) => `{"jsonrpc":"2.0","id":${id},"method":"GetTask","params":{"id":"no-such-task"}}`,
    invalidStatus: 200,
    nullId: true,
  },
  {
    name: 'MCP',
    path: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: (id) =>
      `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
    invalidStatus: 400,
    nullId: false,
  },
  {
    name: 'HugAI',
    path: '/rpc',
    headers: { 'content-type': 'application/json' },
    body: (id) => `{"jsonrpc":"2.0","id":${id},"method":"agent/list","params":{}}`,
    invalidStatus: 200,
    nullId: true,
  },
]

const nested = (depth: number, open: string, close: string, inner = '1') => open.repeat(depth) + inner + close.repeat(depth)

/** Ids no dialect accepts, as raw JSON text. */
const ODD: Array<[string, string]> = [
  ['an array nested 5,000 deep', nested(5_000, '[', ']')],
  ['an object nested 2,000 deep', nested(2_000, '{"a":', '}')],
  ['a nested array', '[[1]]'],
  ['an empty array', '[]'],
  ['an object', '{"id":1}'],
  ['true', 'true'],
  ['false', 'false'],
  ['a fraction', '1.5'],
  ['a negative fraction', '-0.25'],
  ['an exponent past 2^53', '1e300'],
  ['an integer past 2^53', '123456789012345678901234567890'],
  ['2^53', '9007199254740992'],
  ['a string of 257 characters', JSON.stringify('x'.repeat(257))],
  ['a string of 100,000 characters', JSON.stringify('y'.repeat(100_000))],
]

/** Ids every dialect accepts. */
const VALID: Array<[string, string]> = [
  ['a short string', '"abc"'],
  ['an empty string', '""'],
  ['a string of 256 characters', JSON.stringify('z'.repeat(256))],
  ['0', '0'],
  ['a negative integer', '-7'],
  ['2^53 - 1', '9007199254740991'],
]

interface Answer {
  status: number
  body: { id?: unknown; error?: { code: number; message: string } } | undefined
}

async function post(url: string, d: Dialect, body: string): Promise<Answer> {
  const res = await fetch(url + d.path, { method: 'POST', headers: d.headers, body })
  const text = await res.text()
  // MCP answers a valid initialize as an SSE stream: its one event's data is the response.
  const json = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)?.[1]
  return { status: res.status, body: json ? (JSON.parse(json) as Answer['body']) : undefined }
}

for (const d of DIALECTS) {
  test(`${d.name}: odd ids are -32600 Invalid Request with id null (HTTP ${d.invalidStatus}); valid ids are answered as usual`, async (t) => {
    const s = await startServer()
    t.after(() => s.close())
    const invalid = async (what: string, id: string) => {
      const a = await post(s.url, d, d.body(id))
      assert.equal(a.status, d.invalidStatus, `${what}: HTTP status`)
      assert.equal(a.body?.error?.code, -32600, `${what}: ${JSON.stringify(a.body).slice(0, 200)}`)
      assert.equal(a.body?.id, null, `${what}: id`)
    }
    for (const [what, id] of ODD) await invalid(what, id)
    const answered = async (what: string, id: string) => {
      const a = await post(s.url, d, d.body(id))
      assert.ok(a.status < 500, `${what}: HTTP ${a.status}`)
      assert.notEqual(a.body?.error?.code, -32600, `${what}: ${JSON.stringify(a.body).slice(0, 200)}`)
      assert.deepEqual(a.body?.id, JSON.parse(id), `${what}: the id echoed`)
    }
    for (const [what, id] of VALID) await answered(what, id)
    if (d.nullId) await answered('null', 'null')
    else await invalid('null', 'null')
    // Still up: a valid request afterwards is answered.
    await answered('a request after the odd ones', '42')
  })

  test(`${d.name}: a body nested deeper than the limit is a JSON-RPC error naming the depth, never a 500`, async (t) => {
    const s = await startServer()
    t.after(() => s.close())
    const deepest = `"deep":${nested(5_000, '[', ']')}`
    const deep = d.body('9').replace(/"params":\{(\}?)/, (_, empty: string) => `"params":{${deepest}${empty ? '}' : ','}`)
    const a = await post(s.url, d, deep)
    assert.ok(a.status < 500, `HTTP ${a.status}`)
    // HugAI, which parses its own bodies, checks params with the method (-32602 Invalid params); A2A and MCP, whose
    // SDKs parse theirs, have the whole body checked before (-32600 Invalid Request).
    assert.equal(a.body?.error?.code, d.name === 'HugAI' ? -32602 : -32600, JSON.stringify(a.body).slice(0, 300))
    assert.equal(a.body?.id, 9)
    assert.match(a.body?.error?.message ?? '', /deeper than/)
  })
}
