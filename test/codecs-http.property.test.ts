// Property tests of what the HTTP dialects decode from a client (issue 40), like those of the other dialects in
// src/dialects/codecs.property.test.ts: any input gives a decoded value or an error in the dialect's shape, never
// a throw, and well-formed input always decodes to what was sent. The AI SDK's `POST /api/chat` body; A2A's
// message metadata (onBusy), approval and client-tool answers; MCP's approval form answers. (MCP tool arguments
// are checked by the SDK's own schema validation: test/http-bad-input.test.ts sends bad ones through its client.)
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import type { Message, Part } from '@a2a-js/sdk'
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { DEFAULT_LIMITS, ParlanceError } from '../src/core/index.js'
import { aisdk } from '../src/dialects/aisdk/index.js'
import { approvalAnswerOf, onBusyOfMessage, toolAnswerOf } from '../src/dialects/a2a/mapping.js'
import { approvalAnswer } from '../src/dialects/mcp/mapping.js'

const limits = DEFAULT_LIMITS
const json = fc.jsonValue({ maxDepth: 5 })
const anything = fc.oneof(json, fc.constant(undefined), fc.string())
const shaped = (keys: Record<string, fc.Arbitrary<unknown>>) => fc.record(keys, { requiredKeys: [] }).map((o) => JSON.stringify(o))
const ON_BUSY = ['interrupt', 'enqueue', 'reject', 'rollback'] as const

test('AI SDK decode: never throws; errors are invalid_json / invalid_message, and a JSON object that fails names its field', () => {
  const part = fc.record({ type: fc.oneof(fc.constantFrom('text', 'file', 'dynamic-tool', ''), json), text: anything }, { requiredKeys: [] })
  const message = fc.record(
    {
      id: fc.oneof(fc.string({ maxLength: 300 }), json),
      role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'tool'), json),
      parts: fc.oneof(fc.array(part, { maxLength: 4 }), json),
    },
    { requiredKeys: [] },
  )
  const body = fc.oneof(
    fc.string(),
    json.map((v) => JSON.stringify(v)),
    shaped({
      id: fc.oneof(fc.string({ maxLength: 300 }), json),
      messages: fc.oneof(fc.array(message, { maxLength: 4 }), json),
      trigger: anything,
      messageId: anything,
      onBusy: fc.oneof(fc.constantFrom(...ON_BUSY, 'later'), json),
    }),
  )
  fc.assert(
    fc.property(body, (b) => {
      const d = aisdk.decode(b, limits)
      if (d.ok) return
      assert.ok(d.error instanceof ParlanceError)
      assert.ok(['invalid_json', 'invalid_message'].includes(d.error.code), d.error.code)
      let parsed: unknown
      try {
        parsed = JSON.parse(b)
      } catch {
        return assert.equal(d.error.code, 'invalid_json')
      }
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
        assert.equal(typeof d.error.details?.field, 'string', d.error.message)
    }),
    { numRuns: 2000 },
  )
})

test('AI SDK decode: every well-formed chat request decodes to what was sent', () => {
  const id = fc.string({ minLength: 1, maxLength: 256 })
  const message = fc.record({
    id,
    role: fc.constantFrom('user', 'assistant', 'system'),
    parts: fc.array(fc.record({ type: fc.constantFrom('text', 'reasoning', 'step-start'), text: fc.string() }), { maxLength: 3 }),
  })
  const request = fc.record(
    {
      id,
      messages: fc.array(message, { minLength: 1, maxLength: 4 }), // an empty conversation is refused (http-bad-input)
      trigger: fc.constantFrom('submit-message', 'regenerate-message'),
      onBusy: fc.constantFrom(...ON_BUSY),
    },
    { requiredKeys: ['id', 'messages'] },
  )
  fc.assert(
    fc.property(request, (r) => {
      const d = aisdk.decode(JSON.stringify(r), limits)
      assert.ok(d.ok, d.ok ? '' : d.error.message)
      assert.deepEqual(d.value, JSON.parse(JSON.stringify(r)))
    }),
    { numRuns: 1000 },
  )
})

const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value: value as never },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
})
const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' })
const a2aMessage = (parts: Part[]): Message => ({
  messageId: 'm',
  contextId: '',
  taskId: '',
  role: 1,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
})
const parts = fc.array(
  fc.oneof(
    json.map(dataPart),
    fc.string().map(textPart),
    fc.record({ approved: fc.oneof(fc.boolean(), json), feedback: anything, result: anything, error: anything }, { requiredKeys: [] }).map(dataPart),
  ),
  { maxLength: 4 },
)

test('A2A onBusy in message metadata: never throws; absent is undefined, one of the four is taken, anything else names the field', () => {
  fc.assert(
    fc.property(fc.oneof(anything, fc.record({ onBusy: fc.oneof(fc.constantFrom(...ON_BUSY), anything) }, { requiredKeys: [] })), (metadata) => {
      const r = onBusyOfMessage(metadata)
      const raw = metadata !== null && typeof metadata === 'object' ? (metadata as { onBusy?: unknown }).onBusy : undefined
      if (raw === undefined) return assert.deepEqual(r, { ok: true, onBusy: undefined })
      if ((ON_BUSY as readonly unknown[]).includes(raw)) return assert.deepEqual(r, { ok: true, onBusy: raw })
      assert.equal(r.ok, false)
      assert.equal(!r.ok && r.field, 'params.message.metadata.onBusy')
    }),
    { numRuns: 2000 },
  )
})

test('A2A approval and client-tool answers: never throw; approved is a boolean, feedback a non-empty string, a tool answer a result or an error string', () => {
  fc.assert(
    fc.property(parts, (p) => {
      const m = a2aMessage(p)
      const a = approvalAnswerOf(m)
      assert.equal(typeof a.approved, 'boolean')
      if ('feedback' in a) assert.ok(typeof a.feedback === 'string' && a.feedback !== '')
      const t = toolAnswerOf(m)
      assert.ok('result' in t || typeof t.error === 'string', JSON.stringify(t))
      // A data part {approved: boolean} decides, before any text.
      const decided = p.find((x) => x.content?.$case === 'data' && typeof (x.content.value as { approved?: unknown } | null)?.approved === 'boolean')
      if (decided?.content?.$case === 'data') assert.equal(a.approved, (decided.content.value as unknown as { approved: boolean }).approved)
    }),
    { numRuns: 2000 },
  )
})

test('MCP approval form answers: never throw; only an accepted form with approve: true approves', () => {
  const answer = fc.record(
    {
      action: fc.constantFrom('accept', 'decline', 'cancel'),
      content: fc.option(fc.record({ approve: fc.oneof(fc.boolean(), json), feedback: anything }, { requiredKeys: [] }), { nil: undefined }),
    },
    { requiredKeys: ['action'] },
  )
  fc.assert(
    fc.property(answer, (a) => {
      const r = approvalAnswer(a as ElicitResult)
      assert.equal(r.approved, a.action === 'accept' && a.content?.approve === true)
      if (r.feedback !== undefined) assert.ok(typeof r.feedback === 'string' && r.feedback !== '')
    }),
    { numRuns: 2000 },
  )
})
