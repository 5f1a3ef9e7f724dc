import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DEFAULT_LIMITS } from '../../core/index.js'
import { decodeChatCompletion, decodeResponseRequest } from './decode.js'
import { approvalOf, reconcileChat, reconcileResponse } from './reconcile.js'

const chat = (body: unknown) => decodeChatCompletion(JSON.stringify(body), DEFAULT_LIMITS)
const resp = (body: unknown) => decodeResponseRequest(JSON.stringify(body), DEFAULT_LIMITS)

test('decode: valid requests pass; each refusal names the param', () => {
  assert.ok(chat({ model: 'demo', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: true, temperature: 0.2 }).ok)
  assert.ok(
    resp({ model: 'demo', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }], tools: [{ type: 'function', name: 'f' }] }).ok,
  )
  const rows: Array<[{ ok: true } | { ok: false; error: { code: string; message: string; details?: Record<string, unknown> } }, string, string]> = [
    [chat({ messages: [] }), 'invalid_message', 'model'],
    [chat({ model: 'demo', messages: [] }), 'invalid_message', 'messages'],
    [chat({ model: 'demo', messages: [{ role: 'wizard', content: 'x' }] }), 'invalid_message', 'messages[0]'],
    [chat({ model: 'demo', messages: [{ role: 'user', content: [{ type: 'input_audio' }] }] }), 'invalid_message', 'messages[0].content[0]'],
    [resp({ model: 'demo', input: 'x', tools: [{ type: 'file_search' }] }), 'invalid_message', 'tools[0]'],
    // Found by the property test: a part that is not an object threw inside the text check.
    [resp({ model: ' ', input: [{ type: 'message', content: [null] }] }), 'invalid_message', 'input[0].content[0]'],
  ]
  for (const [d, code, field] of rows) {
    assert.ok(!d.ok)
    assert.equal(d.error.code, code, d.error.message)
    assert.equal(d.error.details?.field, field, d.error.message)
  }
  const proto = decodeChatCompletion('{"model":"demo","messages":[{"role":"user","content":"x","__proto__":{}}]}', DEFAULT_LIMITS)
  assert.ok(!proto.ok && proto.error.code === 'forbidden_key')
  const bad = decodeChatCompletion('{"model"', DEFAULT_LIMITS)
  assert.ok(!bad.ok && bad.error.code === 'invalid_json')
})

const session = (waiting: string[] = [], messages: number = 0) => ({
  id: 's-1',
  model: { messages: Array.from({ length: messages }, (_, i) => ({ id: `h${i}`, role: 'user' as const, content: `h${i}` })) },
  waitsFor: (id: string) => waiting.includes(id),
})

test('reconcileChat: a stateless history seeds a new session; system text goes to the turn as instructions', () => {
  const d = chat({
    model: 'demo',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'Echo: one' },
      { role: 'user', content: 'two' },
    ],
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
  })
  assert.ok(d.ok)
  const cmds = reconcileChat(session(), d.value, 'demo')
  assert.deepEqual(
    cmds.map((c) => c.type),
    ['history.replace', 'user.message'],
  )
  const msg = cmds[1] as Extract<(typeof cmds)[number], { type: 'user.message' }>
  assert.equal(msg.content, 'two')
  assert.deepEqual(msg.metadata, { openai: { instructions: 'Be brief.' } })
  assert.deepEqual(msg.clientTools, [{ name: 'f', parameters: { type: 'object' } }])
  // A session that has history takes only the new turn.
  assert.deepEqual(
    reconcileChat(session([], 2), d.value, 'demo').map((c) => c.type),
    ['user.message'],
  )
})

test('reconcileChat: trailing tool messages answer what the session waits for (approvals by the parlance_approval call)', () => {
  const d = chat({
    model: 'demo',
    messages: [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_czE.appr_1', type: 'function', function: { name: 'parlance_approval', arguments: '{}' } },
          { id: 'call_czE.tc_1', type: 'function', function: { name: 'f', arguments: '{}' } },
          { id: 'call_czE.gone', type: 'function', function: { name: 'f', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_czE.appr_1', content: 'approve' },
      { role: 'tool', tool_call_id: 'call_czE.tc_1', content: '{"x":1}' },
      { role: 'tool', tool_call_id: 'call_czE.gone', content: 'late' },
    ],
  })
  assert.ok(d.ok)
  assert.deepEqual(reconcileChat(session(['appr_1', 'tc_1']), d.value, 'demo'), [
    { type: 'approval.response', sessionId: 's-1', approvalId: 'appr_1', approved: true },
    { type: 'tool.result', sessionId: 's-1', toolCallId: 'tc_1', outcome: 'success', result: { x: 1 } },
  ])
})

test('approvalOf: JSON or a plain yes approves; anything else refuses, with the text as feedback', () => {
  assert.deepEqual(approvalOf('{"approved":false,"feedback":"keep it"}'), { approved: false, feedback: 'keep it' })
  assert.deepEqual(approvalOf(' Yes '), { approved: true })
  assert.deepEqual(approvalOf('true'), { approved: true })
  assert.deepEqual(approvalOf('no'), { approved: false })
  assert.deepEqual(approvalOf('not this file'), { approved: false, feedback: 'not this file' })
})

test('reconcileResponse: approval and function outputs answer; a trailing user item is a turn; earlier items extend the history', () => {
  const d = resp({
    model: 'demo',
    instructions: 'Be kind.',
    input: [
      { type: 'mcp_approval_response', approval_request_id: 'appr_1', approve: false, reason: 'no' },
      { type: 'function_call_output', call_id: 'tc_1', output: 'plain' },
      { role: 'assistant', content: 'before' },
      { role: 'user', content: 'now' },
    ],
  })
  assert.ok(d.ok)
  const cmds = reconcileResponse(session(['appr_1', 'tc_1'], 1), d.value, 'demo')
  assert.deepEqual(
    cmds.map((c) => c.type),
    ['approval.response', 'tool.result', 'history.replace', 'user.message'],
  )
  assert.deepEqual(cmds[0], { type: 'approval.response', sessionId: 's-1', approvalId: 'appr_1', approved: false, feedback: 'no' })
  assert.equal((cmds[2] as { messages: unknown[] }).messages.length, 2)
  assert.deepEqual((cmds[3] as { metadata?: unknown }).metadata, { openai: { instructions: 'Be kind.' } })
})
