import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import fc from 'fast-check'
import { DEFAULT_LIMITS, ERROR_CODES, type Command } from '../../core/index.js'
import { decode } from './decode.js'
import { encodeError } from './encode.js'
import { HUMA_ERROR_CODES } from './errors.js'

const FIXTURES = new URL('./fixtures/', import.meta.url)
const limits = {
  maxFrameBytes: DEFAULT_LIMITS.maxFrameBytes,
  maxJsonDepth: DEFAULT_LIMITS.maxJsonDepth,
  maxUserMessageChars: DEFAULT_LIMITS.maxUserMessageChars,
}
const ID = '550e8400-e29b-41d4-a716-446655440000'

/** Folder → inbound (decodes) or outbound (a server event, refused when sent to the server). */
const CHECKS: Record<string, 'inbound' | 'outbound'> = {
  'context-update': 'inbound',
  'tool-result': 'inbound',
  'addon-tool-event': 'inbound',
  'tool-call': 'outbound',
  'cancel-tool-call': 'outbound',
  messaging: 'outbound',
  error: 'outbound',
}

test('every seed example decodes to its canonical command; server events are refused inbound', () => {
  const folders = readdirSync(FIXTURES, { withFileTypes: true }).filter((d) => d.isDirectory())
  assert.deepEqual(folders.map((d) => d.name).sort(), Object.keys(CHECKS).sort(), 'a fixture folder without a check')
  for (const dir of folders) {
    for (const f of readdirSync(new URL(`${dir.name}/`, FIXTURES))) {
      const text = readFileSync(new URL(`${dir.name}/${f}`, FIXTURES), 'utf8')
      const d = decode(text, limits)
      if (CHECKS[dir.name] === 'outbound') {
        assert.ok(!d.ok && d.error.code === 'unknown_type', `${dir.name}/${f} must be refused`)
        continue
      }
      assert.ok(d.ok, `${dir.name}/${f}: ${d.ok ? '' : d.error.message}`)
      const wire = JSON.parse(text) as Record<string, unknown>
      const expected: Record<string, Command['type']> = {
        'context-update': 'context.update',
        'tool-result': 'tool.result',
        'addon-tool-event': 'addon.event',
      }
      assert.equal(d.value.type, expected[dir.name])
      if (d.value.type === 'tool.result') {
        assert.deepEqual(
          [d.value.toolCallId, d.value.toolName, d.value.outcome, d.value.triggering, d.value.result, d.value.error],
          [wire.toolCallId, wire.toolName, wire.outcome, wire.triggering, wire.result, wire.error],
        )
      }
    }
  }
})

test('context-update maps every field; the endpoint fills the session', () => {
  const d = decode(
    JSON.stringify({ type: 'context-update', triggering: true, name: 'n', context: { a: [1] }, description: 'weather in Oslo' }),
    limits,
  )
  assert.deepEqual(d, {
    ok: true,
    value: { type: 'context.update', sessionId: '', name: 'n', description: 'weather in Oslo', context: { a: [1] }, triggering: true },
  })
})

test('addon-tool-event becomes addon.event with its data; request_approval results become approval answers', () => {
  const data = { messageIndex: 2, success: false, error: 'rate limited' }
  assert.deepEqual(decode(JSON.stringify({ type: 'addon-tool-event', toolCallId: ID, data }), limits), {
    ok: true,
    value: { type: 'addon.event', toolCallId: ID, data },
  })
  const answer = (outcome: string, result?: unknown) =>
    decode(JSON.stringify({ type: 'tool-result', triggering: true, toolCallId: 'appr_1', toolName: 'request_approval', outcome, result }), limits)
  assert.deepEqual(answer('success', { approved: true, feedback: 'ok' }), {
    ok: true,
    value: { type: 'approval.response', approvalId: 'appr_1', approved: true, feedback: 'ok' },
  })
  assert.deepEqual(answer('success', true), { ok: true, value: { type: 'approval.response', approvalId: 'appr_1', approved: true } })
  assert.deepEqual(answer('success', { approved: false }), { ok: true, value: { type: 'approval.response', approvalId: 'appr_1', approved: false } })
  assert.deepEqual(answer('canceled'), { ok: true, value: { type: 'approval.response', approvalId: 'appr_1', approved: false } })
})

const ctx = (over: Record<string, unknown>) => ({ type: 'context-update', triggering: true, name: 'n', context: {}, description: 'd', ...over })
const res = (over: Record<string, unknown>) => ({ type: 'tool-result', triggering: true, toolCallId: ID, toolName: 't', outcome: 'success', ...over })
const addon = (over: Record<string, unknown>) => ({ type: 'addon-tool-event', toolCallId: ID, data: { messageIndex: 0, success: true }, ...over })
const omit = (o: Record<string, unknown>, k: string) => Object.fromEntries(Object.entries(o).filter(([key]) => key !== k))

/** One row per validation rule of the seed: [name, frame text, field the error names]. */
const REJECT: Array<[string, string, string]> = [
  ['missing triggering', JSON.stringify(omit(ctx({}), 'triggering')), 'triggering'],
  ['triggering not boolean', JSON.stringify(ctx({ triggering: 'yes' })), 'triggering'],
  ['name of 129 characters', JSON.stringify(ctx({ name: 'x'.repeat(129) })), 'name'],
  ['empty name', JSON.stringify(ctx({ name: '' })), 'name'],
  ['missing name', JSON.stringify(omit(ctx({}), 'name')), 'name'],
  ['context an array', JSON.stringify(ctx({ context: [1] })), 'context'],
  ['missing context', JSON.stringify(omit(ctx({}), 'context')), 'context'],
  ['missing description', JSON.stringify(omit(ctx({}), 'description')), 'description'],
  [
    'nested __proto__ in context',
    '{"type":"context-update","triggering":true,"name":"n","description":"d","context":{"a":{"__proto__":{"x":1}}}}',
    'context/a/__proto__',
  ],
  ['constructor in context', JSON.stringify(ctx({ context: { constructor: 1 } })), 'context/constructor'],
  ['prototype deep in context', JSON.stringify(ctx({ context: { a: [{ b: { prototype: 1 } }] } })), 'context/a/0/b/prototype'],
  ['__proto__ at the top', '{"type":"context-update","__proto__":{},"triggering":true,"name":"n","context":{},"description":"d"}', '__proto__'],
  ['tool-result missing triggering', JSON.stringify(omit(res({}), 'triggering')), 'triggering'],
  ['bad outcome', JSON.stringify(res({ outcome: 'done' })), 'outcome'],
  ['missing toolCallId', JSON.stringify(omit(res({}), 'toolCallId')), 'toolCallId'],
  ['missing toolName', JSON.stringify(omit(res({}), 'toolName')), 'toolName'],
  ['result of 65,537 characters as JSON', JSON.stringify(res({ result: 'x'.repeat(65_535) })), 'result'],
  ['error not a string', JSON.stringify(res({ outcome: 'failure', error: 42 })), 'error'],
  [
    '__proto__ in result',
    `{"type":"tool-result","triggering":true,"toolCallId":"${ID}","toolName":"t","outcome":"success","result":{"__proto__":1}}`,
    'result/__proto__',
  ],
  ['addon data missing', JSON.stringify(omit(addon({}), 'data')), 'data'],
  ['addon data not an object', JSON.stringify(addon({ data: 'ok' })), 'data'],
  ['addon messageIndex negative', JSON.stringify(addon({ data: { messageIndex: -1, success: true } })), 'data/messageIndex'],
  ['addon success not boolean', JSON.stringify(addon({ data: { messageIndex: 0, success: 'yes' } })), 'data/success'],
  ['addon context not an object', JSON.stringify(addon({ data: { messageIndex: 0, success: true, context: 'x' } })), 'data/context'],
  [
    'nested __proto__ in addon data',
    `{"type":"addon-tool-event","toolCallId":"${ID}","data":{"context":{"h":{"__proto__":{}}}}}`,
    'data/context/h/__proto__',
  ],
  ['unknown type', JSON.stringify({ type: 'user_message' }), 'type'],
  ['missing type', JSON.stringify({ triggering: true }), 'type'],
  ['not an object', '"hello"', 'type'],
  [
    'too deep',
    `{"type":"context-update","triggering":true,"name":"n","description":"d","context":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}`,
    'context/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a',
  ],
]

test('the validation table: each rule is an INVALID_EVENT error naming the field', () => {
  for (const [name, text, field] of REJECT) {
    const d = decode(text, limits)
    assert.ok(!d.ok, `${name} must be rejected`)
    assert.equal(d.error.details?.field, field, `${name}: names the field (${d.error.message})`)
    assert.match(d.error.message, new RegExp(field.split('/').pop()!.replace(/[_]/g, '_')), `${name}: message names the field`)
    const wire = encodeError(d.error, null)
    assert.deepEqual([wire.channel, wire.payload.type, wire.payload.code], ['error', 'error', 'INVALID_EVENT'], name)
  }
})

test('the seed message for a missing triggering, and limits at their edge are accepted', () => {
  const d = decode(JSON.stringify(omit(ctx({}), 'triggering')), limits)
  assert.ok(!d.ok)
  assert.equal(d.error.message, 'context-update requires boolean "triggering"')
  assert.ok(decode(JSON.stringify(ctx({ name: 'x'.repeat(128) })), limits).ok, 'name of 128 characters')
  assert.ok(decode(JSON.stringify(ctx({ name: '😀'.repeat(128) })), limits).ok, '128 characters outside the BMP')
  assert.ok(decode(JSON.stringify(res({ result: 'x'.repeat(65_534) })), limits).ok, 'result of exactly 65,536 characters as JSON')
  const big = decode(JSON.stringify(ctx({ context: { s: 'x'.repeat(limits.maxFrameBytes) } })), limits)
  assert.ok(!big.ok && big.error.code === 'frame_too_large')
})

test('every canonical error code has a HUMA code; validation codes are INVALID_EVENT', () => {
  for (const code of ERROR_CODES) assert.match(HUMA_ERROR_CODES[code], /^[A-Z_]+$/)
  for (const code of [
    'invalid_json',
    'invalid_message',
    'unknown_type',
    'message_too_long',
    'frame_too_large',
    'forbidden_key',
    'too_deep',
  ] as const) {
    assert.equal(HUMA_ERROR_CODES[code], 'INVALID_EVENT')
  }
})

test('decode never throws, whatever arrives', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.json(),
        fc.jsonValue().map((v) => JSON.stringify(v)),
      ),
      (text) => {
        const d = decode(text, limits)
        assert.equal(typeof d.ok, 'boolean')
      },
    ),
    { numRuns: 500 },
  )
  fc.assert(
    fc.property(
      fc.record({
        type: fc.constantFrom('context-update', 'tool-result', 'addon-tool-event'),
        triggering: fc.anything(),
        name: fc.anything(),
        context: fc.anything(),
        data: fc.anything(),
        result: fc.anything(),
      }),
      (o) => {
        let text: string
        try {
          text = JSON.stringify(o)
        } catch {
          return
        }
        if (text !== undefined) assert.equal(typeof decode(text, limits).ok, 'boolean')
      },
    ),
    { numRuns: 500 },
  )
})
