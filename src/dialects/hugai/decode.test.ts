import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import { DEFAULT_LIMITS } from '../../core/index.js'
import { classify, MAX_BATCH, parse, type Inbound } from './decode.js'

const FIXTURES = new URL('./fixtures/', import.meta.url)
const depth = DEFAULT_LIMITS.maxJsonDepth
const read = (dir: string, f: string) => readFileSync(new URL(`${dir}/${f}`, FIXTURES), 'utf8')
const only = (text: string, maxBytes?: number): Inbound => {
  const p = parse(text, depth, maxBytes)
  assert.equal(p.batch, false)
  return p.items[0]
}

/** What each seed example must classify as. */
const SEED: Record<string, { kind: 'request' | 'notification'; method: string; id?: number }> = {
  'initialize.json': { kind: 'request', method: 'initialize', id: 1 },
  'agent-register.json': { kind: 'request', method: 'agent/register', id: 2 },
  'agent-request.json': { kind: 'request', method: 'agent/request', id: 3 },
  'event.json': { kind: 'notification', method: 'event' },
  'governance-approval.json': { kind: 'request', method: 'governance/approval', id: 4 },
  'tool-integration.json': { kind: 'request', method: 'tool/integration', id: 5 },
  'audit-log.json': { kind: 'notification', method: 'audit/log' },
}

test('every seed example is a valid request or notification of its method, params kept as sent', () => {
  const files = readdirSync(new URL('seed/', FIXTURES)).sort()
  assert.deepEqual(files, Object.keys(SEED).sort())
  for (const f of files) {
    const text = read('seed', f)
    const m = only(text)
    const want = SEED[f]!
    assert.equal(m.kind, want.kind, `${f}: ${JSON.stringify(m)}`)
    if (m.kind !== 'request' && m.kind !== 'notification') continue
    assert.equal(m.method, want.method)
    if (m.kind === 'request') assert.equal(m.id, want.id)
    assert.deepEqual(m.params, (JSON.parse(text) as { params: unknown }).params)
  }
})

test('every invalid fixture gets its JSON-RPC code, its id and names the field', () => {
  const expected = JSON.parse(read('invalid', 'expected.json')) as Record<string, { code: number; id: number | string | null; field?: string }>
  const files = readdirSync(new URL('invalid/', FIXTURES)).filter((f) => f !== 'expected.json')
  assert.deepEqual(files.sort(), Object.keys(expected).sort())
  for (const f of files) {
    const m = only(read('invalid', f))
    const want = expected[f]!
    assert.equal(m.kind, 'invalid', f)
    if (m.kind !== 'invalid') continue
    assert.equal(m.error.code, want.code, `${f}: ${m.error.message}`)
    assert.equal(m.id, want.id, f)
    assert.equal((m.error.data as { field?: string } | undefined)?.field, want.field, `${f}: ${JSON.stringify(m.error)}`)
    assert.ok(m.error.message.length > 0)
  }
})

test('ids: string, number and null are kept; a notification is marked so even when invalid', () => {
  const base = { jsonrpc: '2.0', method: 'agent/list' }
  for (const id of ['abc', 0, -7, Number.MAX_SAFE_INTEGER, null])
    assert.deepEqual(classify({ ...base, id }, depth), { kind: 'request', id, method: 'agent/list', params: undefined })
  // Not ids: a fraction, an integer a JSON number does not hold exactly, a string over 256 characters, anything else.
  for (const id of [-1.5, 2 ** 53, 'x'.repeat(257), true, [1], { id: 1 }]) {
    const odd = classify({ ...base, id }, depth)
    assert.ok(odd.kind === 'invalid' && odd.id === null && odd.error.code === -32600, JSON.stringify(odd))
  }
  assert.deepEqual(classify(base, depth), { kind: 'notification', method: 'agent/list', params: undefined })
  const bad = classify({ jsonrpc: '2.0', method: 'nope' }, depth)
  assert.ok(bad.kind === 'invalid' && bad.notification && bad.error.code === -32601)
  const badParams = classify({ jsonrpc: '2.0', method: 'audit/log', params: {} }, depth)
  assert.ok(badParams.kind === 'invalid' && badParams.notification && badParams.error.code === -32602)
})

test('responses from a peer are classified, with their result or error', () => {
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 'hub_1', result: { ok: 1 } }, depth), { kind: 'response', id: 'hub_1', result: { ok: 1 } })
  const e = { code: -32000, message: 'no' }
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 'hub_2', error: e }, depth), { kind: 'response', id: 'hub_2', result: undefined, error: e })
})

test('batches: each item classified in order; empty or oversized batch is one -32600', () => {
  const p = parse(
    JSON.stringify([{ jsonrpc: '2.0', method: 'agent/list', id: 1 }, { jsonrpc: '2.0', method: 'event', params: { event: 'x' } }, 5]),
    depth,
  )
  assert.equal(p.batch, true)
  assert.deepEqual(
    p.items.map((i) => i.kind),
    ['request', 'notification', 'invalid'],
  )
  const huge = parse(JSON.stringify(Array.from({ length: MAX_BATCH + 1 }, () => ({ jsonrpc: '2.0', method: 'agent/list' }))), depth)
  assert.ok(!huge.batch && huge.items[0].kind === 'invalid' && huge.items[0].error.code === -32600)
})

test('size is checked before parsing; depth and forbidden keys are invalid params naming the path', () => {
  const big = JSON.stringify({
    jsonrpc: '2.0',
    method: 'audit/log',
    id: 1,
    params: { action: 'a', actor: 'b', timestamp: '2024-06-01T12:34:56Z', details: { x: 'é'.repeat(600) } },
  })
  const m = only(big, 1000)
  assert.ok(m.kind === 'invalid' && m.error.code === -32600 && m.id === null, JSON.stringify(m))
  assert.equal(only(big, 10_000).kind, 'request')
  let deep: unknown = 1
  for (let i = 0; i < depth + 2; i++) deep = { d: deep }
  const d = only(JSON.stringify({ jsonrpc: '2.0', method: 'tool/integration', id: 2, params: { tool: 't', action: 'a', data: deep } }))
  assert.ok(d.kind === 'invalid' && d.error.code === -32602 && String((d.error.data as { field: string }).field).startsWith('params.data.d'))
})

test('enum errors list the allowed values', () => {
  const m = classify(
    { jsonrpc: '2.0', id: 1, method: 'agent/request', params: { sourceAgent: 'a', targetAgent: 'b', task: 't', priority: 'urgent' } },
    depth,
  )
  assert.ok(m.kind === 'invalid')
  assert.match(m.error.message, /params\.priority must be one of low, medium, high, critical/)
})
