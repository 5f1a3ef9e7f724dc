import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HugaiClient, RpcError } from '../src/client/index.js'
import { startServer, type TestServer } from './harness.js'

const INIT = { processId: 12345, agentId: 'demo-agent-1', capabilities: { 'code-generation': true, testing: true }, governanceLevel: 'supervised', clientInfo: { name: 'HugAI Client', version: '1.0.0' }, workspaceFolders: ['/project/demo'] }

async function connect(s: TestServer, init: Record<string, unknown> | null = INIT): Promise<HugaiClient> {
  const c = await HugaiClient.connect({ url: s.url })
  if (init) await c.call('initialize', init)
  return c
}
const post = async (s: TestServer, body: unknown) => {
  const res = await fetch(`${s.url}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) })
  return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as any) }
}
const code = (n: number) => (err: unknown) => err instanceof RpcError && err.code === n

test('initialize answers capabilities, methods, protocol version and the registry; calls before it are refused', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connect(s, null)
  t.after(() => c.close())
  await assert.rejects(c.call('agent/list'), code(-32001))
  await assert.rejects(c.call('initialize', { ...INIT, governanceLevel: 'chaotic' }), (e: unknown) => code(-32602)(e) && /governanceLevel/.test(JSON.stringify((e as RpcError).data)))
  const r = await c.call<any>('initialize', INIT)
  assert.equal(r.protocolVersion, '2.0')
  assert.ok(r.methods.includes('agent/request'))
  assert.deepEqual(r.agents.map((a: any) => a.agentId), ['demo'])
  assert.ok((await c.call<any>('agent/list')).agents.length === 1)
})

test('JSON-RPC over HTTP: every standard error code, notifications unanswered, batches with mixed notifications', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  assert.equal((await post(s, '{bad')).body.error.code, -32700)
  assert.equal((await post(s, [])).body.error.code, -32600)
  assert.equal((await post(s, { jsonrpc: '1.0', method: 'agent/list', id: 1 })).body.error.code, -32600)
  assert.equal((await post(s, { jsonrpc: '2.0', method: 'agent/list', id: { no: 1 } })).body.error.code, -32600)
  const nf = (await post(s, { jsonrpc: '2.0', method: 'agent/fly', id: 'x' })).body
  assert.deepEqual([nf.id, nf.error.code], ['x', -32601])
  const ip = (await post(s, { jsonrpc: '2.0', method: 'agent/request', params: { sourceAgent: 'a', targetAgent: 'demo' }, id: 7 })).body
  assert.equal(ip.error.code, -32602)
  assert.equal(ip.error.data.field, 'params.task')
  // Notification: no answer at all.
  const audit = { action: 'approval', actor: 'user-123', target: 'main.ts', details: { decision: 'approved' }, timestamp: '2024-06-01T12:34:56Z' }
  assert.equal((await post(s, { jsonrpc: '2.0', method: 'audit/log', params: audit })).status, 204)
  // Batch: answers only for requests, ids of string/number/null kept, invalid items answered in place.
  const batch = await post(s, [
    { jsonrpc: '2.0', method: 'agent/list', id: 1 },
    { jsonrpc: '2.0', method: 'audit/log', params: audit },
    { jsonrpc: '2.0', method: 'agent/list', id: 'two' },
    { jsonrpc: '2.0', method: 'agent/list', id: null },
    1,
    { jsonrpc: '2.0', method: 'nope' },
  ])
  assert.deepEqual(
    batch.body.map((r: any) => [r.id, r.error?.code ?? 'ok']),
    [
      [1, 'ok'],
      ['two', 'ok'],
      [null, 'ok'],
      [null, -32600],
    ],
  )
  assert.equal((await post(s, [{ jsonrpc: '2.0', method: 'audit/log', params: audit }])).status, 204)
  const r = await fetch(`${s.url}/rpc`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' })
  assert.equal(r.status, 415)
})

test('agent/request to the built-in demo agent: task-progress events, then the result', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connect(s)
  t.after(() => c.close())
  const r = await c.call<any>('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'demo', task: 'plan the release', priority: 'high' })
  assert.equal(r.status, 'completed')
  assert.match(r.output, /The plan is complete/)
  const progress = c.notifications.filter((n) => n.params.event === 'task-progress').map((n) => n.params.data!.progress).filter((p) => p !== undefined)
  assert.deepEqual(progress, [33, 66, 100, 100])
  const weather = await c.call<any>('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'demo', task: 'weather in Rome' })
  assert.deepEqual(weather.toolResults, [{ tool: 'get_weather', result: { city: 'Rome', temperature_c: 18, conditions: 'cloudy' } }])
  await assert.rejects(c.call('agent/request', { sourceAgent: 'x', targetAgent: 'ghost', task: 't' }), code(-32002))
  await assert.rejects(c.call('agent/request', { sourceAgent: 'x', targetAgent: 'demo', task: 'fail' }), (e: unknown) => code(-32011)(e) && /flaky_tool/.test((e as Error).message))
})

test('agent-to-agent: one client registers an agent, another sends it a task through the hub; priority orders the queue', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const worker = await connect(s, { ...INIT, agentId: 'test-agent-2' })
  t.after(() => worker.close())
  const reg = await worker.call<any>('agent/register', { agentId: 'test-agent-2', capabilities: { testing: true }, governanceLevel: 'supervised', version: '1.2.0', dependencies: ['demo', 'review-agent'] })
  assert.deepEqual(reg, { registered: true, agentId: 'test-agent-2', missingDependencies: ['review-agent'] })
  const order: string[] = []
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  worker.handle('agent/request', async (p: any) => {
    order.push(p.task)
    worker.notify('event', { event: 'task-progress', data: { taskId: p.taskId, progress: 50 } })
    if (p.task === 'first') await gate
    return { tests: `tests for ${p.context?.file ?? p.task}` }
  })
  const requester = await connect(s)
  t.after(() => requester.close())
  const first = requester.call<any>('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'test-agent-2', task: 'first', context: { file: 'main.ts' } })
  await requester.nextNotification((n) => n.params.event === 'task-progress')
  const queued = (['low', 'medium', 'critical', 'high'] as const).map((priority) => requester.call('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'test-agent-2', task: priority, priority }))
  await new Promise((r) => setTimeout(r, 50))
  release()
  const r = await first
  assert.deepEqual(r.result, { tests: 'tests for main.ts' })
  await Promise.all(queued)
  assert.deepEqual(order, ['first', 'critical', 'high', 'medium', 'low'])
})

test('a target that disconnects or never answers produces an error response, never a hang', async (t) => {
  const s = await startServer({ limits: { clientToolTimeoutMs: 300 } })
  t.after(() => s.close())
  const silent = await connect(s, { ...INIT, agentId: 'silent' })
  await silent.call('agent/register', { agentId: 'silent', capabilities: {}, governanceLevel: 'autonomous' })
  silent.handle('agent/request', () => new Promise(() => {}))
  const c = await connect(s)
  t.after(() => c.close())
  await assert.rejects(c.call('agent/request', { sourceAgent: 'a', targetAgent: 'silent', task: 't' }), code(-32005))
  const pending = c.call('agent/request', { sourceAgent: 'a', targetAgent: 'silent', task: 't2' })
  await new Promise((r) => setTimeout(r, 50))
  silent.close()
  await assert.rejects(pending, code(-32006))
  await assert.rejects(c.call('agent/request', { sourceAgent: 'a', targetAgent: 'silent', task: 't3' }), code(-32002))
})

for (const decision of ['approved', 'rejected', 'needs_revision'] as const) {
  test(`governance checkpoint to the approver connection, decided ${decision}`, async (t) => {
    const s = await startServer()
    t.after(() => s.close())
    const approver = await connect(s, { ...INIT, agentId: 'reviewer', capabilities: { approver: true } })
    t.after(() => approver.close())
    const c = await connect(s)
    t.after(() => c.close())
    const task = c.call<any>('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'demo', task: 'delete the notes' })
    const cp = await approver.nextNotification((n) => n.params.event === 'checkpoint')
    assert.equal((cp.params.data!.artifact as any).tool, 'delete_file')
    const ok = await approver.call<any>('governance/approval', { checkpoint: cp.params.data!.checkpoint, artifact: cp.params.data!.artifact, approver: 'user-123', decision, feedback: 'use the archive instead' })
    assert.equal(ok.recorded, true)
    const r = await task
    if (decision === 'approved') assert.match(r.output, /Done: deleted notes\/demo\.txt/)
    else assert.match(r.output, decision === 'rejected' ? /Not approved, .*\(use the archive instead\)/ : /Not approved, .*\(needs revision: use the archive instead\)/)
    await assert.rejects(approver.call('governance/approval', { checkpoint: cp.params.data!.checkpoint, artifact: {}, approver: 'user-123', decision: 'approved' }), code(-32003))
  })
}

test('tool/integration: direct result, or streamed as an event with callback "event"; unknown tool is an error', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connect(s)
  t.after(() => c.close())
  const r = await c.call<any>('tool/integration', { tool: 'get_weather', action: 'lookup', data: { city: 'Lima' } })
  assert.deepEqual(r.result, { city: 'Lima', temperature_c: 18, conditions: 'cloudy' })
  const accepted = await c.call<any>('tool/integration', { tool: 'ci-pipeline', action: 'get_weather', data: { city: 'Quito' }, callback: 'event' })
  assert.equal(accepted.accepted, true)
  const ev = await c.nextNotification((n) => n.params.event === 'tool-result')
  assert.equal(ev.params.data!.invocationId, accepted.invocationId)
  assert.deepEqual(ev.params.data!.result, { city: 'Quito', temperature_c: 18, conditions: 'cloudy' })
  await assert.rejects(c.call('tool/integration', { tool: 'ci-pipeline', action: 'run-tests', data: { branch: 'feature-x' }, callback: 'event' }), code(-32002))
})

test('audit: routing, approvals and tools are audited automatically; audit/query filters; entries survive a restart', async (t) => {
  const s = await startServer({ store: 'sqlite' })
  t.after(() => s.removeData())
  const c = await connect(s)
  await c.call('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'demo', task: 'hello' })
  await c.call('tool/integration', { tool: 'get_weather', action: 'lookup', data: { city: 'Lima' } })
  c.notify('audit/log', { action: 'deploy', actor: 'user-123', target: 'prod', details: { version: '1.2.0' }, timestamp: '2024-06-01T12:34:56Z' })
  const mine = await c.call<any>('audit/query', { actor: 'user-123' })
  assert.deepEqual(mine.entries.map((e: any) => e.action), ['deploy'])
  c.close()
  await s.close()
  const again = await startServer({ store: 'sqlite', dataDir: s.dataDir })
  t.after(() => again.close())
  const d = await connect(again)
  t.after(() => d.close())
  const all = await d.call<any>('audit/query')
  assert.deepEqual(all.entries.map((e: any) => e.action), ['agent-request', 'agent-response', 'tool-integration', 'deploy'])
  const ranged = await d.call<any>('audit/query', { from: '2024-01-01T00:00:00Z', to: '2024-12-31T00:00:00Z' })
  assert.deepEqual(ranged.entries.map((e: any) => e.action), ['deploy'])
})
