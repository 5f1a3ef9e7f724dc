import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { DEFAULT_LIMITS, ParlanceError } from '../core/index.js'
import { decodeRunInput } from './agui/index.js'
import { hugai } from './hugai/index.js'
import { myagent } from './myagent/index.js'
import { decodeChatCompletion, decodeResponseRequest } from './openai/index.js'

// Any input → a decoded value or an error in the dialect's shape; never a throw. Inputs: arbitrary strings,
// arbitrary JSON, and objects shaped like each dialect's messages with arbitrary field values.
const limits = DEFAULT_LIMITS
const json = fc.jsonValue({ maxDepth: 5 })
const shaped = (keys: Record<string, fc.Arbitrary<unknown>>) => fc.record(keys, { requiredKeys: [] }).map((o) => JSON.stringify(o))
const frames = (keys: Record<string, fc.Arbitrary<unknown>>) =>
  fc.oneof(
    fc.string(),
    json.map((v) => JSON.stringify(v)),
    shaped(keys),
    shaped(keys),
  )

test('AG-UI decodeRunInput: never throws; errors are invalid_json / invalid_message naming a field', () => {
  const arb = frames({
    threadId: fc.oneof(fc.string(), json),
    runId: fc.oneof(fc.string(), json),
    messages: fc.array(fc.record({ id: fc.string(), role: fc.constantFrom('user', 'assistant', 'tool', 'x'), content: json }, { requiredKeys: [] })),
    state: json,
    tools: json,
    resume: json,
  })
  fc.assert(
    fc.property(arb, (body) => {
      const d = decodeRunInput(body, limits)
      if (!d.ok) {
        assert.ok(d.error instanceof ParlanceError)
        assert.ok(['invalid_json', 'invalid_message'].includes(d.error.code), d.error.code)
      }
    }),
    { numRuns: 2000 },
  )
})

test('MyAgent decode: never throws; every error is a ParlanceError with a constraint', () => {
  const arb = frames({
    event: fc.constantFrom('user.message', 'user.response', 'user.ack', 'user.reconnect', 'user.reconnect_with_state', 'user.create_session', 'nope'),
    session_id: fc.oneof(fc.string(), json),
    step_id: json,
    content: json,
    metadata: json,
  })
  fc.assert(
    fc.property(arb, (frame) => {
      const d = myagent.decode(frame, limits)
      if (!d.ok) assert.ok(d.error.details?.constraint !== undefined, JSON.stringify(d.error))
    }),
    { numRuns: 2000 },
  )
})

test('HugAI parse: never throws; every item is a request, notification, response or an invalid item with a JSON-RPC code', () => {
  const msg = fc.record(
    {
      jsonrpc: fc.constantFrom('2.0', '1.0', 2),
      id: fc.oneof(fc.string(), fc.integer(), fc.constant(null), json),
      method: fc.oneof(fc.constantFrom('initialize', 'agent/request', 'audit/log', 'x'), json),
      params: json,
    },
    { requiredKeys: [] },
  )
  const arb = fc.oneof(
    fc.string(),
    json.map((v) => JSON.stringify(v)),
    msg.map((m) => JSON.stringify(m)),
    fc.array(msg, { maxLength: 5 }).map((b) => JSON.stringify(b)),
  )
  fc.assert(
    fc.property(arb, (body) => {
      for (const item of hugai.parse(body, limits.maxJsonDepth).items) {
        if (item.kind === 'invalid') assert.ok([-32700, -32600, -32601, -32602].includes(item.error.code), String(item.error.code))
      }
    }),
    { numRuns: 2000 },
  )
})

test('OpenAI decode (chat completions, responses): never throws; every error is a ParlanceError', () => {
  const content = fc.oneof(
    fc.string(),
    json,
    fc.array(fc.record({ type: fc.constantFrom('text', 'input_text', 'image_url'), text: json }, { requiredKeys: [] })),
  )
  const arb = frames({
    model: fc.oneof(fc.string(), json),
    messages: fc.array(
      fc.record(
        { role: fc.constantFrom('user', 'assistant', 'tool', 'system', 'x'), content, tool_call_id: json, tool_calls: json },
        { requiredKeys: [] },
      ),
    ),
    input: fc.oneof(
      fc.string(),
      fc.array(
        fc.record(
          { type: fc.constantFrom('message', 'mcp_approval_response', 'function_call_output', 'x'), role: fc.string(), content },
          { requiredKeys: [] },
        ),
      ),
    ),
    tools: json,
    stream: json,
    previous_response_id: json,
  })
  fc.assert(
    fc.property(arb, (body) => {
      for (const d of [decodeChatCompletion(body, limits), decodeResponseRequest(body, limits)])
        if (!d.ok) assert.ok(d.error instanceof ParlanceError)
    }),
    { numRuns: 2000 },
  )
})
