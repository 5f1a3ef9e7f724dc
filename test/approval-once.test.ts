// Approvals and client tool results count at most once, over the wire (issue 47): two clients on two cluster nodes
// answer the same approval in the same tick; an approval or client tool call pending at a kill -9 is answered after
// the restart.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test, type TestContext } from 'node:test'
import { HaiClient, textOf, type HaiServerMessage } from '../src/client/index.js'
import type { StoredEvent } from '../src/core/index.js'
import { defineAgent } from '../src/agent-api/index.js'
import { dropPrefix, FAST, REDIS_URL, testPrefix } from './cluster-support.js'
import { startServer } from './harness.js'
import { spawnServe } from './support/serve-process.js'
import { waitFor } from './support/wait.js'

const prefix = testPrefix()
after(() => dropPrefix(prefix))

/** How many times the destructive tool ran, across both in-process nodes. */
let deletions = 0

/**
 * Asks to delete, deletes when approved, then asks a second question: the run stays active while the losing answer
 * travels, so only the at-most-once guard (not the run's end) can refuse it.
 */
const twice = defineAgent({
  name: 'twice',
  tools: {
    delete_file: {
      description: 'Deletes a file permanently',
      parameters: { type: 'object', properties: {} },
      execute: () => `deleted (${++deletions})`,
    },
  },
  async run(ctx) {
    const first = await ctx.approve({ tool: 'delete_file', args: {}, risk: 'high', reasoning: 'asked to delete' })
    if (first.approved) await ctx.callTool('delete_file', {})
    const second = await ctx.approve({ tool: 'delete_file', args: { again: true }, risk: 'high', reasoning: 'asked again' })
    await ctx.say(second.approved ? 'approved twice' : 'stopped after one')
  },
})

const errors = (messages: readonly HaiServerMessage[]) => messages.filter((m) => m.type === 'error')

test('two clients on two nodes approve the same request in the same tick: one answer counts, the tool runs once, the other client is told', async (t) => {
  const node = (id: string) => startServer({ store: REDIS_URL, cluster: { prefix, nodeId: id, leaseMs: 1000 }, limits: FAST, agents: [twice] })
  const one = await node('once-1')
  t.after(() => one.close())
  const two = await node('once-2')
  t.after(() => two.close())
  const a = await one.hai()
  a.say('delete the file')
  const req = await a.next('tool_approval_request')
  // The second client follows the same session on the other node, and sees the same request.
  const b = await two.hai({ sessionId: a.sessionId, resumeAfter: 0 })
  const seen = await b.next('tool_approval_request')
  assert.equal(seen.approval_id, req.approval_id)

  // The same tick: both frames leave before either answer can come back.
  a.approve(req.approval_id, true, 'from node one')
  b.approve(req.approval_id, true, 'from node two')

  // The refused one is told in HAI's shape, naming the approval, while the run is still active (its second question).
  const isRefusal = (m: HaiServerMessage) => m.type === 'error' && m.error_code === 'not_found'
  await waitFor(() => a.received.some(isRefusal) || b.received.some(isRefusal), { what: 'the refusal of one answer', timeoutMs: 15_000 })
  const second = await waitFor(() => a.received.find((m) => m.type === 'tool_approval_request' && m.approval_id !== req.approval_id), {
    what: 'the second question (the run still active)',
    timeoutMs: 15_000,
  })
  assert.ok(second.type === 'tool_approval_request')
  const refused = [...errors(a.received), ...errors(b.received)].filter(isRefusal)
  assert.equal(refused.length, 1, `one answer is refused: ${JSON.stringify(refused)}`)
  const r = refused[0]!
  assert.match(r.type === 'error' ? r.message : '', new RegExp(req.approval_id), 'the refusal names the approval')
  assert.equal(deletions, 1, 'the tool ran once')
  a.approve(second.approval_id, false)
  assert.equal(textOf(await a.untilCompleted(15_000)), 'stopped after one')

  // The log (read from the store, not a node's memory): one resolution, one run of the tool.
  await one.server.sessions.store.flush()
  const log: StoredEvent[] = await one.server.sessions.store.backend.readEvents(a.sessionId, 0, 10_000)
  assert.equal(log.filter((e) => e.type === 'approval.resolved' && e.approvalId === req.approval_id).length, 1, 'the approval is resolved once')
  assert.equal(log.filter((e) => e.type === 'tool.result' && e.toolName === 'delete_file').length, 1, 'the tool runs once')
})

/** A node on SQLite in `dir`, in its own process so it can be killed -9. */
const sqliteNode = (t: TestContext, dir: string) => spawnServe(t, ['--store', 'sqlite', '--data', dir])

test('an approval pending at a kill -9 is answered after the restart: it has expired, the tool never runs, the client is told', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-once-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const first = await sqliteNode(t, dir)
  const a = await HaiClient.connect({ url: first.url })
  t.after(() => a.close())
  a.say('delete the file')
  const req = await a.next('tool_approval_request')
  await first.kill()

  const second = await startServer({ store: 'sqlite', dataDir: dir })
  t.after(() => second.close())
  const b = await second.hai({ sessionId: a.sessionId, resumeAfter: a.lastSeq })
  b.approve(req.approval_id, true, 'too late')
  const err = await b.next((m) => m.type === 'error' && m.error_code === 'not_found')
  assert.match(err.type === 'error' ? err.message : '', new RegExp(req.approval_id), 'the refusal names the approval')

  await second.server.sessions.store.flush()
  const log: StoredEvent[] = await second.server.sessions.store.backend.readEvents(a.sessionId, 0, 10_000)
  const resolved = log.filter((e) => e.type === 'approval.resolved')
  assert.deepEqual(
    resolved.map((e) => e.type === 'approval.resolved' && [e.approvalId, e.approved]),
    [[req.approval_id, false]],
    'the restart closed the approval, unapproved',
  )
  assert.equal(log.filter((e) => e.type === 'tool.result' || e.type === 'tool.call').length, 0, 'the tool never ran')
  assert.equal(log.at(-1)?.type === 'run.error' && log.at(-1)!.type, 'run.error', 'the run ended as interrupted')
})

test('a client tool call pending at a kill -9 is answered after the restart: refused, nothing recorded as its result, the client is told', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-once-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const first = await sqliteNode(t, dir)
  const a = await HaiClient.connect({ url: first.url })
  t.after(() => a.close())
  a.say('client')
  const call = await a.next('tool_call_start')
  await first.kill()

  const second = await startServer({ store: 'sqlite', dataDir: dir })
  t.after(() => second.close())
  const b = await second.hai({ sessionId: a.sessionId, resumeAfter: a.lastSeq })
  b.toolResult(call.tool_call_id, { result: { via: 'too late' } })
  const err = await b.next((m) => m.type === 'error' && m.error_code === 'not_found')
  assert.match(err.type === 'error' ? err.message : '', new RegExp(call.tool_call_id))

  await second.server.sessions.store.flush()
  const log: StoredEvent[] = await second.server.sessions.store.backend.readEvents(a.sessionId, 0, 10_000)
  assert.equal(log.filter((e) => e.type === 'tool.result').length, 0, 'the late result is not recorded as the call’s result')
  assert.ok(
    log.some((e) => e.type === 'tool.cancel' && e.toolCallId === call.tool_call_id),
    'the restart cancelled the pending call',
  )
  assert.equal(textOf(b.received).includes('too late'), false)
})
