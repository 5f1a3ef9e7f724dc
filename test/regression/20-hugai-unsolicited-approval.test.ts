// Issue 20, finding 1 (HugAI): the seed's own governance/approval example (checkpoint "code-review", approver
// user-123, decision approved), sent verbatim, was answered -32003 "approval not pending" — a client written
// from the seed could not record a human decision unless the server asked first. Now an unsolicited decision
// is recorded (audit, and a result saying it matched nothing pending), and a checkpoint raised later under that
// name (the tool it guards) or id is decided by it; strict governance still needs an approver connection.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startServer } from '../harness.js'
import { connect, post, seed, type AuditPage, type RpcAnswer, type TaskResult } from '../hugai-support.js'

const DELETE = { sourceAgent: 'demo-agent-1', targetAgent: 'demo', task: 'delete the notes' }
interface Decided {
  checkpoint: string
  decision: string
  recorded: boolean
  matched: boolean
}

test('the seed example, verbatim and inside a batch: recorded and audited, answered with a result', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const one = await post<RpcAnswer<Decided>>(s, seed('governance-approval'))
  assert.equal(one.status, 200)
  assert.deepEqual(
    [one.body.id, one.body.result?.checkpoint, one.body.result?.decision, one.body.result?.recorded, one.body.result?.matched],
    [4, 'code-review', 'approved', true, false],
  )
  const batch = await post<Array<RpcAnswer<Decided>>>(s, [seed('governance-approval'), { ...seed('governance-approval'), id: 5 }])
  assert.deepEqual(
    batch.body.map((a) => [a.id, a.result?.recorded, a.error]),
    [
      [4, true, undefined],
      [5, true, undefined],
    ],
  )
  const c = await connect(s)
  t.after(() => c.close())
  const audit = await c.call<AuditPage>('audit/query', { action: 'approval' })
  assert.deepEqual(
    audit.entries.map((e) => [e.actor, e.target, e.details.decision, e.details.feedback, e.details.matched]),
    Array(3).fill(['user-123', 'code-review', 'approved', 'Meets the standards.', false]),
  )
})

test('a decision naming a checkpoint before it is raised decides it when the agent asks (supervised)', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connect(s)
  t.after(() => c.close())
  const early = await c.call<Decided>('governance/approval', {
    checkpoint: 'delete_file',
    artifact: { path: 'notes/demo.txt' },
    approver: 'user-123',
    decision: 'approved',
    feedback: 'pre-approved',
  })
  assert.equal(early.matched, false)
  const r = await c.call<TaskResult>('agent/request', DELETE)
  assert.match(r.output, /^Done: deleted/)
  const audit = await c.call<AuditPage>('audit/query', { action: 'approval' })
  assert.deepEqual(
    audit.entries.map((e) => e.details.matched),
    [false, 'early'],
  )
  // Used once: the next request asks again.
  const next = c.call<TaskResult>('agent/request', DELETE)
  const cp = await c.nextNotification(
    (n) =>
      n.params.event === 'checkpoint' &&
      n.params.data?.checkpoint !== undefined &&
      !audit.entries.some((e) => e.target === n.params.data!.checkpoint),
  )
  await c.call('governance/approval', { checkpoint: cp.params.data!.checkpoint, artifact: {}, approver: 'user-123', decision: 'rejected' })
  assert.match((await next).output, /^Not approved/)
})

test('strict governance: an early decision from a connection that is not an approver does not decide the checkpoint', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const strict = await connect(s, { governanceLevel: 'strict' })
  t.after(() => strict.close())
  const approver = await connect(s, { agentId: 'reviewer', capabilities: { approver: true } })
  t.after(() => approver.close())
  await strict.call('governance/approval', { checkpoint: 'delete_file', artifact: {}, approver: 'me', decision: 'approved' })
  const task = strict.call<TaskResult>('agent/request', DELETE)
  const cp = await approver.nextNotification((n) => n.params.event === 'checkpoint')
  await approver.call('governance/approval', { checkpoint: cp.params.data!.checkpoint, artifact: {}, approver: 'boss', decision: 'rejected' })
  assert.match((await task).output, /^Not approved/, 'the approver decided, not the early decision')
})
