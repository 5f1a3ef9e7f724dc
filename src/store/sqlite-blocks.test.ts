import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc, { type JsonValue } from 'fast-check'
import type { StoredEvent } from '../core/index.js'
import { decodeBlock, encodeBlock } from './sqlite-blocks.js'

// Any text a model may stream: quotes, backslashes, control characters, astral and lone surrogates.
const text = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\n', '\u2028', '\ud83d', 'é🙂'))
const ids = fc.record({ sessionId: fc.constantFrom('s1', 'sess "q"'), runId: fc.constantFrom('', 'run_a', 'run_b') })
const delta = fc.record({ type: fc.constantFrom('text.delta' as const, 'reasoning.delta' as const), messageId: text, delta: text })
const other = fc.oneof(
  fc.record({ type: fc.constant('status' as const), status: fc.constantFrom('thinking' as const, 'executing_tools' as const), message: text }),
  // A value as JSON can hold it (JSON has no -0: it reads back as 0).
  fc.record({ type: fc.constant('custom' as const), name: text, value: fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as JsonValue) }),
  fc.record({ type: fc.constant('text.start' as const), messageId: text }),
)
/** One session's consecutive events, deltas mostly, as a run context appends them. */
const log = fc
  .array(fc.tuple(fc.oneof({ weight: 3, arbitrary: delta }, { weight: 1, arbitrary: other }), ids, fc.integer({ min: 0, max: 2 ** 42 })), {
    minLength: 1,
    maxLength: 30,
  })
  .map((xs) => xs.map(([body, id, ts], i) => ({ ...body, sessionId: 's1', runId: id.runId, seq: 7 + i, ts }) as StoredEvent))

test('a block decodes to the very events (hand-written deltas included), with the session id and each run id written once', () => {
  fc.assert(
    fc.property(log, fc.nat(5), (events, cut) => {
      const from = Math.min(cut, events.length - 1)
      const body = encodeBlock(events, from, events.length)
      assert.deepEqual(decodeBlock(body, 's1'), events.slice(from))
      const raw = JSON.parse(body) as Array<Record<string, unknown>>
      assert.ok(raw.every((e) => !('sessionId' in e)))
      raw.forEach((e, i) => assert.equal('runId' in e, i === 0 || events[from + i]!.runId !== events[from + i - 1]!.runId))
    }),
  )
})
