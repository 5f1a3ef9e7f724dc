import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ParlanceError, type EventBody } from '../core/index.js'
import { Run } from './run.js'

const input = { kind: 'message', text: 'hi', messageId: 'msg_1', clientTools: [] } as const

function running(onPending?: (id: string, waiting: boolean) => void) {
  const run = new Run('run_1', 'echo', input, 1, null, onPending)
  const tool = run.clientTools.wait('call_1', 60_000, { toolName: 'pick' }, () => ({ type: 'timeout' }))
  const approval = run.approvals.wait('appr_1', 60_000, { toolName: 'delete_all' }, () => ({ approved: false, by: 'timeout' }))
  run.openReasoning.add('msg_r')
  run.openText.add('msg_t')
  return { run, tool, approval }
}

const isCode = (code: string) => (err: unknown) => err instanceof ParlanceError && err.code === code

test('Run.abort with a recorder: gives up what the run waits for, fires the signal, closes what it left open, in that order', async () => {
  const { run, tool, approval } = running()
  const recorded: EventBody[] = []
  run.abort('cancelled', 'stop it', (b) => recorded.push(b))
  assert.deepEqual(recorded, [
    { type: 'tool.cancel', toolCallId: 'call_1', toolName: 'pick', reason: 'stop it' },
    { type: 'approval.resolved', approvalId: 'appr_1', approved: false, by: 'cancel' },
    { type: 'reasoning.end', messageId: 'msg_r' },
    { type: 'text.end', messageId: 'msg_t', cut: true },
  ])
  assert.ok(run.signal.aborted)
  assert.ok(isCode('cancelled')(run.signal.reason))
  await assert.rejects(tool, isCode('cancelled'))
  await assert.rejects(approval, isCode('cancelled'))
  assert.equal(run.waitsFor('call_1') || run.waitsFor('appr_1'), false)
  assert.throws(() => run.ensureActive(), isCode('cancelled'))
  // What was closed stays closed: a second close records nothing.
  run.close((b) => recorded.push(b))
  assert.equal(recorded.length, 4)
})

test('Run.abort without a recorder (a lost write) records nothing but still stops the run and its waits', async () => {
  const { run, tool, approval } = running()
  run.abort('interrupted', 'another node writes')
  await assert.rejects(tool, isCode('interrupted'))
  await assert.rejects(approval, isCode('interrupted'))
  assert.ok(run.signal.aborted)
  assert.deepEqual([run.openText.size, run.openReasoning.size], [0, 0])
})

test('a run reports each request starting and stopping to wait, from its own state (answer, abort)', async () => {
  const seen: Array<[string, boolean]> = []
  const { run, tool, approval } = running((id, waiting) => seen.push([id, waiting]))
  assert.deepEqual(seen, [
    ['call_1', true],
    ['appr_1', true],
  ])
  assert.ok(run.waitsFor('call_1') && run.waitsFor('appr_1'))
  assert.ok(run.clientTools.resolve('call_1', { type: 'tool.result', toolCallId: 'call_1', outcome: 'success', result: 1 }))
  assert.deepEqual(seen.at(-1), ['call_1', false])
  assert.equal(run.waitsFor('call_1'), false)
  assert.deepEqual(await tool, { type: 'tool.result', toolCallId: 'call_1', outcome: 'success', result: 1 })
  run.abort('interrupted', 'bye')
  await assert.rejects(approval, isCode('interrupted'))
  assert.deepEqual(seen.at(-1), ['appr_1', false])
  assert.equal(seen.length, 4)
})

test('Run.signal: made when first read; read before abort it fires once with the reason, read after it is already aborted with it', () => {
  const early = new Run('run_1', 'echo', input, 1, null)
  const signal = early.signal
  assert.equal(early.signal, signal, 'the same signal every read')
  let fired: unknown
  signal.addEventListener('abort', () => (fired = signal.reason as unknown), { once: true })
  early.abort('interrupted', 'newer message', () => {})
  assert.ok(isCode('interrupted')(fired))

  const late = new Run('run_2', 'echo', input, 1, null)
  late.abort('cancelled', 'stop it', () => {})
  assert.ok(late.signal.aborted)
  assert.ok(isCode('cancelled')(late.signal.reason))
  assert.throws(() => late.signal.throwIfAborted(), isCode('cancelled'))

  const never = new Run('run_3', 'echo', input, 1, null)
  assert.equal(never.signal.aborted, false)
})
