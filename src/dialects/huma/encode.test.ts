import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventBody, EventType, StoredEvent } from '../../core/index.js'
import { encode, humaView, type HumaFrame } from './encode.js'
import { MESSAGING_EVENTS, OUTBOUND_TYPES } from './schema.js'

let seq = 0
const ev = (body: EventBody): StoredEvent => ({ ...body, sessionId: 's1', runId: 'r1', seq: ++seq, ts: 1 }) as StoredEvent

const str = (v: unknown) => typeof v === 'string'
const obj = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v)
const int = (v: unknown) => Number.isInteger(v) && (v as number) >= 0
/** The seed's server event tables, field by field (required / optional); `seq` is the Parlance extension. */
const SEED: Record<string, { required: Record<string, (v: unknown) => boolean>; optional: Record<string, (v: unknown) => boolean> }> = {
  'tool-call': { required: { type: str, toolCallId: str, toolName: str, arguments: obj }, optional: { seq: int } },
  'cancel-tool-call': { required: { type: str, toolCallId: str, toolName: str }, optional: { reason: str, seq: int } },
  messaging: {
    required: { type: str, event: (v) => (MESSAGING_EVENTS as readonly unknown[]).includes(v) },
    optional: { toolCallId: str, message: str, messageIndex: int, messageCount: int, reason: str, extra_args: obj, seq: int },
  },
  error: { required: { type: str, message: str }, optional: { code: str, seq: int } },
}

function check(f: HumaFrame): void {
  const shape = SEED[f.payload.type as string]
  assert.ok(shape, `unknown server event ${String(f.payload.type)}`)
  assert.equal(f.channel, f.payload.type === 'error' ? 'error' : 'event')
  for (const [k, ok] of Object.entries(shape.required)) assert.ok(ok(f.payload[k]), `${String(f.payload.type)}.${k}`)
  for (const [k, v] of Object.entries(f.payload)) assert.ok(k in shape.required || (k in shape.optional && shape.optional[k]!(v)), `${String(f.payload.type)}: field ${k}`)
}

const T = '550e8400-e29b-41d4-a716-446655440000'
/** Every canonical event → the HUMA server events it becomes (messaging events by their `event`). */
const SAMPLES: Record<EventType, { body: EventBody; wire: string[] }> = {
  'message.user': { body: { type: 'message.user', messageId: 'm0', content: 'hi' }, wire: [] },
  'context.update': { body: { type: 'context.update', name: 'n', description: 'd', context: {}, triggering: true }, wire: [] },
  'run.started': { body: { type: 'run.started', agent: 'demo' }, wire: [] },
  'run.finished': { body: { type: 'run.finished' }, wire: [] },
  'run.error': { body: { type: 'run.error', code: 'execution_error', message: 'boom' }, wire: ['error'] },
  'step.started': { body: { type: 'step.started', stepId: 's', name: 'n' }, wire: [] },
  'step.finished': { body: { type: 'step.finished', stepId: 's', name: 'n', ok: true }, wire: [] },
  'text.start': { body: { type: 'text.start', messageId: 'm1' }, wire: ['typing_start'] },
  'text.delta': { body: { type: 'text.delta', messageId: 'm1', delta: 'Hello ' }, wire: [] },
  'text.end': { body: { type: 'text.end', messageId: 'm1' }, wire: ['message_sent', 'typing_end'] },
  'reasoning.start': { body: { type: 'reasoning.start', messageId: 'r' }, wire: [] },
  'reasoning.delta': { body: { type: 'reasoning.delta', messageId: 'r', delta: 'hmm' }, wire: [] },
  'reasoning.end': { body: { type: 'reasoning.end', messageId: 'r' }, wire: [] },
  'tool.call': { body: { type: 'tool.call', toolCallId: T, toolName: 'lookup_movie', args: { title: 'Inception' }, target: 'client' }, wire: ['tool-call'] },
  'tool.result': { body: { type: 'tool.result', toolCallId: T, toolName: 'lookup_movie', result: 1 }, wire: [] },
  'tool.error': { body: { type: 'tool.error', toolCallId: T, toolName: 'lookup_movie', error: 'x' }, wire: [] },
  'tool.cancel': { body: { type: 'tool.cancel', toolCallId: T, toolName: 'lookup_movie', reason: 'interrupted by new input' }, wire: ['cancel-tool-call'] },
  'approval.requested': {
    body: { type: 'approval.requested', approvalId: 'appr_1', toolName: 'delete_file', toolDescription: 'd', args: {}, reasoning: 'r', risk: 'high', timeoutMs: 1 },
    wire: ['tool-call'],
  },
  'approval.resolved': { body: { type: 'approval.resolved', approvalId: 'appr_1', approved: false, by: 'timeout' }, wire: ['cancel-tool-call'] },
  status: { body: { type: 'status', status: 'thinking' }, wire: [] },
  plan: { body: { type: 'plan', planId: 'p', tasks: [] }, wire: [] },
  progress: { body: { type: 'progress', percent: 5 }, wire: [] },
  'state.snapshot': { body: { type: 'state.snapshot', snapshot: {} }, wire: [] },
  'state.delta': { body: { type: 'state.delta', patch: [] }, wire: [] },
  'messages.snapshot': { body: { type: 'messages.snapshot', messages: [] }, wire: [] },
  typing: { body: { type: 'typing', active: false, toolCallId: T, reason: 'canceled' }, wire: ['typing_end'] },
  'message.sent': {
    body: { type: 'message.sent', toolCallId: T, messageId: 'm2', message: 'How about Inception?', index: 0, count: 2, confirm: true, extra: { mood: 'happy' } },
    wire: ['message_sent'],
  },
  'message.delivery': { body: { type: 'message.delivery', toolCallId: T, messageId: 'm2', index: 0, ok: true, by: 'client' }, wire: [] },
  custom: { body: { type: 'custom', name: 'x', value: 1 }, wire: [] },
  raw: { body: { type: 'raw', event: 1 }, wire: [] },
  error: { body: { type: 'error', code: 'not_found', message: 'nope' }, wire: ['error'] },
}

test('every canonical event encodes to seed-shaped HUMA events, or to nothing', () => {
  const view = humaView()
  const produced = new Set<string>()
  for (const [type, { body, wire }] of Object.entries(SAMPLES)) {
    const e = ev(body)
    const frames = encode(e, view)
    assert.deepEqual(
      frames.map((f) => (f.payload.type === 'messaging' ? String(f.payload.event) : String(f.payload.type))),
      wire,
      type,
    )
    for (const f of frames) {
      check(f)
      produced.add(String(f.payload.type))
    }
    if (frames.length) assert.equal(frames.at(-1)!.payload.seq, e.seq, `${type}: the last frame carries the seq`)
  }
  assert.deepEqual([...produced].sort(), [...OUTBOUND_TYPES, 'error'].sort())
})

test('message.sent carries the seed fields; tool-call keeps the runtime UUID', () => {
  const view = humaView()
  const [sent] = encode(ev(SAMPLES['message.sent'].body), view)
  assert.deepEqual(sent!.payload, {
    type: 'messaging',
    event: 'message_sent',
    toolCallId: T,
    message: 'How about Inception?',
    messageIndex: 0,
    messageCount: 2,
    extra_args: { mood: 'happy' },
    seq: sent!.payload.seq,
  })
  const [call] = encode(ev(SAMPLES['tool.call'].body), view)
  assert.deepEqual([call!.payload.toolCallId, call!.payload.arguments], [T, { title: 'Inception' }])
})

test('streamed text becomes one whole message; server tools, client-canceled calls, interrupts and user answers send nothing', () => {
  const view = humaView()
  encode(ev({ type: 'text.start', messageId: 'm9' }), view)
  for (const d of ['Echo', ': ', 'hi']) assert.deepEqual(encode(ev({ type: 'text.delta', messageId: 'm9', delta: d }), view), [])
  const frames = encode(ev({ type: 'text.end', messageId: 'm9' }), view)
  assert.equal(frames[0]!.payload.message, 'Echo: hi')
  assert.equal(view.text.size, 0, 'the buffer is released')
  assert.deepEqual(encode(ev({ type: 'tool.call', toolCallId: T, toolName: 'get_weather', args: {}, target: 'server' }), view), [])
  assert.deepEqual(encode(ev({ type: 'tool.cancel', toolCallId: T, toolName: 't', reason: 'r', by: 'client' }), view), [])
  assert.deepEqual(encode(ev({ type: 'run.error', code: 'interrupted', message: 'x' }), view), [])
  assert.deepEqual(encode(ev({ type: 'approval.resolved', approvalId: 'a', approved: true, by: 'user' }), view), [])
})
