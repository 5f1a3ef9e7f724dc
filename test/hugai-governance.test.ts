import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startServer } from './harness.js'
import { connect, post, rpcCode, seed, type AuditPage, type RpcAnswer, type TaskResult } from './hugai-support.js'

const DELETE = { sourceAgent: 'demo-agent-1', targetAgent: 'demo', task: 'delete the notes' }
const OUTPUT = {
  approved: /^Done: deleted notes\/demo\.txt\.$/,
  rejected: /^Not approved, so notes\/demo\.txt was not deleted\. \(use the archive instead\)$/,
  needs_revision: /^Not approved, so notes\/demo\.txt was not deleted\. \(needs revision: use the archive instead\)$/,
}

for (const decision of ['approved', 'rejected', 'needs_revision'] as const) {
  test(`checkpoint event to the approver connection and the requester; decided ${decision}; audited`, async (t) => {
    const s = await startServer()
    t.after(() => s.close())
    const approver = await connect(s, { agentId: 'reviewer', capabilities: { approver: true } })
    t.after(() => approver.close())
    const bystander = await connect(s, { agentId: 'bystander' })
    t.after(() => bystander.close())
    const c = await connect(s)
    t.after(() => c.close())
    const task = c.call<TaskResult>('agent/request', DELETE)
    const cp = await approver.nextNotification((n) => n.params.event === 'checkpoint')
    const data = cp.params.data as { checkpoint: string; level: string; artifact: Record<string, unknown> }
    assert.deepEqual(data.artifact, {
      tool: 'delete_file',
      description: 'Deletes a file permanently',
      arguments: { path: 'notes/demo.txt' },
      reasoning: 'You asked me to delete the demo notes file.',
      risk: 'high',
    })
    assert.equal(data.level, 'supervised')
    assert.equal((await c.nextNotification((n) => n.params.event === 'checkpoint')).params.data!.checkpoint, data.checkpoint)
    const ok = await approver.call('governance/approval', {
      checkpoint: data.checkpoint,
      artifact: data.artifact,
      approver: 'user-123',
      decision,
      feedback: 'use the archive instead',
    })
    assert.deepEqual(ok, { checkpoint: data.checkpoint, decision, recorded: true })
    const r = await task
    assert.match(r.output, OUTPUT[decision])
    assert.deepEqual(r.toolResults, decision === 'approved' ? [{ tool: 'delete_file', result: 'deleted notes/demo.txt' }] : [])
    const resolved = await approver.nextNotification((n) => n.params.event === 'checkpoint-resolved')
    assert.deepEqual(resolved.params.data, {
      checkpoint: data.checkpoint,
      taskId: r.taskId,
      approved: decision === 'approved',
      by: 'user',
      feedback:
        decision === 'approved'
          ? 'use the archive instead'
          : decision === 'rejected'
            ? 'use the archive instead'
            : 'needs revision: use the archive instead',
    })
    assert.ok(!bystander.notifications.some((n) => n.params.event === 'checkpoint'), 'only approvers and the requester are told')
    // A second decision finds nothing pending: recorded, and it says so.
    const again = await approver.call<Record<string, unknown>>('governance/approval', {
      checkpoint: data.checkpoint,
      artifact: {},
      approver: 'user-123',
      decision: 'approved',
    })
    assert.deepEqual([again.recorded, again.matched], [true, false])
    const audit = await c.call<AuditPage>('audit/query', { action: 'approval' })
    assert.deepEqual(
      audit.entries.map((e) => [e.actor, e.target, e.details.decision, e.details.feedback, e.details.taskId]),
      [
        ['user-123', data.checkpoint, decision, 'use the archive instead', r.taskId],
        ['user-123', data.checkpoint, 'approved', null, null],
      ],
    )
  })
}

test('autonomous governance: the hub approves itself (audited); strict: only an approver may decide', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const auto = await connect(s, { governanceLevel: 'autonomous' })
  t.after(() => auto.close())
  const r = await auto.call<TaskResult>('agent/request', DELETE)
  assert.match(r.output, /^Done: deleted/)
  assert.ok(!auto.notifications.some((n) => n.params.event === 'checkpoint'))
  const cps = await auto.call<AuditPage>('audit/query', { action: 'checkpoint' })
  assert.equal(cps.entries[0]!.details.level, 'autonomous')

  const strict = await connect(s, { governanceLevel: 'strict' })
  t.after(() => strict.close())
  const approver = await connect(s, { agentId: 'reviewer', capabilities: { approver: true } })
  t.after(() => approver.close())
  const task = strict.call<TaskResult>('agent/request', DELETE)
  const cp = await strict.nextNotification((n) => n.params.event === 'checkpoint')
  const checkpoint = cp.params.data!.checkpoint
  await assert.rejects(strict.call('governance/approval', { checkpoint, artifact: {}, approver: 'me', decision: 'approved' }), rpcCode(-32004))
  await approver.call('governance/approval', { checkpoint, artifact: {}, approver: 'boss', decision: 'rejected' })
  assert.match((await task).output, /^Not approved/)
})

test('an unanswered checkpoint times out (approval timeout), tells everyone notified and is audited; an HTTP requester is answered too', async (t) => {
  const s = await startServer({ limits: { approvalTimeoutMs: 200 } })
  t.after(() => s.close())
  const approver = await connect(s, { agentId: 'reviewer', capabilities: { approver: true } })
  t.after(() => approver.close())
  const http = await post<RpcAnswer<TaskResult>>(s, { jsonrpc: '2.0', id: 1, method: 'agent/request', params: DELETE })
  assert.match(http.body.result!.output, /timed out/)
  const resolved = await approver.nextNotification((n) => n.params.event === 'checkpoint-resolved')
  assert.equal(resolved.params.data!.by, 'timeout')
  const audit = await approver.call<AuditPage>('audit/query', { action: 'checkpoint-resolved' })
  assert.equal(audit.entries[0]!.details.by, 'timeout')
  // The seed's own example names a checkpoint nobody waits on: recorded, not matched (issue 20).
  const early = await post<RpcAnswer<{ recorded: boolean; matched: boolean }>>(s, seed('governance-approval'))
  assert.deepEqual([early.body.result?.recorded, early.body.result?.matched], [true, false])
})
