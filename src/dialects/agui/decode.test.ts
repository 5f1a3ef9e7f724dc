import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import { RunAgentInputSchema } from '@ag-ui/core/schemas'
import { DEFAULT_LIMITS } from '../../core/index.js'
import { decodeRunInput, fieldOf } from './decode.js'

const FIXTURES = new URL('./fixtures/', import.meta.url)
const read = (kind: string, f: string) => readFileSync(new URL(`${kind}/${f}`, FIXTURES), 'utf8')
const files = (kind: string) => readdirSync(new URL(`${kind}/`, FIXTURES)).filter((f) => f !== 'expected.json')

interface Expected {
  code: string
  field?: string
  fieldStartsWith?: string
  stricterThanZod?: boolean
}
const EXPECTED = JSON.parse(read('invalid', 'expected.json')) as Record<string, Expected>

const zodAccepts = (body: string): boolean => {
  try {
    return RunAgentInputSchema.safeParse(JSON.parse(body)).success
  } catch {
    return false
  }
}

test('every valid fixture (bodies the official HttpAgent sends, every role) decodes, and @ag-ui/core agrees', () => {
  const names = files('valid')
  assert.ok(names.length >= 6)
  for (const f of names) {
    const body = read('valid', f)
    const d = decodeRunInput(body, DEFAULT_LIMITS)
    assert.ok(d.ok, `${f}: ${d.ok ? '' : d.error.message}`)
    assert.deepEqual(d.input, JSON.parse(body), `${f}: the input is passed through unchanged (unknown fields kept)`)
    assert.ok(zodAccepts(body), `${f}: @ag-ui/core's RunAgentInputSchema refuses it`)
  }
})

test('every invalid fixture is refused with the expected code and field; the reference refuses it too unless marked stricter', () => {
  assert.deepEqual(files('invalid').sort(), Object.keys(EXPECTED).sort(), 'every invalid fixture has an expectation and vice versa')
  for (const [f, want] of Object.entries(EXPECTED)) {
    const body = read('invalid', f)
    const d = decodeRunInput(body, DEFAULT_LIMITS)
    assert.ok(!d.ok, `${f} was accepted`)
    assert.equal(d.error.code, want.code, f)
    const field = d.error.details?.field as string | undefined
    if (want.fieldStartsWith) assert.ok(field?.startsWith(want.fieldStartsWith), `${f}: field ${field}`)
    else assert.equal(field, want.field, `${f}: ${d.error.message}`)
    if (field)
      assert.ok(
        d.error.message.includes(field.split('.')[0]!.replace(/\[.*/, '')) || /forbidden|nesting/.test(d.error.message),
        `${f}: the message names the field: ${d.error.message}`,
      )
    assert.equal(zodAccepts(body), want.stricterThanZod === true, `${f}: @ag-ui/core ${want.stricterThanZod ? 'refuses' : 'accepts'} it`)
  }
})

test('the bad message is named by its index and field, whichever role it has', () => {
  const bad: Array<[unknown, string, RegExp]> = [
    [{ id: 'a', role: 'assistant', content: 5 }, 'messages[1].content', /expected string/],
    [
      { id: 'a', role: 'assistant', toolCalls: [{ id: 'c', type: 'function', function: { name: 'f' } }] },
      'messages[1].toolCalls[0].function.arguments',
      /required/,
    ],
    [{ id: 's', role: 'system', content: ['x'] }, 'messages[1].content', /must be a string$/],
    [{ id: 't', role: 'tool', toolCallId: 'c', content: 'x', error: 7 }, 'messages[1].error', /expected string/],
    [{ id: 'x'.repeat(257), role: 'user', content: 'x' }, 'messages[1].id', /1–256/],
    ['hello', 'messages[1]', /must be an object/],
  ]
  for (const [m, field, message] of bad) {
    const body = JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: 'u', role: 'user', content: 'ok' }, m] })
    const d = decodeRunInput(body, DEFAULT_LIMITS)
    assert.ok(!d.ok)
    assert.equal(d.error.details?.field, field, d.error.message)
    assert.match(d.error.message, message)
  }
})

test('a forbidden key is caught however the JSON spells it', () => {
  const d = decodeRunInput('{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"\\u005f_proto__":{"x":1}}}', DEFAULT_LIMITS)
  assert.ok(!d.ok)
  assert.equal(d.error.details?.field, 'forwardedProps.__proto__')
})

test('fieldOf writes a JSON pointer the way a developer writes the path', () => {
  assert.equal(fieldOf('/messages/2/role'), 'messages[2].role')
  assert.equal(fieldOf('/tools/0/name'), 'tools[0].name')
  assert.equal(fieldOf('/threadId'), 'threadId')
  assert.equal(fieldOf(''), '')
})
