import assert from 'node:assert/strict'
import { test } from 'node:test'
import { demoAgent } from '../src/index.js'
import { startServer } from './harness.js'
import { ciAgent, connect, post, rpcCode, seed, type AuditPage, type RpcAnswer } from './hugai-support.js'

test('tool/integration: direct result, callback "event", callback to a named method, failure, unknown tool; over HTTP too', async (t) => {
  const s = await startServer({ agents: [demoAgent, ciAgent] })
  t.after(() => s.close())
  const c = await connect(s)
  t.after(() => c.close())
  const direct = await c.call<{ result: unknown }>('tool/integration', { tool: 'get_weather', action: 'lookup', data: { city: 'Lima' } })
  assert.deepEqual(direct.result, { city: 'Lima', temperature_c: 18, conditions: 'cloudy' })
  const accepted = await c.call<{ accepted: boolean; callback: string; invocationId: string }>('tool/integration', {
    tool: 'weather-service',
    action: 'get_weather',
    data: { city: 'Quito' },
    callback: 'event',
  })
  assert.deepEqual(Object.keys(accepted).sort(), ['accepted', 'callback', 'invocationId'])
  const ev = await c.nextNotification((n) => n.params.event === 'tool-result')
  assert.equal(ev.params.data!.invocationId, accepted.invocationId)
  assert.deepEqual(ev.params.data!.result, { city: 'Quito', temperature_c: 18, conditions: 'cloudy' })
  const named = await c.call<{ invocationId: string }>('tool/integration', {
    tool: 'ci-pipeline',
    action: 'run-tests',
    data: { branch: 'main' },
    callback: 'ci/done',
  })
  const done = await c.nextNotification((n) => n.method === 'ci/done')
  assert.deepEqual(done.params, {
    ok: true,
    invocationId: named.invocationId,
    tool: 'ci-pipeline',
    action: 'run-tests',
    status: 'success',
    result: { branch: 'main', passed: 12, failed: 0 },
  })
  await c.call('tool/integration', { tool: 'ci-pipeline', action: 'broken-step', callback: 'event' })
  const failed = await c.nextNotification((n) => n.params.event === 'tool-error')
  assert.equal((failed.params.data as { error: { code: number } }).error.code, -32011)
  await assert.rejects(
    c.call('tool/integration', { tool: 'ci-pipeline', action: 'broken-step' }),
    (e) => rpcCode(-32011)(e) && /runner offline/.test(e.message),
  )
  await assert.rejects(c.call('tool/integration', { tool: 'jenkins', action: 'deploy' }), rpcCode(-32002))
  // A tool that needs a run context says so instead of misbehaving: none in the demo, so HTTP gets the seed's example.
  const http = await post<RpcAnswer<{ result: unknown }>>(s, seed('tool-integration'))
  assert.deepEqual(
    http.body.result?.result,
    { branch: 'feature-x', passed: 12, failed: 0 },
    'over HTTP a callback cannot be delivered: answered directly',
  )
  const audited = await c.call<AuditPage>('audit/query', { action: 'tool-integration' })
  assert.deepEqual(
    audited.entries.map((e) => [e.target, e.details.ok]),
    [
      ['get_weather', true],
      ['get_weather', true],
      ['run-tests', true],
      ['broken-step', false],
      ['broken-step', false],
      ['jenkins', false],
      ['run-tests', true],
    ],
  )
})

test('audit: routing, registration, approvals and tools recorded automatically; audit/query filters; entries survive a restart', async (t) => {
  const s = await startServer({ store: 'sqlite' })
  t.after(() => s.removeData())
  const c = await connect(s, { governanceLevel: 'autonomous' })
  const worker = await connect(s, { agentId: 'w' })
  await worker.call('agent/register', { agentId: 'w', capabilities: {}, governanceLevel: 'supervised' })
  worker.handle('agent/request', () => ({ ok: true }))
  await c.call('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'demo', task: 'delete it' })
  await c.call('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'w', task: 'remote work' })
  await c.call('tool/integration', { tool: 'get_weather', action: 'lookup', data: { city: 'Lima' } })
  c.notify('audit/log', seed('audit-log').params)
  assert.deepEqual(
    await c.call('audit/log', {
      action: 'deploy',
      actor: 'user-9',
      target: 'prod',
      details: { version: '1.2.0' },
      timestamp: '2025-01-02T03:04:05Z',
    }),
    { recorded: true, seq: 9 },
  )
  const mine = await c.call<AuditPage>('audit/query', { actor: 'user-123' })
  assert.deepEqual(
    mine.entries.map((e) => e.action),
    ['approval'],
  )
  c.close()
  worker.close()
  await s.close()

  const again = await startServer({ store: 'sqlite', dataDir: s.dataDir })
  t.after(() => again.close())
  const d = await connect(again)
  t.after(() => d.close())
  const all = await d.call<AuditPage>('audit/query')
  assert.deepEqual(
    all.entries.map((e) => [e.action, e.actor, e.target ?? null]),
    [
      ['agent-register', 'w', null],
      ['agent-request', 'demo-agent-1', 'demo'],
      ['checkpoint', 'demo', 'delete_file'],
      ['agent-response', 'demo', 'demo-agent-1'],
      ['agent-request', 'demo-agent-1', 'w'],
      ['agent-response', 'w', 'demo-agent-1'],
      ['tool-integration', 'demo-agent-1', 'get_weather'],
      ['approval', 'user-123', 'main.ts'],
      ['deploy', 'user-9', 'prod'],
    ],
  )
  assert.deepEqual(
    all.entries.map((e) => e.seq),
    [1, 2, 3, 4, 5, 6, 7, 8, 9],
  )
  const ranged = await d.call<AuditPage>('audit/query', { from: '2024-06-01T00:00:00Z', to: '2024-12-31T00:00:00Z' })
  assert.deepEqual(
    ranged.entries.map((e) => e.action),
    ['approval'],
  )
  assert.deepEqual(
    (await d.call<AuditPage>('audit/query', { action: 'agent-request', limit: 1 })).entries.map((e) => e.target),
    ['demo'],
  )
  await assert.rejects(d.call('audit/query', { from: 'last week' }), rpcCode(-32602, 'params.from'))
  // Append-only: new entries continue the log after the restart.
  assert.deepEqual(await d.call('audit/log', { action: 'restart-check', actor: 'ops', timestamp: '2025-01-02T03:04:05Z' }), {
    recorded: true,
    seq: 10,
  })
})
