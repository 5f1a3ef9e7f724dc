import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { WebSocket } from 'ws'
import { HumaClient, textOf } from '../src/client/index.js'
import { startServer } from './harness.js'
import { waitFor } from './support/wait.js'
import { fuzzHttp, HTTP_TARGETS } from '../scripts/fuzz-http.js'

// Frames a hostile or broken client might send: noise, any JSON, known message types with arbitrary fields,
// prototype-pollution keys (in the JSON text, so they are real keys after parsing), deep nesting, huge strings.
const HAI_TYPES = ['user_message', 'tool_approval_response', 'tool_result', 'cancel', 'nope']
const HUMA_TYPES = ['context-update', 'tool-result', 'addon-tool-event', 'nope']
const nasty = fc.constantFrom(
  '{"type":"user_message","content":"x","session_id":"s","metadata":{"__proto__":{"polluted":true}}}',
  '{"type":"context-update","triggering":true,"name":"n","description":"d","context":{"a":{"constructor":{"prototype":{"x":1}}}}}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"type":"user_message","content":"${'x'.repeat(20_000)}","session_id":"s"}`,
  '\u0000\u0001',
  '',
  'null',
  '[]',
)
function frames(types: string[], seed: number): string[] {
  const typed = fc
    .record({ type: fc.constantFrom(...types) })
    .chain((base) =>
      fc
        .dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })
        .map((extra) => JSON.stringify({ ...extra, ...base })),
    )
  return fc.sample(fc.oneof(fc.string({ maxLength: 64 }), fc.json({ maxDepth: 4 }), typed, typed, nasty), { numRuns: 300, seed })
}

test('HAI fuzz: 300 hostile frames leave the socket open, each answered or harmless, and the server serves the next client', async (t) => {
  const s = await startServer({ limits: { connectionRatePerSec: 0, principalRatePerSec: 0, approvalTimeoutMs: 200, clientToolTimeoutMs: 200 } })
  t.after(() => s.close())
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/ws`)
  await new Promise((r) => ws.once('open', r))
  let closed = false
  ws.once('close', () => (closed = true))
  const polluted = ({} as Record<string, unknown>).polluted
  for (const f of frames(HAI_TYPES, 42)) ws.send(f)
  // A sentinel after the noise: the socket processes frames in order, so its answer means every frame was handled.
  const done = new Promise<void>((resolve) =>
    ws.on('message', (d) => {
      const m = JSON.parse((d as Buffer).toString('utf8')) as { type: string; status?: string; session_id?: string }
      if (m.type === 'status' && m.status === 'completed' && m.session_id === 'fuzz-sentinel') resolve()
    }),
  )
  ws.send(JSON.stringify({ type: 'user_message', session_id: 'fuzz-sentinel', content: 'sentinel' }))
  await done
  assert.equal(closed, false, 'the socket stayed open')
  assert.equal(polluted, undefined)
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted')
  ws.close()
  const c = await s.hai()
  c.say('after the storm')
  assert.match(textOf(await c.untilCompleted()), /Echo: after the storm/)
})

test('HUMA fuzz: 300 hostile events leave the socket connected and the session usable', async (t) => {
  const s = await startServer({
    limits: { connectionRatePerSec: 0, principalRatePerSec: 0, typingMsPerChar: 0, approvalTimeoutMs: 200, clientToolTimeoutMs: 200 },
  })
  t.after(() => s.close())
  const c = await HumaClient.connect({ url: s.url })
  t.after(() => c.close())
  for (const f of frames(HUMA_TYPES, 7)) {
    let payload: unknown = f
    try {
      payload = JSON.parse(f)
    } catch {
      // not JSON: sent as a string event
    }
    try {
      c.socket.emit('message', payload)
    } catch (err) {
      // Too deep for socket.io-client's own encoder (a stack overflow, and nothing else): send it as text.
      if (!(err instanceof RangeError)) throw err
      c.socket.emit('message', f)
    }
  }
  c.socket.emit('message', { type: 'context-update', triggering: true, name: 'sentinel', context: {}, description: 'sentinel' })
  await waitFor(() => c.received.some((e) => e.type === 'messaging' && e.event === 'message_sent' && String(e.message).includes('sentinel')), {
    what: 'the answer to the sentinel',
    timeoutMs: 10_000,
  })
  assert.ok(c.socket.connected, 'the socket stayed connected')
  assert.ok(c.errors.length > 0, 'bad events were answered on the error channel')
  assert.ok(
    c.received.some((e) => e.type === 'messaging' && e.event === 'message_sent' && String(e.message).includes('Echo: sentinel')),
    'the session still answers',
  )
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
})

// The HTTP dialects (issue 50): 300 bodies each, mutated from valid requests by the live fuzzer's own generator
// (scripts/fuzz-http.ts, which `npm run fuzz` runs 100,000 times per dialect). No 5xx, every body answered, the
// server up. A new HTTP dialect is one more entry in HTTP_TARGETS, covered here at once.
for (const target of HTTP_TARGETS) {
  test(`${target.dialect} HTTP fuzz: 300 mutated bodies, never a 5xx, each answered, the server still up`, async (t) => {
    const s = await startServer({
      limits: { connectionRatePerSec: 0, principalRatePerSec: 0, typingMsPerChar: 0, approvalTimeoutMs: 200, clientToolTimeoutMs: 200 },
    })
    t.after(() => s.close())
    const r = await fuzzHttp(s.url, target, 300, { seed: 7, concurrency: 8, timeoutMs: 30_000 })
    assert.deepEqual(r.failures, [], `5xx or unanswered: ${JSON.stringify(r.statuses)}`)
    assert.equal(r.serverErrors, 0)
    assert.equal(r.noAnswer, 0)
    assert.equal(r.sent, 300)
    assert.ok((r.statuses['200'] ?? 0) > 0, `the valid bodies among them were served: ${JSON.stringify(r.statuses)}`)
    assert.ok(r.healthy)
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted')
  })
}

test('MCP: cancellations racing their calls (sent 0–4 ms after each) never throw out of the abort listener', async (t) => {
  // Found by the HTTP fuzz: a `notifications/cancelled` arriving after a fast run ended but before its events
  // reached the call made `run.cancel` throw synchronously inside an abort listener, an uncaught exception that
  // ended the process.
  const s = await startServer({ limits: { connectionRatePerSec: 0, principalRatePerSec: 0 } })
  t.after(() => s.close())
  const mcp = HTTP_TARGETS.find((x) => x.dialect === 'mcp')!
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(await mcp.prepare!(s.url)) }
  const post = (body: unknown) =>
    fetch(`${s.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) })
      .then((r) => r.text())
      .catch(() => '') // a cancelled call's stream gets no answer (MCP): the client gives up on it
  const sent: Array<Promise<unknown>> = []
  for (let k = 1; k <= 100; k++) {
    sent.push(post({ jsonrpc: '2.0', id: k, method: 'tools/call', params: { name: 'ask_demo', arguments: { message: 'hello', sessionId: 'race' } } }))
    const wait = k % 5
    sent.push(
      // eslint-disable-next-line no-restricted-syntax -- the stagger is the race under test: cancels 0–4 ms after their calls
      new Promise((r) => setTimeout(r, wait)).then(() =>
        post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: k, reason: 'r' } }),
      ),
    )
  }
  await Promise.all(sent)
  assert.equal((await fetch(`${s.url}/healthz`)).status, 200)
})
