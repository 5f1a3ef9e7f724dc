// HugAI's hub across a cluster (issue 20, finding 5): three nodes sharing Redis, each client connected to a node
// of its own choosing, so an agent registered on node 1 must be reachable from node 3, a checkpoint raised on one
// node decided on another, and an agent's or a node's death noticed by every node.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { dropPrefix, startNodes, testPrefix } from './cluster-support.js'
import type { TestServer } from './harness.js'
import { connect, INIT, rpcCode, type TaskRequestParams, type TaskResult } from './hugai-support.js'
import { waitFor } from './support/wait.js'

let nodes: TestServer[]
let prefix: string
before(async () => {
  prefix = testPrefix()
  nodes = await startNodes(3, prefix)
})
after(async () => {
  // Every node is closed even if one fails to (a node left open keeps its Redis connections, and the process, alive).
  const failed: unknown[] = []
  for (const n of nodes ?? []) await n.close().catch((err: unknown) => failed.push(err))
  await dropPrefix(prefix)
  if (failed.length) throw failed[0]
})

const DELETE = { sourceAgent: 'demo-agent-1', targetAgent: 'demo', task: 'delete my notes' }
const listed = async (c: Awaited<ReturnType<typeof connect>>) =>
  (await c.call<{ agents: { agentId: string; kind: string }[] }>('agent/list')).agents.map((a) => a.agentId)

test('an agent registered on node 1 answers a request made on node 3; progress is relayed; a cancel from node 2 stops it', async (t) => {
  const [n1, n2, n3] = nodes as [TestServer, TestServer, TestServer]
  const worker = await connect(n1, { agentId: 'tester' })
  t.after(() => worker.close())
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  worker.handle('agent/request', async (params) => {
    const p = params as TaskRequestParams
    worker.notify('event', { event: 'task-progress', data: { taskId: p.taskId, progress: 50 } })
    if (p.task === 'hold') await new Promise(() => {})
    await gate
    return { tests: `tests for ${p.task}` }
  })
  // Registered with a dependency only node 2 will provide: none is missing once it is there.
  const other = await connect(n2, { agentId: 'reviewer' })
  t.after(() => other.close())
  await other.call('agent/register', { agentId: 'review-agent', capabilities: {}, governanceLevel: 'supervised' })
  const reg = await worker.call('agent/register', {
    agentId: 'tester',
    capabilities: { testing: true },
    governanceLevel: 'supervised',
    dependencies: ['demo', 'review-agent', 'nobody'],
  })
  assert.deepEqual(reg, { registered: true, agentId: 'tester', missingDependencies: ['nobody'] })

  const requester = await connect(n3)
  t.after(() => requester.close())
  assert.deepEqual((await listed(requester)).sort(), ['demo', 'review-agent', 'tester'])
  const init = await requester.call<{ agents: { agentId: string }[] }>('initialize', { ...INIT, agentId: 'again' })
  assert.ok(
    init.agents.some((a) => a.agentId === 'tester'),
    'initialize lists the agents of every node too',
  )
  // The id is taken cluster-wide.
  const thief = await connect(n3, { agentId: 'thief' })
  t.after(() => thief.close())
  await assert.rejects(thief.call('agent/register', { agentId: 'tester', capabilities: {}, governanceLevel: 'supervised' }), rpcCode(-32009))

  const done = requester.call<TaskResult>('agent/request', { sourceAgent: 'a', targetAgent: 'tester', task: 'unit', priority: 'high' })
  const queued = await requester.nextNotification((n) => n.params.data?.status === 'queued')
  const progress = await requester.nextNotification((n) => n.params.data?.progress === 50)
  release()
  const r = await done
  assert.deepEqual([r.status, r.result], ['completed', { tests: 'tests for unit' }])
  assert.equal(queued.params.data!.taskId, r.taskId)
  assert.equal(progress.params.data!.taskId, r.taskId)

  // A task of node 1's agent, requested on node 3, cancelled from node 2 by the same principal.
  const held = requester.call('agent/request', { sourceAgent: 'a', targetAgent: 'tester', task: 'hold' })
  const q2 = await requester.nextNotification((n) => n.params.data?.status === 'queued' && n.params.data.taskId !== r.taskId)
  const taskId = q2.params.data!.taskId as string
  const canceller = await connect(n2)
  t.after(() => canceller.close())
  assert.deepEqual(await canceller.call('task/cancel', { taskId, reason: 'enough' }), { taskId, cancelled: true })
  await assert.rejects(held, rpcCode(-32012))
  await assert.rejects(canceller.call('task/cancel', { taskId }), rpcCode(-32002))
})

test("an agent's death is noticed on every node: its connection closes, or its node stops", async (t) => {
  const [n1, n2, n3] = nodes as [TestServer, TestServer, TestServer]
  const c = await connect(n3)
  t.after(() => c.close())
  const worker = await connect(n1, { agentId: 'short-lived' })
  await worker.call('agent/register', { agentId: 'short-lived', capabilities: {}, governanceLevel: 'supervised' })
  worker.handle('agent/request', () => new Promise(() => {}))
  assert.ok((await listed(c)).includes('short-lived'))
  const pending = c.call('agent/request', { sourceAgent: 'a', targetAgent: 'short-lived', task: 'never answered' })
  await c.nextNotification((n) => n.params.data?.status === 'queued')
  worker.close()
  await assert.rejects(pending, rpcCode(-32006))
  await waitFor(async () => !(await listed(c)).includes('short-lived'), { what: 'short-lived to leave every listing', timeoutMs: 3000 })
  await assert.rejects(c.call('agent/request', { sourceAgent: 'a', targetAgent: 'short-lived', task: 'again' }), rpcCode(-32002))

  // A fourth node whose agent has a task from node 2 in flight, then the node stops.
  const n4 = (await startNodes(1, prefix, { nodeId: 'node-4' }))[0]!
  t.after(() => n4.close())
  const doomed = await connect(n4, { agentId: 'doomed' })
  t.after(() => doomed.close())
  await doomed.call('agent/register', { agentId: 'doomed', capabilities: {}, governanceLevel: 'supervised' })
  doomed.handle('agent/request', () => new Promise(() => {}))
  const r2 = await connect(n2)
  t.after(() => r2.close())
  const inFlight = r2.call('agent/request', { sourceAgent: 'a', targetAgent: 'doomed', task: 'lost' })
  await r2.nextNotification((n) => n.params.data?.status === 'queued')
  await n4.close()
  await assert.rejects(inFlight, (e) => rpcCode(-32008)(e) && /node-4 stopped/.test((e as Error).message))
  for (const n of [n1, n2, n3]) {
    const probe = await connect(n)
    assert.ok(!(await listed(probe)).includes('doomed'), 'no node lists the agent of a stopped node')
    probe.close()
  }
})

test('a checkpoint raised on node 1 reaches the approver on node 2, who decides it there; the requester hears how it ended', async (t) => {
  const [n1, n2] = nodes as [TestServer, TestServer, TestServer]
  const approver = await connect(n2, { agentId: 'reviewer', capabilities: { approver: true } })
  t.after(() => approver.close())
  const requester = await connect(n1)
  t.after(() => requester.close())
  const task = requester.call<TaskResult>('agent/request', DELETE)
  const cp = await approver.nextNotification((n) => n.params.event === 'checkpoint')
  const data = cp.params.data as { checkpoint: string; artifact: Record<string, unknown> }
  assert.equal((await requester.nextNotification((n) => n.params.event === 'checkpoint')).params.data!.checkpoint, data.checkpoint)
  const ok = await approver.call('governance/approval', {
    checkpoint: data.checkpoint,
    artifact: data.artifact,
    approver: 'user-123',
    decision: 'approved',
  })
  assert.deepEqual(ok, { checkpoint: data.checkpoint, decision: 'approved', recorded: true })
  const r = await task
  assert.match(r.output, /^Done: deleted/)
  const resolved = await approver.nextNotification((n) => n.params.event === 'checkpoint-resolved')
  assert.deepEqual([resolved.params.data!.checkpoint, resolved.params.data!.approved], [data.checkpoint, true])
  assert.equal(approver.notifications.filter((n) => n.params.event === 'checkpoint').length, 1, 'told once, not once per node')
})

test('a decision taken early on node 3 applies to the checkpoint raised later on node 1, once; strict still needs an approver', async (t) => {
  const [n1, , n3] = nodes as [TestServer, TestServer, TestServer]
  const early = await connect(n3)
  t.after(() => early.close())
  const kept = await early.call<Record<string, unknown>>('governance/approval', {
    checkpoint: 'delete_file',
    artifact: {},
    approver: 'user-9',
    decision: 'rejected',
    feedback: 'not today',
  })
  assert.equal(kept.matched, false)
  const requester = await connect(n1)
  t.after(() => requester.close())
  const r = await requester.call<TaskResult>('agent/request', DELETE)
  assert.match(r.output, /Not approved.*not today/)
  // Applied once: the next checkpoint waits for a decision.
  const next = requester.call<TaskResult>('agent/request', DELETE)
  const cp = await requester.nextNotification((n) => n.params.event === 'checkpoint')
  await requester.call('governance/approval', { checkpoint: cp.params.data!.checkpoint, artifact: {}, approver: 'me', decision: 'approved' })
  assert.match((await next).output, /^Done: deleted/)

  // strict: a decision from a connection that is no approver does not apply (it stays kept), one from an approver does.
  await early.call('governance/approval', { checkpoint: 'delete_file', artifact: {}, approver: 'user-9', decision: 'approved' })
  const strict = await connect(n1, { governanceLevel: 'strict' })
  t.after(() => strict.close())
  const guarded = strict.call<TaskResult>('agent/request', DELETE)
  const scp = await strict.nextNotification((n) => n.params.event === 'checkpoint')
  const approver = await connect(n3, { agentId: 'boss', capabilities: { approver: true } })
  t.after(() => approver.close())
  // The approver's decision is recorded against the open checkpoint: proof that the kept non-approver decision
  // did not settle it meanwhile (a settled checkpoint would not be matched).
  const decided = await approver.call('governance/approval', {
    checkpoint: scp.params.data!.checkpoint,
    artifact: {},
    approver: 'boss',
    decision: 'approved',
  })
  assert.deepEqual(decided, { checkpoint: scp.params.data!.checkpoint, decision: 'approved', recorded: true })
  assert.match((await guarded).output, /^Done: deleted/)
})

test("governance/approval on node 2 decides another dialect's approval waiting in a session written on node 1", async (t) => {
  const [n1, n2] = nodes as [TestServer, TestServer, TestServer]
  const hai = await n1.hai()
  t.after(() => hai.close())
  hai.say('delete my notes')
  const req = await hai.next('tool_approval_request')
  const approver = await connect(n2, { agentId: 'reviewer', capabilities: { approver: true } })
  t.after(() => approver.close())
  const ok = await approver.call('governance/approval', { checkpoint: req.approval_id, artifact: {}, approver: 'user-123', decision: 'approved' })
  assert.deepEqual(ok, { checkpoint: req.approval_id, decision: 'approved', recorded: true })
  const msgs = await hai.untilCompleted()
  assert.match(
    msgs
      .filter((m) => m.type === 'assistant_message_chunk')
      .map((m) => (m as { content?: string }).content ?? '')
      .join(''),
    /Done: deleted notes\/demo\.txt/,
  )
})
