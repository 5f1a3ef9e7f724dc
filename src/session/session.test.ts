import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DEFAULT_LIMITS, isRunEnd, ParlanceError, type EventOf } from '../core/index.js'
import { defineAgent, type ApprovalResult } from '../agent-api/index.js'
import { deferred } from '../../test/support/delegating-backend.js'
import { aborted, echo, isCode, keepAlive, range, say, seqsOf, setup } from './fixtures/harness.js'

// Runs: seqs, one active run per session, approvals and client tools.

test('seq is 1, 2, 3… with no gaps across runs, and every event carries sessionId, runId, seq and ts', async () => {
  const s = setup([echo])
  const { session, rec } = await s.open()
  const runs: string[] = []
  for (const text of ['one', 'two', 'three']) {
    const runId = say(session, text)
    runs.push(runId)
    assert.equal((await rec.end(runId)).type, 'run.finished')
  }
  assert.equal(new Set(runs).size, 3)
  await s.store.flush()
  const stored = await s.backend.readEvents(session.id, 0, 1000)
  assert.deepEqual(seqsOf(stored), range(1, stored.length))
  assert.equal(session.lastSeq, stored.length)
  assert.deepEqual(rec.events, stored, 'the subscriber saw exactly the committed log, in order')
  for (const e of stored) {
    assert.equal(e.sessionId, session.id)
    assert.ok(runs.includes(e.runId), `${e.type} has a run id`)
    assert.ok(Number.isInteger(e.seq) && e.seq >= 1)
    assert.ok(Number.isFinite(e.ts) && e.ts > 0)
  }
  for (const runId of runs) {
    assert.deepEqual(
      rec.of(runId).map((e) => e.type),
      ['message.user', 'run.started', 'status', 'text.start', 'text.delta', 'text.delta', 'text.end', 'run.finished'],
    )
  }
  assert.deepEqual(
    session.model.messages.map((m) => [m.role, m.content]),
    [
      ['user', 'one'],
      ['assistant', 'Echo: one'],
      ['user', 'two'],
      ['assistant', 'Echo: two'],
      ['user', 'three'],
      ['assistant', 'Echo: three'],
    ],
  )
  const record = await s.backend.getSession(session.id)
  assert.deepEqual([record?.lastSeq, record?.activeRunId, record?.messages.length], [stored.length, null, 6])
})

test('an agent that throws ends its run with run.error execution_error: masked, with a ref; the thrown error kept internal', async () => {
  const boom = defineAgent({
    name: 'boom',
    async run() {
      throw new Error('kaput', { cause: new Error('the disk is full') })
    },
  })
  const s = setup([boom])
  const { session, rec } = await s.open()
  const runId = say(session, 'go')
  const end = (await rec.end(runId)) as EventOf<'run.error'>
  const ref = end.internal?.ref ?? ''
  assert.match(ref, /^[0-9a-f]{10}$/)
  assert.deepEqual([end.type, end.code, end.message, end.details], ['run.error', 'execution_error', `the agent failed (ref ${ref})`, { ref }])
  assert.equal(end.internal?.message, 'kaput')
  assert.match(end.internal?.stack ?? '', /^Error: kaput\n\s+at .*session\.test\.ts[\s\S]*\ncaused by: Error: the disk is full/)
  assert.equal(session.activeRunId, null)
})

test('a ParlanceError thrown with expose, and any failure with exposeErrors, reach clients as thrown', async () => {
  const said = defineAgent({
    name: 'said',
    async run(ctx) {
      if (ctx.input.text === 'public') throw new ParlanceError('invalid_message', 'say a number', { field: 'text' }, { expose: true })
      throw new ParlanceError('unavailable', 'db at 10.0.0.7 is down')
    },
  })
  const s = setup([said])
  const { session, rec } = await s.open()
  const shown = (await rec.end(say(session, 'public'))) as EventOf<'run.error'>
  assert.deepEqual([shown.code, shown.message, shown.details], ['invalid_message', 'say a number', { field: 'text' }])
  const hidden = (await rec.end(say(session, 'private'))) as EventOf<'run.error'>
  assert.deepEqual([hidden.code, hidden.message], ['unavailable', `the agent failed (ref ${hidden.internal?.ref})`])
  const dev = setup([said], { exposeErrors: true })
  const opened = await dev.open()
  const exposed = (await opened.rec.end(say(opened.session, 'private'))) as EventOf<'run.error'>
  assert.deepEqual([exposed.code, exposed.message], ['unavailable', 'db at 10.0.0.7 is down'])
})

test('one active run per session: a new user.message interrupts the previous run', async () => {
  const signals: AbortSignal[] = []
  const slow = defineAgent({
    name: 'slow',
    async run(ctx) {
      signals.push(ctx.signal)
      await ctx.say(
        (async function* () {
          yield 'partial'
          await aborted(ctx.signal)
          yield 'never sent'
        })(),
      )
    },
  })
  const s = setup([slow, echo])
  const { session, rec } = await s.open()
  const run1 = say(session, 'first')
  const start = await rec.next('text.start', run1)
  await rec.next('text.delta', run1)
  assert.equal(signals[0]!.aborted, false)

  const run2 = say(session, 'second', { agent: 'echo' })
  assert.notEqual(run2, run1)
  assert.equal(signals[0]!.aborted, true, 'the interrupted run is aborted at once')
  assert.ok(isCode('interrupted')(signals[0]!.reason))
  assert.equal((await rec.end(run2)).type, 'run.finished')
  await s.store.flush()

  const textEnd = rec.events.find((e) => e.type === 'text.end' && e.messageId === start.messageId)
  const error = rec.of(run1).find((e): e is EventOf<'run.error'> => e.type === 'run.error')
  const started2 = await rec.next('run.started', run2)
  const user2 = await rec.next('message.user', run2)
  assert.ok(textEnd && error, 'the open message was ended and the run ended with an error')
  assert.equal(textEnd.runId, run1)
  assert.equal(error.code, 'interrupted')
  assert.ok(textEnd.seq < error.seq, 'text.end before run.error')
  assert.ok(error.seq < user2.seq && user2.seq < started2.seq, 'run.error before the new run starts')
  // The interrupted run ends exactly once and emits nothing after its end.
  assert.equal(rec.of(run1).filter(isRunEnd).length, 1)
  assert.equal(rec.of(run1).at(-1), error)
  assert.ok(!rec.events.some((e) => e.type === 'text.delta' && e.delta === 'never sent'))
  assert.deepEqual(seqsOf(rec.events), range(1, rec.events.length))
})

const results: ApprovalResult[] = []
const careful = defineAgent({
  name: 'careful',
  tools: { delete_all: { description: 'Deletes everything', execute: () => 'deleted' } },
  async run(ctx) {
    const r = await ctx.approve({ tool: 'delete_all', args: { really: true }, risk: 'critical', reasoning: 'you asked' })
    results.push(r)
    if (r.approved) await ctx.callTool('delete_all')
  },
})

test('approve() resolves when the approval.response arrives', async () => {
  results.length = 0
  const s = setup([careful])
  const { session, rec } = await s.open()
  const runId = say(session, 'clean up')
  const req = await rec.next('approval.requested', runId)
  assert.deepEqual(
    [req.toolName, req.toolDescription, req.args, req.reasoning, req.risk, req.timeoutMs],
    ['delete_all', 'Deletes everything', { really: true }, 'you asked', 'critical', DEFAULT_LIMITS.approvalTimeoutMs],
  )
  assert.equal(s.manager.findPending(req.approvalId), session)
  await s.store.flush()
  assert.deepEqual(results, [], 'the agent waits for the answer')

  assert.throws(() => session.handle({ type: 'approval.response', approvalId: 'appr_unknown', approved: true }), isCode('not_found'))
  void session.handle({ type: 'approval.response', approvalId: req.approvalId, approved: true, feedback: 'go ahead' })
  assert.equal((await rec.end(runId)).type, 'run.finished')
  assert.deepEqual(results, [{ approved: true, feedback: 'go ahead', by: 'user' }])
  const resolved = await rec.next('approval.resolved', runId)
  assert.deepEqual([resolved.approvalId, resolved.approved, resolved.feedback, resolved.by], [req.approvalId, true, 'go ahead', 'user'])
  assert.equal((await rec.next('tool.result', runId)).result, 'deleted')
  assert.equal(s.manager.findPending(req.approvalId), undefined)
  // Answered once: a second answer finds nothing.
  assert.throws(() => session.handle({ type: 'approval.response', approvalId: req.approvalId, approved: false }), isCode('not_found'))
})

test('approve() times out with by: "timeout" after limits.approvalTimeoutMs', async (t) => {
  keepAlive(t)
  results.length = 0
  const s = setup([careful], { limits: { approvalTimeoutMs: 20 } })
  const { session, rec } = await s.open()
  const runId = say(session, 'clean up')
  const req = await rec.next('approval.requested', runId)
  assert.equal(req.timeoutMs, 20)
  assert.equal((await rec.end(runId)).type, 'run.finished')
  assert.deepEqual(results, [{ approved: false, by: 'timeout' }])
  const resolved = await rec.next('approval.resolved', runId)
  assert.deepEqual([resolved.approved, resolved.by], [false, 'timeout'])
  assert.ok(!rec.of(runId).some((e) => e.type === 'tool.call'), 'a timed-out approval does not run the tool')
  assert.equal(s.manager.findPending(req.approvalId), undefined)
})

test('approval.response for an unknown id throws not_found (no run at all)', async () => {
  const s = setup([echo])
  const { session } = await s.open()
  assert.throws(() => session.handle({ type: 'approval.response', approvalId: 'appr_x', approved: true }), isCode('not_found'))
  assert.throws(() => session.handle({ type: 'tool.result', toolCallId: 'call_x', outcome: 'success', result: 1 }), isCode('not_found'))
  assert.throws(() => session.handle({ type: 'run.cancel' }), isCode('not_found'))
  assert.equal(session.lastSeq, 0, 'rejected commands spend no seq')
})

test('callTool on a client tool waits for the tool.result and returns it', async () => {
  const got: unknown[] = []
  const picker = defineAgent({
    name: 'picker',
    tools: { pick_file: { description: 'The client shows a file picker' } },
    async run(ctx) {
      const r = await ctx.callTool('pick_file', { ext: '.txt' })
      got.push(r)
      await ctx.say(`picked ${JSON.stringify(r)}`)
    },
  })
  const s = setup([picker])
  const { session, rec } = await s.open()
  const runId = say(session, 'open a file')
  const call = await rec.next('tool.call', runId)
  assert.deepEqual([call.toolName, call.args, call.target], ['pick_file', { ext: '.txt' }, 'client'])
  assert.equal(s.manager.findPending(call.toolCallId), session)
  await s.store.flush()
  assert.deepEqual(got, [], 'the agent waits for the client')
  assert.throws(() => session.handle({ type: 'tool.result', toolCallId: 'call_other', outcome: 'success' }), isCode('not_found'))

  void session.handle({ type: 'tool.result', toolCallId: call.toolCallId, outcome: 'success', result: { path: '/a.txt' } })
  assert.equal((await rec.end(runId)).type, 'run.finished')
  assert.deepEqual(got, [{ path: '/a.txt' }])
  const result = await rec.next('tool.result', runId)
  assert.deepEqual([result.toolCallId, result.toolName, result.result], [call.toolCallId, 'pick_file', { path: '/a.txt' }])
  assert.ok(call.seq < result.seq)
  assert.equal(s.manager.findPending(call.toolCallId), undefined)
  assert.deepEqual(session.model.messages.at(-1), {
    id: (await rec.next('text.end', runId)).messageId,
    role: 'assistant',
    content: 'picked {"path":"/a.txt"}',
  })
})

test('an interrupt cancels a pending client tool call with tool.cancel', async () => {
  const caught = deferred<unknown>()
  const asker = defineAgent({
    name: 'asker',
    async run(ctx) {
      try {
        await ctx.callTool('confirm', { question: 'sure?' })
      } catch (err) {
        caught.resolve(err)
        throw err
      }
    },
  })
  const s = setup([asker, echo])
  const { session, rec } = await s.open()
  const run1 = say(session, 'ask me', { clientTools: [{ name: 'confirm', description: 'asks the user' }] })
  const call = await rec.next('tool.call', run1)
  assert.equal(call.target, 'client', 'a tool offered by the client runs in the client')
  assert.equal(s.manager.findPending(call.toolCallId), session)

  const run2 = say(session, 'never mind', { agent: 'echo' })
  assert.ok(isCode('interrupted')(await caught.promise), 'callTool rejects with interrupted')
  await rec.end(run2)
  const cancel = await rec.next('tool.cancel', run1)
  const error = (await rec.end(run1)) as EventOf<'run.error'>
  const started2 = await rec.next('run.started', run2)
  assert.deepEqual([cancel.toolCallId, cancel.toolName], [call.toolCallId, 'confirm'])
  assert.equal(error.code, 'interrupted')
  assert.ok(cancel.seq < error.seq && error.seq < started2.seq)
  assert.equal(s.manager.findPending(call.toolCallId), undefined)
  assert.throws(() => session.handle({ type: 'tool.result', toolCallId: call.toolCallId, outcome: 'success' }), isCode('not_found'))
  assert.equal(rec.of(run1).filter(isRunEnd).length, 1)
})
