import assert from 'node:assert/strict'
import { test } from 'node:test'
import { demoAgent } from '../src/index.js'
import { RpcError } from '../src/client/index.js'
import { startServer } from './harness.js'
import {
  ciAgent,
  connect,
  INIT,
  post,
  rpcCode,
  seed,
  type AuditPage,
  type TaskRequestParams,
  type InitializeResult,
  type RpcAnswer,
  type RpcResult,
} from './hugai-support.js'

test('every seed example gets its JSON-RPC answer over WebSocket', async (t) => {
  const s = await startServer({ agents: [demoAgent, ciAgent] })
  t.after(() => s.close())
  const c = await connect(s, null)
  t.after(() => c.close())
  // §3.1 initialize
  const i = seed('initialize')
  c.sendRaw(i)
  const init = (await c.nextRaw()) as RpcResult<InitializeResult>
  assert.equal(init.id, 1)
  assert.equal(init.result.protocolVersion, '2.0')
  assert.deepEqual(init.result.methods, [
    'initialize',
    'agent/register',
    'agent/list',
    'agent/request',
    'task/cancel',
    'task/regenerate',
    'event',
    'governance/approval',
    'tool/integration',
    'audit/log',
    'audit/query',
  ])
  assert.deepEqual(
    init.result.agents.map((a) => a.agentId),
    ['demo', 'ci'],
  )
  assert.deepEqual(init.result.session, {
    peerId: init.result.session.peerId,
    agentId: 'demo-agent-1',
    governanceLevel: 'supervised',
    approver: false,
  })
  // §3.2 agent/register: dependencies nobody provides are reported
  c.sendRaw(seed('agent-register'))
  assert.deepEqual(await c.nextRaw(), {
    jsonrpc: '2.0',
    id: 2,
    result: { registered: true, agentId: 'advanced-agent-1', missingDependencies: ['test-agent', 'review-agent'] },
  })
  // §3.3 agent/request to test-agent-2, registered by another connection
  const worker = await connect(s, { agentId: 'test-agent-2' })
  t.after(() => worker.close())
  await worker.call('agent/register', { agentId: 'test-agent-2', capabilities: { testing: true }, governanceLevel: 'supervised' })
  worker.handle('agent/request', (params) => {
    const p = params as TaskRequestParams & { context: { file: string } }
    return { tests: [`${p.context.file}: 3 tests`], task: p.task }
  })
  c.sendRaw(seed('agent-request'))
  const reply = (await c.nextRaw()) as RpcResult<{ result: unknown }>
  assert.equal(reply.id, 3)
  assert.deepEqual(reply.result.result, { tests: ['main.ts: 3 tests'], task: 'generate-tests' })
  // §3.5 event and §3.8 audit/log are notifications: no answer. The next answer is the one for id 4.
  c.sendRaw(seed('event'))
  c.sendRaw(seed('audit-log'))
  // §3.6 governance/approval for a checkpoint nobody is waiting on: recorded, kept for one raised later
  c.sendRaw(seed('governance-approval'))
  assert.deepEqual(await c.nextRaw(), {
    jsonrpc: '2.0',
    id: 4,
    result: { checkpoint: 'code-review', decision: 'approved', recorded: true, matched: false, appliesToCheckpointsRaisedWithinMs: 600_000 },
  })
  // §3.7 tool/integration with callback "event": accepted, then the result as an event notification
  c.sendRaw(seed('tool-integration'))
  const accepted = (await c.nextRaw()) as RpcResult<{ accepted: boolean; invocationId: string }>
  assert.equal(accepted.id, 5)
  assert.equal(accepted.result.accepted, true)
  const ev = await c.nextNotification((n) => n.params.event === 'tool-result')
  assert.deepEqual(ev.params.data, {
    invocationId: accepted.result.invocationId,
    tool: 'ci-pipeline',
    action: 'run-tests',
    status: 'success',
    result: { branch: 'feature-x', passed: 12, failed: 0 },
  })
  const audit = await c.call<AuditPage>('audit/query', { actor: 'user-123' })
  assert.deepEqual(
    audit.entries.map((e) => [e.action, e.target]),
    [
      ['approval', 'main.ts'], // audit/log's own timestamp (2024) sorts first
      ['approval', 'code-review'],
    ],
  )
  assert.equal(audit.entries[0]!.timestamp, '2024-06-01T12:34:56Z')
  assert.equal(c.raw.length, 5, 'no answer to either notification')
})

test('calls before initialize are refused with -32001 (notifications are ignored); a batch may start with initialize', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connect(s, null)
  t.after(() => c.close())
  for (const [method, params] of [
    ['agent/list', undefined],
    ['agent/request', seed('agent-request').params],
    ['audit/query', {}],
  ] as const) {
    await assert.rejects(c.call(method, params), rpcCode(-32001))
  }
  c.notify('audit/log', seed('audit-log').params)
  await assert.rejects(c.call('initialize', { ...INIT, processId: 'x' }), rpcCode(-32602, 'params.processId'))
  await assert.rejects(c.call('initialize', { ...INIT, governanceLevel: 'chaotic' }), rpcCode(-32602, 'params.governanceLevel'))
  const d = await connect(s, null)
  t.after(() => d.close())
  d.sendRaw([
    { jsonrpc: '2.0', id: 'list', method: 'agent/list' },
    { jsonrpc: '2.0', id: 'init', method: 'initialize', params: INIT },
  ])
  const batch = (await d.nextRaw()) as RpcAnswer[]
  assert.deepEqual(batch.map((r) => [r.id, r.error?.code ?? 'ok']).sort(), [
    ['init', 'ok'],
    ['list', 'ok'],
  ])
  // The ignored notification was not recorded.
  assert.deepEqual((await d.call<AuditPage>('audit/query')).entries, [])
})

test('WebSocket: every standard error code; ids of string, number and null; a bad frame leaves the connection up', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connect(s)
  t.after(() => c.close())
  const ask = async (m: unknown) => (c.sendRaw(m), (await c.nextRaw()) as RpcAnswer)
  assert.equal((await ask('{"jsonrpc": "2.0", "method": ')).error?.code, -32700)
  assert.deepEqual((await ask('[]')).error, { code: -32600, message: 'Invalid Request: empty batch', data: { field: 'batch' } })
  assert.deepEqual((await ask({ jsonrpc: '2.0', id: 'a', method: 'agent/fly' })).error?.code, -32601)
  const ip = await ask({ jsonrpc: '2.0', id: 9, method: 'tool/integration', params: { tool: 'x' } })
  assert.deepEqual([ip.id, ip.error?.code, ip.error?.data?.field], [9, -32602, 'params.action'])
  assert.deepEqual(await ask({ jsonrpc: '2.0', id: null, method: 'agent/list' }), {
    jsonrpc: '2.0',
    id: null,
    result: { agents: (await c.call<{ agents: unknown[] }>('agent/list')).agents },
  })
  assert.equal((await ask({ jsonrpc: '2.0', id: 'str', method: 'agent/list' })).id, 'str')
  assert.equal((await ask({ jsonrpc: '2.0', id: -7, method: 'agent/list' })).id, -7)
  // A fraction is not an id (JSON-RPC: SHOULD NOT; A2A and MCP allow integers only): -32600, id null.
  assert.deepEqual(await ask({ jsonrpc: '2.0', id: 1.5, method: 'agent/list' }).then((a) => [a.id, a.error?.code]), [null, -32600])
  const big = {
    jsonrpc: '2.0',
    id: 'big',
    method: 'audit/log',
    params: { action: 'a', actor: 'b', timestamp: '2024-06-01T12:34:56Z', details: { x: 'y'.repeat(1100) } },
  }
  const small = await startServer({ limits: { maxFrameBytes: 1024 } })
  t.after(() => small.close())
  const sc = await connect(small)
  t.after(() => sc.close())
  sc.sendRaw(big)
  assert.deepEqual(((await sc.nextRaw()) as RpcAnswer).error?.data, { field: 'message', maxBytes: 1024 })
  assert.equal((await sc.call<{ agents: unknown[] }>('agent/list')).agents.length, 1, 'still connected')
  // -32603: a remote agent answering with a malformed error is relayed as an internal error, not a crash.
  await c.call('agent/register', { agentId: 'odd', capabilities: {}, governanceLevel: 'autonomous' })
  c.handle('agent/request', () => {
    throw new Error('boom')
  })
  await assert.rejects(
    c.call('agent/request', { sourceAgent: 'x', targetAgent: 'odd', task: 't' }),
    (e) => (e as RpcError).code === -32603 && /boom/.test((e as RpcError).message),
  )
})

test('HTTP: single, notification (204), batches with mixed notifications, every standard error code, 405/413/415', async (t) => {
  const s = await startServer({ limits: { maxFrameBytes: 4096 } })
  t.after(() => s.close())
  assert.equal((await post(s, '{bad')).body.error?.code, -32700)
  assert.equal((await post(s, [])).body.error?.code, -32600)
  assert.deepEqual((await post(s, { jsonrpc: '1.0', method: 'agent/list', id: 1 })).body.error?.data, { field: 'jsonrpc' })
  assert.deepEqual((await post(s, { jsonrpc: '2.0', method: 'agent/list', id: { no: 1 } })).body, {
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32600,
      message: 'Invalid Request: "id" must be a string of at most 256 characters, an integer of at most 2^53 - 1 or null',
      data: { field: 'id' },
    },
  })
  assert.deepEqual((await post(s, { jsonrpc: '2.0', method: 'agent/fly', id: 'x' })).body.error, {
    code: -32601,
    message: 'Method not found: agent/fly',
    data: { method: 'agent/fly' },
  })
  assert.equal(
    (await post(s, { jsonrpc: '2.0', method: 'agent/request', params: { sourceAgent: 'a', targetAgent: 'demo' }, id: 7 })).body.error?.data?.field,
    'params.task',
  )
  // Stateless: no initialize needed; initialize still answers; agent/register needs a WebSocket.
  assert.equal((await post<RpcAnswer<InitializeResult>>(s, seed('initialize'))).body.result?.capabilities.serverRequests, false)
  assert.equal((await post(s, seed('agent-register'))).body.error?.code, -32010)
  assert.equal((await post(s, seed('audit-log'))).status, 204)
  assert.equal((await post(s, seed('event'))).status, 204)
  const audit = seed('audit-log').params
  const batch = await post<RpcAnswer[]>(s, [
    { jsonrpc: '2.0', method: 'agent/list', id: 1 },
    { jsonrpc: '2.0', method: 'audit/log', params: audit },
    { jsonrpc: '2.0', method: 'agent/list', id: 'two' },
    { jsonrpc: '2.0', method: 'agent/list', id: null },
    1,
    { jsonrpc: '2.0', method: 'nope' },
    { jsonrpc: '2.0', method: 'audit/log', params: {} },
    { jsonrpc: '2.0', method: 'audit/query', id: 'q' },
  ])
  assert.equal(batch.status, 200)
  assert.deepEqual(
    batch.body.map((r) => [r.id, r.error?.code ?? 'ok']),
    [
      [1, 'ok'],
      ['two', 'ok'],
      [null, 'ok'],
      [null, -32600],
      ['q', 'ok'],
    ],
  )
  assert.equal(
    (
      await post(s, [
        { jsonrpc: '2.0', method: 'audit/log', params: audit },
        { jsonrpc: '2.0', method: 'event', params: { event: 'x' } },
      ])
    ).status,
    204,
  )
  assert.equal((await post(s, [{ jsonrpc: '2.0', method: 'nope' }])).status, 204, 'an invalid notification is not answered either')
  const e415 = await post(s, '{}', 'text/plain')
  assert.deepEqual([e415.status, e415.body.error?.code, e415.body.error?.data?.field], [415, -32600, 'content-type'])
  const e413 = await post(s, { jsonrpc: '2.0', id: 1, method: 'audit/log', params: { ...audit, details: { x: 'y'.repeat(5000) } } })
  assert.deepEqual([e413.status, e413.body.error?.code], [413, -32600])
  const get = await fetch(`${s.url}/rpc`)
  assert.deepEqual([get.status, ((await get.json()) as RpcAnswer).error?.code], [405, -32600])
})
