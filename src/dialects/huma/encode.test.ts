import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventBody, EventType, StoredEvent } from '../../core/index.js'
import { EMPTY_VIEW, encode, type HumaFrame, type HumaView } from './encode.js'
import { MESSAGING_EVENTS, OUTBOUND_TYPES } from './wire.js'

/** Encodes events one at a time, threading the view as a socket's subscription does. */
function socketView() {
  let view: HumaView = EMPTY_VIEW
  return {
    encode(e: StoredEvent): readonly HumaFrame[] {
      const out = encode([e], view)
      view = out.view
      return out.frames
    },
    get view() {
      return view
    },
  }
}

let seq = 0
const ev = (body: EventBody): StoredEvent => ({ ...body, sessionId: 's1', runId: 'r1', seq: ++seq, ts: 1 })

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
  for (const [k, v] of Object.entries(f.payload))
    assert.ok(k in shape.required || (k in shape.optional && shape.optional[k]!(v)), `${String(f.payload.type)}: field ${k}`)
}

const T = '550e8400-e29b-41d4-a716-446655440000'
/** Every canonical event → the HUMA server events it becomes (messaging events by their `event`). */
const SAMPLES: Record<EventType, { body: EventBody; wire: string[] }> = {
  'message.user': { body: { type: 'message.user', messageId: 'm0', content: 'hi' }, wire: [] },
  'context.update': { body: { type: 'context.update', name: 'n', description: 'd', context: {}, triggering: true }, wire: [] },
  // HUMA has no generic server event and no user-message ids: a waiting or superseded turn has no word (docs/dialects/huma.md).
  'message.queued': { body: { type: 'message.queued', messageId: 'q1', content: 'later' }, wire: [] },
  'message.withdrawn': { body: { type: 'message.withdrawn', messageId: 'q1', reason: 'changed my mind' }, wire: [] },
  'history.rewound': { body: { type: 'history.rewound', toMessageId: 'u1', reason: 'regenerate' }, wire: [] },
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
  'tool.call': {
    body: { type: 'tool.call', toolCallId: T, toolName: 'lookup_movie', args: { title: 'Inception' }, target: 'client' },
    wire: ['tool-call'],
  },
  'tool.result': { body: { type: 'tool.result', toolCallId: T, toolName: 'lookup_movie', result: 1 }, wire: [] },
  'tool.error': { body: { type: 'tool.error', toolCallId: T, toolName: 'lookup_movie', error: 'x' }, wire: [] },
  'tool.cancel': {
    body: { type: 'tool.cancel', toolCallId: T, toolName: 'lookup_movie', reason: 'interrupted by new input' },
    wire: ['cancel-tool-call'],
  },
  'approval.requested': {
    body: {
      type: 'approval.requested',
      approvalId: 'appr_1',
      toolName: 'delete_file',
      toolDescription: 'd',
      args: {},
      reasoning: 'r',
      risk: 'high',
      timeoutMs: 1,
    },
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
    body: {
      type: 'message.sent',
      toolCallId: T,
      messageId: 'm2',
      message: 'How about Inception?',
      index: 0,
      count: 2,
      confirm: true,
      extra: { mood: 'happy' },
    },
    wire: ['message_sent'],
  },
  'message.delivery': { body: { type: 'message.delivery', toolCallId: T, messageId: 'm2', index: 0, ok: true, by: 'client' }, wire: [] },
  custom: { body: { type: 'custom', name: 'x', value: 1 }, wire: [] },
  usage: { body: { type: 'usage', agent: 'a', model: 'm', inputTokens: 3, outputTokens: 2 }, wire: [] },
  raw: { body: { type: 'raw', event: 1 }, wire: [] },
  error: { body: { type: 'error', code: 'not_found', message: 'nope' }, wire: ['error'] },
}

test('every canonical event encodes to seed-shaped HUMA events, or to nothing', () => {
  const view = socketView()
  const produced = new Set<string>()
  for (const [type, { body, wire }] of Object.entries(SAMPLES)) {
    const e = ev(body)
    const frames = view.encode(e)
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
  const view = socketView()
  const [sent] = view.encode(ev(SAMPLES['message.sent'].body))
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
  const [call] = view.encode(ev(SAMPLES['tool.call'].body))
  assert.deepEqual([call!.payload.toolCallId, call!.payload.arguments], [T, { title: 'Inception' }])
})

test('streamed text becomes one whole message; server tools, client-canceled calls, interrupts and user answers send nothing', () => {
  const view = socketView()
  view.encode(ev({ type: 'text.start', messageId: 'm9' }))
  for (const d of ['Echo', ': ', 'hi']) assert.deepEqual(view.encode(ev({ type: 'text.delta', messageId: 'm9', delta: d })), [])
  const frames = view.encode(ev({ type: 'text.end', messageId: 'm9' }))
  assert.equal(frames[0]!.payload.message, 'Echo: hi')
  assert.equal(view.view, EMPTY_VIEW, 'the buffer is released: the socket is back on the shared empty view')
  assert.deepEqual(view.encode(ev({ type: 'tool.call', toolCallId: T, toolName: 'get_weather', args: {}, target: 'server' })), [])
  assert.deepEqual(view.encode(ev({ type: 'tool.cancel', toolCallId: T, toolName: 't', reason: 'r', by: 'client' })), [])
  assert.deepEqual(view.encode(ev({ type: 'run.error', code: 'interrupted', message: 'x' })), [])
  assert.deepEqual(view.encode(ev({ type: 'approval.resolved', approvalId: 'a', approved: true, by: 'user' })), [])
})

test('a batch encodes as its events one by one would, and never changes the view it is given', () => {
  const events = [
    ev({ type: 'text.start', messageId: 'm1' }),
    ev({ type: 'text.delta', messageId: 'm1', delta: 'Hel' }),
    ev({ type: 'text.delta', messageId: 'm1', delta: 'lo' }),
  ]
  const half = encode(events, EMPTY_VIEW)
  assert.equal(EMPTY_VIEW.text.size, 0, 'the shared empty view is untouched')
  assert.deepEqual([...half.view.text], [['m1', 'Hello']])
  const before = [...half.view.text]
  const end = encode([ev({ type: 'text.end', messageId: 'm1' })], half.view)
  assert.deepEqual([...half.view.text], before, 'the input view is untouched')
  assert.equal(end.view, EMPTY_VIEW)
  const one = socketView()
  const byOne = [...events, ev({ type: 'text.end', messageId: 'm1' })].flatMap((e) => [...one.encode(e)])
  assert.deepEqual(
    byOne.map((f) => f.payload.event),
    [...half.frames, ...end.frames].map((f) => f.payload.event),
  )
  assert.equal(end.frames[0]!.payload.message, 'Hello')
})
