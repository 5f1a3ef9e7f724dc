import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import fc from 'fast-check'
import { DEFAULT_LIMITS, ERROR_CODES, ParlanceError, type Command, type ErrorCode } from '../../core/index.js'
import { decode } from './decode.js'
import { encodeError } from './encode.js'
import { HAI_ERROR_CODES } from './errors.js'
import { inbound } from './decode.js'
import { OUTBOUND_TYPES } from './wire.js'

const FIXTURES = new URL('./fixtures/', import.meta.url)
const limits = {
  maxFrameBytes: DEFAULT_LIMITS.maxFrameBytes,
  maxJsonDepth: DEFAULT_LIMITS.maxJsonDepth,
  maxUserMessageChars: DEFAULT_LIMITS.maxUserMessageChars,
}

/** Every fixtures folder, with its files' raw text (verbatim from the seed). */
function fixtureFolders(): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>()
  for (const dir of readdirSync(FIXTURES, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue
    const files = new Map<string, string>()
    for (const f of readdirSync(new URL(`${dir.name}/`, FIXTURES))) {
      files.set(f, readFileSync(new URL(`${dir.name}/${f}`, FIXTURES), 'utf8'))
    }
    out.set(dir.name, files)
  }
  return out
}

/** Inbound fixtures: the command each one must decode to, by file. */
const INBOUND: Record<string, Record<string, Command>> = {
  user_message: {
    'example.json': {
      type: 'user.message',
      sessionId: '123e4567-e89b-12d3-a456-426614174000',
      content: 'What are the regulations for food storage?',
      metadata: {},
    },
    'testing-websocat.json': { type: 'user.message', sessionId: 'test-123', content: 'Hello!' },
  },
  tool_approval_response: {
    'approved.json': {
      type: 'approval.response',
      approvalId: 'appr_abc123',
      approved: true,
      feedback: 'Looks good, proceed with report generation',
    },
  },
}

/** Folder → the check it gets. Outbound (server → client) types must be refused inbound. */
const CHECKS: Record<string, 'inbound' | 'outbound'> = {
  user_message: 'inbound',
  tool_approval_response: 'inbound',
  assistant_message: 'outbound',
  assistant_message_chunk: 'outbound',
  tool_call_start: 'outbound',
  tool_call_end: 'outbound',
  tool_call_error: 'outbound',
  tool_approval_request: 'outbound',
  status: 'outbound',
  error: 'outbound',
}

function errorOf(frame: string, lim = limits): ParlanceError {
  const d = decode(frame, lim)
  assert.equal(d.ok, false, `expected a rejection for ${frame.slice(0, 120)}`)
  if (d.ok) throw new Error('unreachable')
  assert.ok(d.error instanceof ParlanceError)
  return d.error
}

test('every fixtures folder is mapped to a check, and every mapped folder exists with examples', () => {
  const folders = fixtureFolders()
  const unmapped = [...folders.keys()].filter((f) => !(f in CHECKS))
  assert.deepEqual(unmapped, [], 'a fixtures folder has no check: map it in CHECKS')
  for (const [name, kind] of Object.entries(CHECKS)) {
    const files = folders.get(name)
    assert.ok(files, `fixtures folder ${name} is missing`)
    const json = [...files.keys()].filter((f) => f.endsWith('.json'))
    assert.deepEqual(json, [...files.keys()], `${name} holds a non-JSON file`)
    assert.ok(json.length > 0, `${name} has no example`)
    if (kind === 'inbound') assert.deepEqual(json.sort(), Object.keys(INBOUND[name] ?? {}).sort(), `${name}: every file needs an expected command`)
  }
  // The folders are exactly the seed's message types, split by direction as the schema splits them.
  const inboundSeedTypes = Object.keys(CHECKS).filter((k) => CHECKS[k] === 'inbound')
  assert.deepEqual(
    inboundSeedTypes.filter((t) => !(t in inbound)),
    [],
  )
  assert.deepEqual(
    Object.keys(CHECKS)
      .filter((k) => CHECKS[k] === 'outbound')
      .sort(),
    [...OUTBOUND_TYPES].sort(),
  )
})

test('every fixture has the type of its folder', () => {
  for (const [folder, files] of fixtureFolders()) {
    for (const [file, text] of files) assert.equal((JSON.parse(text) as { type: unknown }).type, folder, `${folder}/${file}`)
  }
})

test('inbound fixtures decode to the expected canonical command', () => {
  let checked = 0
  for (const [folder, files] of fixtureFolders()) {
    if (CHECKS[folder] !== 'inbound') continue
    for (const [file, text] of files) {
      const d = decode(text, limits)
      assert.ok(d.ok, `${folder}/${file}: ${d.ok ? '' : d.error.message}`)
      assert.deepEqual(d.value, INBOUND[folder]![file], `${folder}/${file}`)
      checked++
    }
  }
  assert.equal(checked, 3)
})

test('outbound fixtures are refused inbound as unknown_type', () => {
  let checked = 0
  for (const [folder, files] of fixtureFolders()) {
    if (CHECKS[folder] !== 'outbound') continue
    for (const [file, text] of files) {
      const e = errorOf(text)
      assert.equal(e.code, 'unknown_type', `${folder}/${file}`)
      assert.equal(e.details?.type, folder)
      checked++
    }
  }
  assert.ok(checked >= 8)
})

const um = (extra: Record<string, unknown>): string => JSON.stringify({ type: 'user_message', content: 'hi', session_id: 's1', ...extra })
const nested = (levels: number): unknown => {
  let v: unknown = {}
  for (let i = 1; i < levels; i++) v = { a: v }
  return v
}

interface Row {
  rule: string
  frame: string
  code: ErrorCode
  /** details.field, when the rule is about one field. */
  field?: string
  /** HAI `error_code` on the wire when it differs from `code`. */
  wire?: string
  limits?: typeof limits
}

const ROWS: Row[] = [
  { rule: 'invalid JSON', frame: '{"type":"user_message",', code: 'invalid_json' },
  { rule: 'empty frame', frame: '', code: 'invalid_json' },
  { rule: 'non-object: array', frame: '[{"type":"user_message"}]', code: 'invalid_message' },
  { rule: 'non-object: string', frame: '"user_message"', code: 'invalid_message' },
  { rule: 'non-object: number', frame: '42', code: 'invalid_message' },
  { rule: 'non-object: null', frame: 'null', code: 'invalid_message' },
  { rule: 'missing type', frame: '{"content":"hi","session_id":"s1"}', code: 'invalid_message', field: 'type' },
  { rule: 'type not a string', frame: '{"type":7,"content":"hi","session_id":"s1"}', code: 'invalid_message', field: 'type' },
  { rule: 'unknown type', frame: '{"type":"user_msg","content":"hi","session_id":"s1"}', code: 'unknown_type' },
  { rule: 'type is an Object.prototype name', frame: '{"type":"toString","session_id":"s1"}', code: 'unknown_type' },
  { rule: 'user_message: missing session_id', frame: '{"type":"user_message","content":"hi"}', code: 'invalid_message', field: 'session_id' },
  { rule: 'user_message: empty session_id', frame: um({ session_id: '' }), code: 'invalid_message', field: 'session_id' },
  { rule: 'user_message: missing content', frame: '{"type":"user_message","session_id":"s1"}', code: 'invalid_message', field: 'content' },
  { rule: 'user_message: empty content', frame: um({ content: '' }), code: 'invalid_message', field: 'content' },
  { rule: 'user_message: content not a string', frame: um({ content: 5 }), code: 'invalid_message', field: 'content' },
  { rule: 'user_message: content of 10,001 chars', frame: um({ content: 'x'.repeat(10_001) }), code: 'message_too_long', field: 'content' },
  {
    rule: 'user_message: content over a lower configured limit',
    frame: um({ content: 'x'.repeat(21) }),
    code: 'message_too_long',
    field: 'content',
    limits: { ...limits, maxUserMessageChars: 20 },
  },
  { rule: 'user_message: metadata not an object', frame: um({ metadata: 'x' }), code: 'invalid_message', field: 'metadata' },
  { rule: 'user_message: metadata an array', frame: um({ metadata: [1] }), code: 'invalid_message', field: 'metadata' },
  { rule: 'frame over maxFrameBytes', frame: um({ content: 'x'.repeat(200) }), code: 'frame_too_large', limits: { ...limits, maxFrameBytes: 100 } },
  {
    rule: 'frame over maxFrameBytes in UTF-8 bytes, not in characters',
    frame: um({ content: '€'.repeat(40) }), // 88 characters, 168 bytes
    code: 'frame_too_large',
    limits: { ...limits, maxFrameBytes: 100 },
  },
  { rule: '__proto__ at the top level', frame: um({}).replace('{', '{"__proto__":{"x":1},'), code: 'forbidden_key', wire: 'invalid_message' },
  { rule: 'constructor in metadata', frame: um({ metadata: { constructor: { prototype: 1 } } }), code: 'forbidden_key', wire: 'invalid_message' },
  {
    rule: 'prototype deep in an array',
    frame: um({ metadata: { list: [1, [{ prototype: true }]] } }),
    code: 'forbidden_key',
    wire: 'invalid_message',
  },
  {
    rule: '__proto__ in tool_approval_response',
    frame: '{"type":"tool_approval_response","approval_id":"a","approved":true,"__proto__":null}',
    code: 'forbidden_key',
    wire: 'invalid_message',
  },
  { rule: 'too deep (default 64)', frame: um({ metadata: nested(64) }), code: 'too_deep', wire: 'invalid_message' },
  {
    rule: 'too deep (configured 3)',
    frame: um({ metadata: { a: { b: {} } } }),
    code: 'too_deep',
    wire: 'invalid_message',
    limits: { ...limits, maxJsonDepth: 3 },
  },
  {
    rule: 'approval: approved not boolean',
    frame: '{"type":"tool_approval_response","approval_id":"a","approved":"yes"}',
    code: 'invalid_message',
    field: 'approved',
  },
  { rule: 'approval: approved missing', frame: '{"type":"tool_approval_response","approval_id":"a"}', code: 'invalid_message', field: 'approved' },
  {
    rule: 'approval: missing approval_id',
    frame: '{"type":"tool_approval_response","approved":true}',
    code: 'invalid_message',
    field: 'approval_id',
  },
  {
    rule: 'approval: feedback not a string',
    frame: '{"type":"tool_approval_response","approval_id":"a","approved":false,"feedback":1}',
    code: 'invalid_message',
    field: 'feedback',
  },
  { rule: 'tool_result: missing tool_call_id', frame: '{"type":"tool_result","result":1}', code: 'invalid_message', field: 'tool_call_id' },
  {
    rule: 'tool_result: error not a string',
    frame: '{"type":"tool_result","tool_call_id":"c","error":{"m":1}}',
    code: 'invalid_message',
    field: 'error',
  },
  { rule: 'cancel: missing session_id', frame: '{"type":"cancel"}', code: 'invalid_message', field: 'session_id' },
  { rule: 'cancel: session_id not a string', frame: '{"type":"cancel","session_id":3}', code: 'invalid_message', field: 'session_id' },
  {
    rule: 'user_message: metadata.onBusy not a policy',
    frame: um({ metadata: { onBusy: 'later' } }),
    code: 'invalid_message',
    field: 'metadata/onBusy',
  },
  {
    rule: 'user_message: metadata.onBusy not a string',
    frame: um({ metadata: { onBusy: true } }),
    code: 'invalid_message',
    field: 'metadata/onBusy',
  },
  { rule: 'regenerate: missing session_id', frame: '{"type":"regenerate"}', code: 'invalid_message', field: 'session_id' },
  {
    rule: 'regenerate: empty message_id',
    frame: '{"type":"regenerate","session_id":"s1","message_id":""}',
    code: 'invalid_message',
    field: 'message_id',
  },
  {
    rule: 'regenerate: metadata not an object',
    frame: '{"type":"regenerate","session_id":"s1","metadata":[]}',
    code: 'invalid_message',
    field: 'metadata',
  },
  {
    rule: 'regenerate: metadata.onBusy not a policy',
    frame: '{"type":"regenerate","session_id":"s1","metadata":{"onBusy":"INTERRUPT"}}',
    code: 'invalid_message',
    field: 'metadata/onBusy',
  },
]

test('rejection table: one row per validation rule', async (t) => {
  for (const row of ROWS) {
    await t.test(row.rule, () => {
      const e = errorOf(row.frame, row.limits)
      assert.equal(e.code, row.code)
      if (row.field !== undefined) assert.equal(e.details?.field, row.field)
      assert.equal(HAI_ERROR_CODES[e.code], row.wire ?? row.code)
      const wire = JSON.parse(encodeError(e, null)) as Record<string, unknown>
      assert.equal(wire.error_code, row.wire ?? row.code)
    })
  }
})

test('accepted at the limits: 10,000 chars, nesting of exactly maxJsonDepth, frame of exactly maxFrameBytes', () => {
  assert.ok(decode(um({ content: 'x'.repeat(10_000) }), limits).ok)
  assert.ok(decode(um({ metadata: { a: {} } }), { ...limits, maxJsonDepth: 3 }).ok)
  assert.ok(decode(um({ metadata: nested(63) }), limits).ok)
  const frame = um({ content: 'é'.repeat(10) })
  assert.ok(decode(frame, { ...limits, maxFrameBytes: Buffer.byteLength(frame) }).ok)
  assert.equal(errorOf(frame, { ...limits, maxFrameBytes: Buffer.byteLength(frame) - 1 }).code, 'frame_too_large')
})

test('forbidden names as values (not keys) are fine', () => {
  const d = decode(um({ content: '__proto__ constructor prototype', metadata: { note: 'constructor' } }), limits)
  assert.ok(d.ok)
})

test('metadata passes through and metadata.agent picks the agent', () => {
  const d = decode(um({ metadata: { agent: 'support', trace: { id: 1 } } }), limits)
  assert.ok(d.ok)
  assert.deepEqual(d.value, {
    type: 'user.message',
    sessionId: 's1',
    content: 'hi',
    metadata: { agent: 'support', trace: { id: 1 } },
    agent: 'support',
  })
})

test('extension messages decode: tool_result (success, failure) and cancel', () => {
  const ok = decode('{"type":"tool_result","tool_call_id":"c1","result":{"a":[1,2]},"session_id":"s1"}', limits)
  assert.ok(ok.ok)
  assert.deepEqual(ok.value, { type: 'tool.result', toolCallId: 'c1', sessionId: 's1', outcome: 'success', result: { a: [1, 2] } })
  const noResult = decode('{"type":"tool_result","tool_call_id":"c1"}', limits)
  assert.ok(noResult.ok)
  assert.deepEqual(noResult.value, { type: 'tool.result', toolCallId: 'c1', outcome: 'success', result: null })
  const failed = decode('{"type":"tool_result","tool_call_id":"c2","error":"boom"}', limits)
  assert.ok(failed.ok)
  assert.deepEqual(failed.value, { type: 'tool.result', toolCallId: 'c2', outcome: 'failure', error: 'boom' })
  const cancel = decode('{"type":"cancel","session_id":"s9"}', limits)
  assert.ok(cancel.ok)
  assert.deepEqual(cancel.value, { type: 'run.cancel', sessionId: 's9' })
  const approval = decode('{"type":"tool_approval_response","approval_id":"a","approved":false,"session_id":"s2"}', limits)
  assert.ok(approval.ok)
  assert.deepEqual(approval.value, { type: 'approval.response', approvalId: 'a', approved: false, sessionId: 's2' })
})

test('metadata.onBusy sets the policy of a user_message; a bad value names the field and the allowed values', () => {
  for (const onBusy of ['interrupt', 'enqueue', 'reject', 'rollback'] as const) {
    const d = decode(um({ metadata: { onBusy } }), limits)
    assert.ok(d.ok)
    assert.deepEqual(d.value, { type: 'user.message', sessionId: 's1', content: 'hi', metadata: { onBusy }, onBusy })
  }
  const e = errorOf(um({ metadata: { onBusy: 'queue' } }))
  assert.match(e.message, /metadata\/onBusy.*interrupt, enqueue, reject, rollback/)
  assert.deepEqual(e.details, { field: 'metadata/onBusy', allowed: ['interrupt', 'enqueue', 'reject', 'rollback'] })
})

test('regenerate (extension) decodes to run.regenerate: the last user message by default, or message_id; agent and onBusy from metadata', () => {
  const last = decode('{"type":"regenerate","session_id":"s1"}', limits)
  assert.ok(last.ok)
  assert.deepEqual(last.value, { type: 'run.regenerate', sessionId: 's1' })
  const named = decode('{"type":"regenerate","session_id":"s1","message_id":"msg_7","metadata":{"agent":"support","onBusy":"reject"}}', limits)
  assert.ok(named.ok)
  assert.deepEqual(named.value, { type: 'run.regenerate', sessionId: 's1', messageId: 'msg_7', agent: 'support', onBusy: 'reject' })
})

function assertDecoded(frame: string): void {
  const d = decode(frame, limits)
  if (d.ok) {
    assert.ok(['user.message', 'approval.response', 'tool.result', 'run.cancel', 'run.regenerate'].includes(d.value.type))
  } else {
    assert.ok(d.error instanceof ParlanceError, 'error must be a ParlanceError')
    assert.ok((ERROR_CODES as readonly string[]).includes(d.error.code))
    assert.equal(typeof d.error.message, 'string')
  }
}

test('property: decode never throws for arbitrary strings', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => assertDecoded(s)),
    { numRuns: 500 },
  )
  fc.assert(
    fc.property(fc.string(), (s) => assertDecoded(s)),
    { numRuns: 300 },
  )
})

test('property: decode never throws for arbitrary JSON values', () => {
  fc.assert(
    fc.property(fc.json(), (s) => assertDecoded(s)),
    { numRuns: 500 },
  )
  fc.assert(
    fc.property(fc.anything(), (v) => {
      const s = JSON.stringify(v)
      if (s !== undefined) assertDecoded(s)
    }),
    { numRuns: 500 },
  )
})

test('property: decode never throws for near-valid messages of every inbound type', () => {
  const value = fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.string({ maxLength: 12 }), fc.boolean())
  const message = fc.record(
    {
      type: fc.constantFrom(...Object.keys(inbound), 'status', ''),
      content: value,
      session_id: value,
      metadata: value,
      approval_id: value,
      approved: value,
      feedback: value,
      tool_call_id: value,
      result: value,
      error: value,
      message_id: value,
    },
    { requiredKeys: ['type'] },
  )
  fc.assert(
    fc.property(message, (m) => assertDecoded(JSON.stringify(m))),
    { numRuns: 1000 },
  )
})
