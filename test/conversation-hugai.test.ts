// Conversation control (issue 19) over HugAI v2 with the project's JSON-RPC client on /rpc: `agent/request`
// continuing a session (`sessionId`) while its run is active, under each `onBusy` policy (server default and
// per request), and `task/regenerate`.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ServerOptions } from '../src/index.js'
import type { RpcError } from '../src/client/index.js'
import { gatedAgent } from './conversation-support.js'
import { startServer } from './harness.js'
import { connect, rpcCode, type InitializeResult, type TaskResult } from './hugai-support.js'

const gated = () => gatedAgent()

async function setup(t: { after(fn: () => unknown): void }, opts: Partial<ServerOptions> = {}) {
  const g = gated()
  const s = await startServer({ agents: [g.agent], ...opts })
  t.after(() => s.close())
  const c = await connect(s)
  t.after(() => c.close())
  const ask = (task: string, extra: Record<string, unknown> = {}) =>
    c.call<TaskResult & { sessionId: string }>('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'gated', task, ...extra })
  return { g, s, c, ask }
}

const data = (e: unknown) => (e as RpcError).data as Record<string, unknown>
const userTurns = (h: string[] | undefined) => (h ?? []).filter((x) => x.startsWith('u:'))

test('initialize lists task/regenerate and the policies; a bad onBusy is -32602 naming params.onBusy', async (t) => {
  const { c, ask } = await setup(t)
  const init = await c.call<InitializeResult & { extensions: string[] }>('initialize', {
    processId: 1,
    agentId: 'x',
    capabilities: {},
    governanceLevel: 'supervised',
  })
  assert.ok(init.methods.includes('task/regenerate') && init.extensions.includes('task/regenerate'))
  assert.deepEqual(init.capabilities.conversation, { sessions: true, onBusy: ['interrupt', 'enqueue', 'reject', 'rollback'], regenerate: true })
  await assert.rejects(
    ask('x', { sessionId: 's', onBusy: 'later' }),
    (e) => rpcCode(-32602, 'params.onBusy')(e) && /interrupt, enqueue, reject, rollback/.test((e as Error).message),
  )
  await assert.rejects(c.call('task/regenerate', { sessionId: 's', onBusy: 7 }), rpcCode(-32602, 'params.onBusy'))
})

test('enqueue: two requests sent in the same tick into a busy session wait and are answered in order, each by its own run', async (t) => {
  const { g, c, ask } = await setup(t)
  const first = ask('one', { sessionId: 'hug-enqueue' })
  await g.started(1)
  const second = ask('two', { sessionId: 'hug-enqueue', onBusy: 'enqueue' })
  const third = ask('three', { sessionId: 'hug-enqueue', onBusy: 'enqueue' })
  for (let i = 0; i < 2; i++) await c.nextNotification((n) => n.params.data?.queue === 'session' && n.params.data.sessionId === 'hug-enqueue')
  assert.equal(g.seen.length, 1, 'queued: no run yet')
  g.release()
  const r1 = await first
  assert.deepEqual([r1.output, r1.sessionId], ['answer to one', 'hug-enqueue'])
  await g.started(2)
  g.release()
  assert.equal((await second).output, 'answer to two')
  await g.started(3)
  g.release()
  assert.equal((await third).output, 'answer to three')
  assert.deepEqual(g.seen.map(userTurns), [['u:one'], ['u:one', 'u:two'], ['u:one', 'u:two', 'u:three']])
})

test('reject: a request into a busy session is -32013 (busy, the active run named); the first run answers, exactly once', async (t) => {
  const { g, s, ask } = await setup(t)
  const first = ask('one', { sessionId: 'hug-reject' })
  await g.started(1)
  const active = (await s.stored('hug-reject'))?.activeRunId
  assert.ok(active, 'the first run is active')
  await assert.rejects(ask('two', { sessionId: 'hug-reject', onBusy: 'reject' }), (e) => {
    rpcCode(-32013)(e)
    assert.match((e as Error).message, /a run is active in this session/)
    assert.deepEqual([data(e).code, data(e).activeRunId, data(e).sessionId], ['busy', active, 'hug-reject'])
    return true
  })
  g.release()
  assert.equal((await first).output, 'answer to one')
  assert.equal(g.seen.length, 1)
  assert.deepEqual(
    (await s.stored('hug-reject'))?.messages.map((m) => `${m.role[0]}:${m.content}`),
    ['u:one', 'a:answer to one'],
  )
})

test('rollback: the active task fails -32012 and the next run does not see its turn; history-rewound is notified', async (t) => {
  const { g, c, ask } = await setup(t)
  const first = ask('one', { sessionId: 'hug-rollback' })
  await g.started(1)
  g.release()
  await first
  const second = ask('two', { sessionId: 'hug-rollback' })
  await g.started(2)
  const third = ask('three', { sessionId: 'hug-rollback', onBusy: 'rollback' })
  await assert.rejects(second, (e) => rpcCode(-32012)(e) && data(e).code === 'interrupted')
  const cut = await c.nextNotification((n) => n.params.event === 'history-rewound')
  assert.deepEqual([cut.params.data?.reason, cut.params.data?.sessionId], ['rollback', 'hug-rollback'])
  await g.started(3)
  assert.deepEqual(g.seen[2], ['u:one', 'a:answer to one', 'u:three'], 'run three does not see turn two')
  g.release()
  assert.equal((await third).output, 'answer to three')
})

test('interrupt (the default): the active task fails -32012 interrupted and the new turn runs after it', async (t) => {
  const { g, ask } = await setup(t)
  const first = ask('one', { sessionId: 'hug-interrupt' })
  await g.started(1)
  const second = ask('two', { sessionId: 'hug-interrupt' })
  await assert.rejects(first, (e) => rpcCode(-32012)(e) && data(e).code === 'interrupted')
  await g.started(2)
  assert.deepEqual(userTurns(g.seen[1]), ['u:one', 'u:two'], 'the interrupted turn stays in the history')
  g.release()
  assert.equal((await second).output, 'answer to two')
})

test('per-request params override the server policy (server: reject; this request: enqueue)', async (t) => {
  const { g, ask } = await setup(t, { onBusy: 'reject' })
  const first = ask('one', { sessionId: 'hug-override' })
  await g.started(1)
  await assert.rejects(ask('two', { sessionId: 'hug-override' }), rpcCode(-32013))
  const third = ask('three', { sessionId: 'hug-override', onBusy: 'enqueue' })
  g.release()
  assert.equal((await first).output, 'answer to one')
  await g.started(2)
  g.release()
  assert.equal((await third).output, 'answer to three')
  assert.deepEqual(userTurns(g.seen[1]), ['u:one', 'u:three'])
})

test('task/regenerate: the last turn is answered again as a new task; the old answer leaves the history; busy and unknown refused', async (t) => {
  const { g, c, ask } = await setup(t)
  const first = ask('one', { sessionId: 'hug-regen' })
  await g.started(1)
  g.release()
  const r1 = await first
  const again = c.call<TaskResult & { sessionId: string }>('task/regenerate', { sessionId: 'hug-regen' })
  await g.started(2)
  const cut = await c.nextNotification((n) => n.params.event === 'history-rewound')
  assert.equal(cut.params.data?.reason, 'regenerate')
  assert.deepEqual(g.seen[1], ['u:one'], 'the agent sees the user turn once and no old answer')
  await assert.rejects(c.call('task/regenerate', { sessionId: 'hug-regen', onBusy: 'reject' }), rpcCode(-32013))
  g.release()
  const r2 = await again
  assert.deepEqual([r2.output, r2.sessionId], ['answer to one', 'hug-regen'])
  assert.notEqual(r2.taskId, r1.taskId)
  await assert.rejects(c.call('task/regenerate', { sessionId: 'hug-regen', messageId: 'nope' }), rpcCode(-32002))
  await assert.rejects(c.call('task/regenerate', { sessionId: 'hug-nowhere' }), rpcCode(-32002))
  assert.equal(g.seen.length, 2)
})

test('task/cancel of a task queued in its session withdraws its message: the request fails -32012 and the turn never runs', async (t) => {
  const { g, s, c, ask } = await setup(t)
  const first = ask('one', { sessionId: 'hug-withdraw' })
  await g.started(1)
  const second = ask('two', { sessionId: 'hug-withdraw', onBusy: 'enqueue' })
  const queued = await c.nextNotification((n) => n.params.data?.queue === 'session' && n.params.data.sessionId === 'hug-withdraw')
  const taskId = String(queued.params.data?.taskId)
  await c.call('task/cancel', { taskId, reason: 'changed my mind' })
  await assert.rejects(second, rpcCode(-32012))
  g.release()
  assert.equal((await first).output, 'answer to one')
  const log = await s.log('hug-withdraw')
  assert.ok(
    log.some((e) => e.type === 'message.withdrawn'),
    'the queued message was withdrawn',
  )
  assert.equal(g.seen.length, 1, 'the withdrawn turn never ran')
})
