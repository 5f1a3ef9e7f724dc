import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startServer, type TestServer } from './harness.js'
import {
  connect,
  post,
  rpcCode,
  type AuditPage,
  type TaskRequestParams,
  type ToolRequestParams,
  type RpcAnswer,
  type TaskResult,
} from './hugai-support.js'
import { waitFor } from './support/wait.js'

/** Runs in progress on every node (a task runs on whichever node its session's writer is). */
const runsOn = (s: TestServer) => s.nodes.reduce((n, node) => n + node.sessions.activeRunCount, 0)

const ask = (task: string, extra: Record<string, unknown> = {}) => ({ sourceAgent: 'demo-agent-1', targetAgent: 'demo', task, ...extra })

test('agent/request to the built-in demo agent: echo, weather, plan, state, count, fail — with task-progress events', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connect(s)
  t.after(() => c.close())
  const echo = await c.call<TaskResult>('agent/request', ask('hello hub', { context: { file: 'main.ts' }, priority: 'low' }))
  assert.equal(echo.status, 'completed')
  assert.equal(echo.output, 'Echo: hello hub\n\ncontext: {"file":"main.ts"}')
  const mine = c.notifications.filter((n) => n.params.data?.taskId === echo.taskId).map((n) => n.params.data!.status)
  assert.deepEqual(mine, ['queued', 'thinking', 'completed'])
  const plan = await c.call<TaskResult>('agent/request', ask('plan the release', { priority: 'high' }))
  assert.match(plan.output, /The plan is complete/)
  const progress = c.notifications
    .filter((n) => n.params.data?.taskId === plan.taskId && n.params.data?.progress !== undefined)
    .map((n) => n.params.data!.progress)
  assert.deepEqual(progress, [33, 66, 100, 100])
  const weather = await c.call<TaskResult>('agent/request', ask('weather in Rome'))
  assert.deepEqual(weather.toolResults, [{ tool: 'get_weather', result: { city: 'Rome', temperature_c: 18, conditions: 'cloudy' } }])
  assert.match(weather.output, /Rome is cloudy/)
  const state = await c.call<TaskResult>('agent/request', ask('state please'))
  assert.deepEqual(state.state, { counter: 1 })
  const count = await c.call<TaskResult>('agent/request', ask('count 5'))
  assert.equal(count.output, '1 2 3 4 5')
  await assert.rejects(
    c.call('agent/request', ask('fail now')),
    (e) => rpcCode(-32011)(e) && (e.data as { code: string }).code === 'execution_error' && /flaky_tool/.test(e.message),
  )
  await assert.rejects(
    c.call('agent/request', ask('x', { targetAgent: 'ghost' })),
    (e) => rpcCode(-32002)(e) && (e.data as { agentId: string }).agentId === 'ghost',
  )
  // The same over HTTP, stateless.
  const http = await post<RpcAnswer<TaskResult>>(s, { jsonrpc: '2.0', id: 'h', method: 'agent/request', params: ask('count 3') })
  assert.equal(http.body.result?.output, '1 2 3')
})

test('slow task cancelled with task/cancel (extension); unknown task is -32002', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connect(s)
  t.after(() => c.close())
  const run = c.call('agent/request', ask('slow please'))
  const queued = await c.nextNotification((n) => n.params.data?.status === 'queued')
  const taskId = queued.params.data!.taskId as string
  // Cancelled while it runs (not while it waits): its run has started streaming.
  await waitFor(() => runsOn(s) === 1, { what: 'the slow task to be running' })
  assert.deepEqual(await c.call('task/cancel', { taskId, reason: 'enough' }), { taskId, cancelled: true })
  await assert.rejects(run, (e) => rpcCode(-32012)(e) && (e.data as { code: string }).code === 'cancelled')
  await assert.rejects(c.call('task/cancel', { taskId }), rpcCode(-32002))
})

test('client tool of a built-in agent runs at the requester (hub → client tool/integration request); over HTTP it fails, never hangs', async (t) => {
  const s = await startServer({ limits: { clientToolTimeoutMs: 300 } })
  t.after(() => s.close())
  const c = await connect(s)
  t.after(() => c.close())
  const calls: ToolRequestParams[] = []
  c.handle('tool/integration', (p) => (calls.push(p as ToolRequestParams), { os: 'testOS', width: 1280 }))
  const r = await c.call<TaskResult>('agent/request', ask('client info please'))
  assert.equal(r.output, 'Client info: {"os":"testOS","width":1280}')
  assert.deepEqual(
    calls.map((p) => [p.tool, p.action, p.data, p.taskId]),
    [['get_client_info', 'call', {}, r.taskId]],
  )
  const http = await post(s, { jsonrpc: '2.0', id: 1, method: 'agent/request', params: ask('client info please') })
  assert.ok(http.body.error!.code <= -32000, JSON.stringify(http.body))
})

test('agent-to-agent: one client registers, another sends it tasks through the hub; progress relayed; priority orders the queue', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const worker = await connect(s, { agentId: 'test-agent-2' })
  t.after(() => worker.close())
  const reg = await worker.call('agent/register', {
    agentId: 'test-agent-2',
    capabilities: { testing: true },
    governanceLevel: 'supervised',
    version: '1.2.0',
    dependencies: ['demo', 'review-agent'],
  })
  assert.deepEqual(reg, { registered: true, agentId: 'test-agent-2', missingDependencies: ['review-agent'] })
  const order: string[] = []
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  worker.handle('agent/request', async (params) => {
    const p = params as TaskRequestParams & { context?: { file?: string } }
    order.push(p.task)
    worker.notify('event', { event: 'task-progress', data: { taskId: p.taskId, progress: 50 } })
    if (p.task === 'first') await gate
    return { tests: `tests for ${p.context?.file ?? p.task}` }
  })
  const requester = await connect(s)
  t.after(() => requester.close())
  const listed = await requester.call<{ agents: { agentId: string; kind: string }[] }>('agent/list')
  assert.deepEqual(
    listed.agents.map((a) => [a.agentId, a.kind]),
    [
      ['demo', 'builtin'],
      ['test-agent-2', 'remote'],
    ],
  )
  const first = requester.call<TaskResult>('agent/request', {
    sourceAgent: 'demo-agent-1',
    targetAgent: 'test-agent-2',
    task: 'first',
    context: { file: 'main.ts' },
  })
  const relayed = await requester.nextNotification((n) => n.params.data?.progress === 50)
  const queued = (['low', 'medium', 'critical', 'high'] as const).map((priority) =>
    requester.call('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'test-agent-2', task: priority, priority }),
  )
  // All four wait in the target's queue (the hub says so to the requester) before the first one ends.
  const waiting = () =>
    requester.notifications.filter(
      (n) => n.params.data?.status === 'queued' && ['low', 'medium', 'critical', 'high'].includes(String(n.params.data.task)),
    )
  await waitFor(() => waiting().length === 4, { what: 'the four tasks queued behind the first' })
  release()
  const r = await first
  assert.equal(relayed.params.data!.taskId, r.taskId)
  assert.deepEqual(r.result, { tests: 'tests for main.ts' })
  await Promise.all(queued)
  assert.deepEqual(order, ['first', 'critical', 'high', 'medium', 'low'])
  // Another connection cannot take the id; a built-in name cannot be taken either.
  await assert.rejects(
    requester.call('agent/register', { agentId: 'test-agent-2', capabilities: {}, governanceLevel: 'supervised' }),
    rpcCode(-32009),
  )
  await assert.rejects(requester.call('agent/register', { agentId: 'demo', capabilities: {}, governanceLevel: 'supervised' }), rpcCode(-32009))
})

test('a remote target that never answers times out, one that disconnects fails at once; either leaves the registry', async (t) => {
  const s = await startServer({ limits: { clientToolTimeoutMs: 300 } })
  t.after(() => s.close())
  const silent = await connect(s, { agentId: 'silent' })
  await silent.call('agent/register', { agentId: 'silent', capabilities: {}, governanceLevel: 'autonomous' })
  const asked: string[] = []
  silent.handle('agent/request', (p) => (asked.push((p as TaskRequestParams).task), new Promise(() => {})))
  const c = await connect(s)
  t.after(() => c.close())
  // -32005 is the timeout (clientToolTimeoutMs), not a hang cut short by the test's own limit.
  await assert.rejects(c.call('agent/request', { sourceAgent: 'a', targetAgent: 'silent', task: 't' }), rpcCode(-32005))
  const pending = c.call('agent/request', { sourceAgent: 'a', targetAgent: 'silent', task: 't2' })
  const waiting = c.call('agent/request', { sourceAgent: 'a', targetAgent: 'silent', task: 't3', priority: 'critical' })
  // t2 reached the silent agent and t3 waits behind it before the target leaves.
  await waitFor(() => asked.includes('t2') && c.notifications.some((n) => n.params.data?.status === 'queued' && n.params.data.task === 't3'), {
    what: 't2 sent to the target and t3 queued',
  })
  silent.close()
  await assert.rejects(pending, rpcCode(-32006))
  await assert.rejects(waiting, rpcCode(-32006), 'a task queued for the target fails at once too')
  await assert.rejects(c.call('agent/request', { sourceAgent: 'a', targetAgent: 'silent', task: 't4' }), rpcCode(-32002))
})

test('a requester that disconnects cancels its running built-in task', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connect(s)
  // The call fails when its connection closes; that rejection, and no other, is expected.
  const call = c.call('agent/request', ask('slow task')).then(
    () => assert.fail('the task of a closed connection completed'),
    (e: Error) => e,
  )
  const queued = await c.nextNotification((n) => n.params.data?.status === 'queued')
  await waitFor(() => runsOn(s) === 1, { what: 'the slow task to be running' })
  c.close()
  assert.match((await call).message, /connection closed/)
  const d = await connect(s)
  t.after(() => d.close())
  const entries = await waitFor(
    async () => {
      const page = await d.call<AuditPage>('audit/query', { action: 'agent-response' })
      return page.entries.length > 0 ? page.entries : null
    },
    { what: 'the audit entry of the cancelled task' },
  )
  assert.equal(entries.length, 1)
  assert.equal(entries[0]!.details.taskId, queued.params.data!.taskId)
  assert.equal(entries[0]!.details.ok, false)
  assert.match(entries[0]!.details.error as string, /requester disconnected/)
})
