import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ERROR_CODES, ParlanceError } from '../../core/index.js'
import { error, event, notification, request, result } from './encode.js'
import { fromParlance, RPC, RPC_CODE } from './errors.js'

test('responses, requests and notifications are JSON-RPC 2.0 envelopes', () => {
  assert.deepEqual(result(1, { ok: true }), { jsonrpc: '2.0', id: 1, result: { ok: true } })
  assert.deepEqual(result('a', undefined), { jsonrpc: '2.0', id: 'a', result: null })
  assert.deepEqual(error(null, { code: -32700, message: 'Parse error' }), {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32700, message: 'Parse error' },
  })
  assert.deepEqual(request('hub_1', 'agent/request', { task: 't' }), { jsonrpc: '2.0', id: 'hub_1', method: 'agent/request', params: { task: 't' } })
  assert.deepEqual(notification('event', {}), { jsonrpc: '2.0', method: 'event', params: {} })
  // The seed's §3.5 example, built by the encoder.
  assert.deepEqual(event('task-progress', { task: 'generate-tests', progress: 50 }), {
    jsonrpc: '2.0',
    method: 'event',
    params: { event: 'task-progress', data: { task: 'generate-tests', progress: 50 } },
  })
})

test('every canonical error maps to a standard code or an application code in -32000..-32099', () => {
  const standard = new Set([-32700, -32600, -32601, -32602, -32603])
  for (const c of ERROR_CODES) {
    const n = RPC_CODE[c]
    assert.ok(standard.has(n) || (n <= -32000 && n >= -32099), `${c} → ${n}`)
  }
  const codes = Object.values(RPC).filter((n) => !standard.has(n))
  assert.equal(new Set(codes).size, codes.length, 'application codes are distinct')
  assert.deepEqual(fromParlance(new ParlanceError('not_found', 'agent not found: x', { agentId: 'x' })), {
    code: -32002,
    message: 'agent not found: x',
    data: { code: 'not_found', agentId: 'x' },
  })
})
