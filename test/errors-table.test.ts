// Issue 37, item 3: A2A and MCP answer Parlance's canonical errors through one total table each (src/dialects/
// {a2a,mcp}/errors.ts); a rate limit is JSON-RPC -32029 with HTTP 429, seen through the official clients.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ERROR_CODES, PARLANCE_RPC_CODES } from '../src/core/index.js'
import { connectA2a, connectMcp } from '../src/client/index.js'
import { A2A_ERRORS } from '../src/dialects/a2a/errors.js'
import { MCP_ERRORS } from '../src/dialects/mcp/errors.js'
import { RPC_CODE as HUGAI_RPC } from '../src/dialects/hugai/errors.js'
import { startServer } from './harness.js'

/** A2A's own JSON-RPC codes (A2A 1.0): Parlance's application codes must not reuse them for another meaning. */
const A2A_RESERVED = new Set([-32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009])

test('the tables: every canonical code answered, rate limits as -32029 / 429, Parlance codes clear of A2A and MCP', () => {
  for (const code of ERROR_CODES) {
    for (const [name, table] of [
      ['a2a', A2A_ERRORS],
      ['mcp', MCP_ERRORS],
    ] as const) {
      const w = table[code]
      assert.ok(Number.isInteger(w.code) && w.code <= -32000 && w.code >= -32768, `${name} ${code}: a JSON-RPC code, got ${w.code}`)
      assert.ok(w.status >= 200 && w.status < 600, `${name} ${code}: an HTTP status`)
    }
  }
  assert.deepEqual(
    [A2A_ERRORS.rate_limited, MCP_ERRORS.rate_limited],
    [
      { code: -32029, status: 429 },
      { code: -32029, status: 429 },
    ],
  )
  assert.notEqual(A2A_ERRORS.internal.code, A2A_ERRORS.rate_limited.code)
  for (const c of Object.values(PARLANCE_RPC_CODES) as number[]) {
    assert.ok(!A2A_RESERVED.has(c) && c !== -32000 && c !== -32042, `${c} collides with a protocol's own code`)
  }
  assert.equal(new Set(Object.values(PARLANCE_RPC_CODES)).size, Object.keys(PARLANCE_RPC_CODES).length, 'distinct codes')
  // HugAI keeps its hub's numbers; its rate limit is its own code, not "internal".
  assert.notEqual(HUGAI_RPC.rate_limited, HUGAI_RPC.internal)
})

test('A2A: the official client hears a rate limit as HTTP 429 with JSON-RPC -32029, not -32603 internal', async (t) => {
  // Three requests a minute per address, refilled too slowly to matter in the test.
  const s = await startServer({ limits: { principalRatePerSec: 0.001, principalBurst: 3 } })
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url })
  const errors: Array<{ envelopeCode?: number; data?: unknown; message: string }> = []
  for (let i = 0; i < 4; i++) {
    try {
      await c.getTask({ tenant: '', id: `no-such-task-${i}`, historyLength: undefined })
    } catch (err) {
      errors.push(err as { envelopeCode?: number; data?: unknown; message: string })
    }
  }
  assert.equal(errors.length, 4, 'three unknown tasks, then the refusal')
  assert.equal(errors[0]!.envelopeCode, -32001, 'task not found (the SDK)')
  assert.equal(errors[3]!.envelopeCode, -32029, `the client reads the rate-limit code: ${errors[3]!.message}`)
  assert.deepEqual((errors[3]!.data as { code: string }).code, 'rate_limited')
  assert.match(errors[3]!.message, /too many messages/)
  // The same answer on the wire, with the canonical code in data.
  const raw = await fetch(`${s.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: '{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"x"}}',
  })
  assert.equal(raw.status, 429)
  const body = (await raw.json()) as { error: { code: number; data: { code: string; retryAfterMs: number } } }
  assert.deepEqual([body.error.code, body.error.data.code, typeof body.error.data.retryAfterMs], [-32029, 'rate_limited', 'number'])
})

test('MCP: the official client hears a rate limit as HTTP 429 with JSON-RPC -32029', async (t) => {
  const s = await startServer({ limits: { principalRatePerSec: 0.001, principalBurst: 3 } })
  t.after(() => s.close())
  // initialize and notifications/initialized take two tokens, tools/list the third.
  const client = await connectMcp({ url: s.url })
  t.after(() => client.close())
  assert.equal((await client.listTools()).tools.length, 1)
  const refused = await client.callTool({ name: 'ask_demo', arguments: { message: 'hi' } }).then(
    () => null,
    (err: unknown) => err as Error,
  )
  assert.ok(refused, 'the fourth request is refused')
  assert.equal((refused as Error & { code?: number }).code, 429, `the client reports HTTP 429: ${refused.message}`)
  assert.match(refused.message, /"code":-32029/, refused.message)
  // Other errors come from the same table: an unknown MCP session is the SDK's own -32001 with 404.
  const unknown = await fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'nope' },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  })
  assert.deepEqual(
    [unknown.status, ((await unknown.json()) as { error: { code: number; data: { code: string } } }).error],
    [
      404,
      {
        code: -32001,
        message: 'MCP session not found: nope (it ended, or this server restarted): initialize a new one',
        data: { code: 'not_found' },
      },
    ],
  )
})
