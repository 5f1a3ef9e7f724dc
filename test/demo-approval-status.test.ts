// Issue 37, item 5: HAI's Flow 2 (human-in-the-loop approval) as the seed draws it, with the demo agent: the user's
// message, `status: thinking`, then `tool_approval_request`; approved, the tool runs and the run completes.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startServer } from './harness.js'
import { verifyHaiStream } from './hai-lifecycle.js'

test('HAI Flow 2: status thinking comes before tool_approval_request, then tool_call_start/end and completed', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('Generate the report, then delete my notes')
  const req = await c.next('tool_approval_request')
  const before = c.received.slice(0, c.received.indexOf(req))
  const statuses = before.flatMap((m) => (m.type === 'status' ? [m.status] : []))
  assert.deepEqual(statuses, ['thinking'], `frames before the approval request: ${JSON.stringify(before.map((m) => m.type))}`)
  c.approve(req.approval_id, true)
  await c.untilCompleted()
  verifyHaiStream(c.received)
  const after = c.received.slice(c.received.indexOf(req) + 1).map((m) => (m.type === 'status' ? `status:${m.status}` : m.type))
  const order = ['tool_call_start', 'tool_call_end', 'status:completed'].map((x) => after.indexOf(x))
  assert.ok(
    order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1]!)),
    `in order: ${JSON.stringify(after)}`,
  )
})
