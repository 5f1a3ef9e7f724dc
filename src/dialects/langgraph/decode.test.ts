import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { DEFAULT_LIMITS } from '../../core/index.js'
import { decodeRunRequest, decodeThreadSearch } from './decode.js'
import { resumeCommands } from './decode-resume.js'

const run = (body: unknown) => decodeRunRequest(JSON.stringify(body), DEFAULT_LIMITS)
const human = (content: unknown) => ({ messages: [{ type: 'human', content }] })

test('decode: valid run requests pass (type or role, text blocks, a resume); each refusal names its field', () => {
  assert.ok(run({ assistant_id: 'demo', input: human([{ type: 'text', text: 'hi' }]), stream_mode: ['values', 'messages-tuple'], config: {} }).ok)
  assert.ok(run({ assistant_id: 'demo', input: { messages: [{ role: 'user', content: 'hi' }] }, stream_mode: 'updates' }).ok)
  assert.ok(run({ assistant_id: 'demo', input: null, command: { resume: { decisions: [{ type: 'approve' }] } } }).ok)
  const rows: Array<[unknown, string, string]> = [
    [{ input: human('hi') }, 'invalid_message', 'assistant_id'],
    [{ assistant_id: 'demo' }, 'invalid_message', 'input'],
    [{ assistant_id: 'demo', input: human('hi'), command: { resume: 1 } }, 'invalid_message', 'command.resume'],
    [{ assistant_id: 'demo', input: { messages: [{ type: 'wizard', content: 'x' }] } }, 'invalid_message', 'input.messages[0]'],
    [{ assistant_id: 'demo', input: human([{ type: 'image_url' }]) }, 'invalid_message', 'input.messages[0].content[0]'],
    [{ assistant_id: 'demo', input: human('x'.repeat(10_001)) }, 'message_too_long', 'input.messages[0].content'],
    [
      {
        assistant_id: 'demo',
        input: {
          messages: [
            { type: 'human', content: 'a' },
            { type: 'ai', content: 'b' },
          ],
        },
      },
      'invalid_message',
      'input.messages[1]',
    ],
    [{ assistant_id: 'demo', input: human('hi'), stream_mode: 'everything' }, 'invalid_message', 'stream_mode'],
    [{ assistant_id: 'demo', input: human('hi'), multitask_strategy: 'fork' }, 'invalid_message', 'multitask_strategy'],
    [{ assistant_id: 'demo', command: { goto: 'agent' } }, 'invalid_message', 'command.goto'],
    [{ assistant_id: 'demo', input: human('hi'), interrupt_before: ['agent'] }, 'invalid_message', 'interrupt_before'],
  ]
  for (const [body, code, field] of rows) {
    const d = run(body)
    assert.ok(!d.ok, JSON.stringify(body).slice(0, 80))
    assert.equal(d.error.code, code, d.error.message)
    assert.equal(d.error.details?.field, field, d.error.message)
  }
  const proto = decodeRunRequest('{"assistant_id":"demo","input":{"messages":[{"type":"human","content":"x","__proto__":{}}]}}', DEFAULT_LIMITS)
  assert.ok(!proto.ok && proto.error.code === 'forbidden_key')
  const bad = decodeRunRequest('{"assistant_id"', DEFAULT_LIMITS)
  assert.ok(!bad.ok && bad.error.code === 'invalid_json')
  assert.ok(decodeThreadSearch('', DEFAULT_LIMITS).ok, 'an empty body is {}')
  assert.ok(!decodeThreadSearch('{"limit": 0}', DEFAULT_LIMITS).ok)
})

test('decode never throws', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.json(),
        fc.jsonValue().map((v) => JSON.stringify({ assistant_id: 'demo', input: v, command: v })),
      ),
      (body) => {
        decodeRunRequest(body, DEFAULT_LIMITS)
        decodeThreadSearch(body, DEFAULT_LIMITS)
      },
    ),
    { numRuns: 500 },
  )
})

test('resumeCommands: HITL decisions, answers keyed by interrupt id, a bare value; edit and nothing pending refused', () => {
  const approval = [{ id: 'apr_1', kind: 'approval' as const }]
  const tool = [{ id: 'tc_1', kind: 'tool' as const }]
  assert.deepEqual(resumeCommands('s', { decisions: [{ type: 'approve' }] }, approval), [
    { type: 'approval.response', sessionId: 's', approvalId: 'apr_1', approved: true },
  ])
  assert.deepEqual(resumeCommands('s', { decisions: [{ type: 'reject', message: 'no' }] }, approval), [
    { type: 'approval.response', sessionId: 's', approvalId: 'apr_1', approved: false, feedback: 'no' },
  ])
  assert.deepEqual(resumeCommands('s', { apr_1: false }, approval), [
    { type: 'approval.response', sessionId: 's', approvalId: 'apr_1', approved: false },
  ])
  assert.deepEqual(resumeCommands('s', { tc_1: { app: 'x' } }, tool), [
    { type: 'tool.result', sessionId: 's', toolCallId: 'tc_1', outcome: 'success', result: { app: 'x' } },
  ])
  assert.deepEqual(resumeCommands('s', { error: 'boom' }, tool), [
    { type: 'tool.result', sessionId: 's', toolCallId: 'tc_1', outcome: 'failure', error: 'boom' },
  ])
  assert.deepEqual(resumeCommands('s', 42, tool), [{ type: 'tool.result', sessionId: 's', toolCallId: 'tc_1', outcome: 'success', result: 42 }])
  const refused: Array<[unknown, readonly { id: string; kind: 'approval' | 'tool' }[], string]> = [
    [{ decisions: [{ type: 'edit', edited_action: { name: 'f', args: {} } }] }, approval, 'invalid_message'],
    [{ decisions: [{ type: 'approve' }, { type: 'approve' }] }, approval, 'invalid_message'],
    ['maybe', approval, 'invalid_message'],
    [true, [], 'conflict'],
    [1, [...approval, ...tool], 'invalid_message'],
  ]
  for (const [resume, pending, code] of refused) {
    assert.throws(
      () => resumeCommands('s', resume, pending),
      (e: { code: string }) => e.code === code,
      JSON.stringify(resume),
    )
  }
})
