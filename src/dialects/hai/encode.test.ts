import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import fc from 'fast-check'
import { ParlanceError, type EventBody, type EventType, type StoredEvent } from '../../core/index.js'
import { encode, encodeError, encodeHistory, haiView } from './encode.js'
import { HAI_ERROR_CODES } from './errors.js'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { hai } from './codec.js'
import { OUTBOUND, OUTBOUND_TYPES } from './wire.js'

/** The wire schemas, compiled: what the client, the inspector and the tests are typed by. */
const OUT = Object.fromEntries(Object.entries(OUTBOUND).map(([k, v]) => [k, TypeCompiler.Compile(v)])) as Record<
  string,
  ReturnType<typeof TypeCompiler.Compile>
>

type Check = (v: unknown) => boolean
const str: Check = (v) => typeof v === 'string'
const bool: Check = (v) => typeof v === 'boolean'
const num: Check = (v) => typeof v === 'number' && Number.isFinite(v)
const record: Check = (v) => typeof v === 'object' && v !== null && !Array.isArray(v)
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v)
const literal =
  (t: string): Check =>
  (v) =>
    v === t

interface WireShape {
  required: Record<string, Check>
  optional: Record<string, Check>
}

/** The seed's interfaces (§Message Types 2–5, 7, 8), field by field. */
const SEED: Record<(typeof OUTBOUND_TYPES)[number], WireShape> = {
  assistant_message: {
    required: { type: literal('assistant_message'), content: str },
    optional: { session_id: str, agent_id: str, metadata: record },
  },
  assistant_message_chunk: {
    required: { type: literal('assistant_message_chunk'), content: str, session_id: str, message_id: str, is_final: bool },
    optional: { agent_id: str },
  },
  tool_call_start: {
    required: { type: literal('tool_call_start'), tool_call_id: str, tool_name: str, parameters: record, session_id: str },
    optional: { agent_id: str, metadata: record },
  },
  tool_call_end: {
    required: { type: literal('tool_call_end'), tool_call_id: str, tool_name: str, result: str, session_id: str },
    optional: { agent_id: str, metadata: record },
  },
  tool_call_error: {
    required: { type: literal('tool_call_error'), tool_call_id: str, tool_name: str, error: str, session_id: str },
    optional: { agent_id: str, metadata: record },
  },
  tool_approval_request: {
    required: {
      type: literal('tool_approval_request'),
      tool_name: str,
      tool_description: str,
      parameters: record,
      reasoning: str,
      risk_level: oneOf('low', 'medium', 'high', 'critical'),
      session_id: str,
      approval_id: str,
    },
    optional: {},
  },
  status: {
    required: { type: literal('status'), status: oneOf('thinking', 'routing', 'executing_tools', 'completed') },
    optional: { message: str, session_id: str },
  },
  error: {
    required: { type: literal('error'), error_code: str, message: str },
    optional: { details: record },
  },
}

/**
 * Fields Parlance adds beyond the seed's interfaces. Every server frame carries `session_id`; the last frame of each event carries `seq` (resume);
 * the rest are listed per type so that a new field fails this test until it is added here on purpose.
 */
const EVERY_FRAME: Record<string, Check> = { seq: (v) => Number.isInteger(v) && (v as number) >= 1, session_id: str }
const EXTENSIONS: Partial<Record<(typeof OUTBOUND_TYPES)[number], Record<string, Check>>> = {
  // README: "tool_approval_request … (and timeout_ms)".
  tool_approval_request: { timeout_ms: num, agent_id: str },
  // `progress` carries the percentage of a progress event; agent_id comes with the session ids on every frame.
  // `queued` / `rewound` carry a waiting message and a history cut (conversation control) on a status thinking.
  status: { progress: num, agent_id: str, queued: record, rewound: record },
  error: { agent_id: str },
}

const FIXTURES = new URL('./fixtures/', import.meta.url)
function fixtures(type: string): Array<Record<string, unknown>> {
  const dir = new URL(`${type}/`, FIXTURES)
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as Record<string, unknown>)
}

function checkAgainstSeed(msg: Record<string, unknown>, extra: Record<string, Check>, where: string): void {
  const type = msg.type as (typeof OUTBOUND_TYPES)[number]
  const shape = SEED[type]
  assert.ok(shape, `${where}: not a seed outbound type: ${String(msg.type)}`)
  for (const [field, ok] of Object.entries(shape.required)) {
    assert.ok(Object.hasOwn(msg, field), `${where}: ${type} lacks required field ${field}`)
    assert.ok(ok(msg[field]), `${where}: ${type}.${field} has the wrong type: ${JSON.stringify(msg[field])}`)
  }
  const allowed = { ...shape.optional, ...extra }
  for (const [field, value] of Object.entries(msg)) {
    if (field in shape.required) continue
    const ok = allowed[field]
    assert.ok(ok, `${where}: ${type} has field ${field}, which the seed does not define`)
    assert.ok(ok(value), `${where}: ${type}.${field} has the wrong type: ${JSON.stringify(value)}`)
  }
}

test('the seed table matches every outbound fixture (the reference shapes)', () => {
  for (const type of OUTBOUND_TYPES) {
    const list = fixtures(type)
    assert.ok(list.length > 0, `no fixture for ${type}`)
    for (const f of list) checkAgainstSeed(f, {}, `fixture ${type}`)
  }
})

const view = haiView('sess-1', 'agent-1')
let seq = 0
function ev(body: EventBody): StoredEvent {
  return { ...body, sessionId: 'sess-1', runId: 'run_1', seq: ++seq, ts: 1_700_000_000_000 }
}

/** Encodes, parses and checks every frame against the seed; returns the parsed frames. */
function encoded(body: EventBody): Array<Record<string, unknown>> {
  const e = ev(body)
  const frames = encode(e, view)
  return frames.map((f, i) => {
    assert.equal(typeof f, 'string')
    const msg = JSON.parse(f) as Record<string, unknown>
    checkAgainstSeed(msg, { ...EVERY_FRAME, ...EXTENSIONS[msg.type as (typeof OUTBOUND_TYPES)[number]] }, `encode(${body.type})`)
    // …and against wire.ts, the one definition of the type every HAI client is written against.
    const schema = OUT[msg.type as string]
    assert.ok(schema, `encode(${body.type}): ${String(msg.type)} has a wire.ts schema`)
    assert.ok(
      schema.Check(msg),
      `encode(${body.type}): matches wire.ts: ${JSON.stringify([...schema.Errors(msg)].map((e) => `${e.path} ${e.message}`))}`,
    )
    // Only the last frame of an event carries its seq: a client resuming from the seq it saw has seen the whole event.
    assert.equal(msg.seq, i === frames.length - 1 ? e.seq : undefined, `${body.type}: seq on the last frame only`)
    assert.equal(msg.session_id, 'sess-1', `${body.type}: session_id`)
    return msg
  })
}

/** One sample event per canonical type, and the HAI types it must become (empty: HAI has no word for it). */
const SAMPLES: Record<EventType, { body: EventBody; wire: string[] }> = {
  'message.user': { body: { type: 'message.user', messageId: 'u1', content: 'hi' }, wire: [] },
  'context.update': { body: { type: 'context.update', name: 'n', description: 'd', context: {}, triggering: false }, wire: [] },
  'message.queued': { body: { type: 'message.queued', messageId: 'q1', content: 'later' }, wire: ['status'] },
  'message.withdrawn': { body: { type: 'message.withdrawn', messageId: 'q1', reason: 'changed my mind' }, wire: [] },
  'history.rewound': { body: { type: 'history.rewound', toMessageId: 'u1', reason: 'regenerate' }, wire: ['status'] },
  'run.started': { body: { type: 'run.started', agent: 'a' }, wire: [] },
  'run.finished': { body: { type: 'run.finished' }, wire: ['status'] },
  'run.error': { body: { type: 'run.error', code: 'interrupted', message: 'stopped', details: { why: 'new input' } }, wire: ['error', 'status'] },
  'step.started': { body: { type: 'step.started', stepId: 's1', name: 'search' }, wire: [] },
  'step.finished': { body: { type: 'step.finished', stepId: 's1', name: 'search', ok: true }, wire: [] },
  'text.start': { body: { type: 'text.start', messageId: 'm1' }, wire: [] },
  'text.delta': { body: { type: 'text.delta', messageId: 'm1', delta: 'Based on ' }, wire: ['assistant_message_chunk'] },
  'text.end': { body: { type: 'text.end', messageId: 'm1' }, wire: ['assistant_message_chunk'] },
  'reasoning.start': { body: { type: 'reasoning.start', messageId: 'r1' }, wire: [] },
  'reasoning.delta': { body: { type: 'reasoning.delta', messageId: 'r1', delta: 'hmm' }, wire: [] },
  'reasoning.end': { body: { type: 'reasoning.end', messageId: 'r1' }, wire: [] },
  'tool.call': {
    body: { type: 'tool.call', toolCallId: 'call_abc123', toolName: 'search_regulations', args: { query: 'food safety' }, target: 'server' },
    wire: ['tool_call_start'],
  },
  'tool.result': {
    body: { type: 'tool.result', toolCallId: 'call_abc123', toolName: 'search_regulations', result: { documents_found: 5 } },
    wire: ['tool_call_end'],
  },
  'tool.error': {
    body: { type: 'tool.error', toolCallId: 'call_abc123', toolName: 'search_regulations', error: 'Database connection timeout' },
    wire: ['tool_call_error'],
  },
  'tool.cancel': { body: { type: 'tool.cancel', toolCallId: 'c9', toolName: 'pick', reason: 'interrupted by new input' }, wire: ['tool_call_error'] },
  'approval.requested': {
    body: {
      type: 'approval.requested',
      approvalId: 'appr_abc123',
      toolName: 'generate_inspection_report',
      toolDescription: 'Generates official PDF inspection report',
      args: { inspection_id: 'INS-2024-001' },
      reasoning: 'User requested to finalize the inspection report',
      risk: 'high',
      timeoutMs: 60_000,
    },
    wire: ['tool_approval_request'],
  },
  'approval.resolved': { body: { type: 'approval.resolved', approvalId: 'a', approved: true, by: 'user' }, wire: [] },
  status: { body: { type: 'status', status: 'routing', message: 'Routing to specialist agent...' }, wire: ['status'] },
  plan: {
    body: {
      type: 'plan',
      planId: 'p1',
      tasks: [
        { id: 't1', title: 'Search' },
        { id: 't2', title: 'Answer' },
      ],
    },
    wire: ['status'],
  },
  progress: { body: { type: 'progress', planId: 'p1', taskId: 't1', percent: 42.4 }, wire: ['status'] },
  'state.snapshot': { body: { type: 'state.snapshot', snapshot: { a: 1 } }, wire: [] },
  'state.delta': { body: { type: 'state.delta', patch: [{ op: 'add', path: '/a', value: 1 }] }, wire: [] },
  'messages.snapshot': { body: { type: 'messages.snapshot', messages: [] }, wire: [] },
  typing: { body: { type: 'typing', active: true }, wire: [] },
  'message.sent': {
    body: { type: 'message.sent', toolCallId: 'c1', messageId: 'm1', message: 'Hi there', index: 0, count: 1, confirm: false },
    wire: ['assistant_message'],
  },
  'message.delivery': { body: { type: 'message.delivery', toolCallId: 'c1', messageId: 'm1', index: 0, ok: true, by: 'client' }, wire: [] },
  custom: { body: { type: 'custom', name: 'x', value: [1] }, wire: [] },
  usage: { body: { type: 'usage', agent: 'a', model: 'm', inputTokens: 3, outputTokens: 2 }, wire: [] },
  raw: { body: { type: 'raw', event: { a: 1 } }, wire: [] },
  error: { body: { type: 'error', code: 'not_found', message: 'no such approval', details: { approvalId: 'a' } }, wire: ['error'] },
}

test('every canonical event encodes to the seed shapes it maps to, or to nothing', () => {
  const produced = new Set<string>()
  for (const [type, { body, wire }] of Object.entries(SAMPLES)) {
    const msgs = encoded(body)
    assert.deepEqual(
      msgs.map((m) => m.type),
      wire,
      `${type} → ${wire.join(', ') || 'no frame'}`,
    )
    for (const m of msgs) produced.add(m.type as string)
  }
  // Every outbound seed type is produced by some event (assistant_message: history, and messaging bursts).
  assert.deepEqual([...produced].sort(), [...OUTBOUND_TYPES].sort())
})

test('events HAI has no word for yield no frame', () => {
  for (const t of ['step.started', 'state.snapshot', 'custom', 'message.user', 'run.started'] as const) {
    assert.deepEqual(encode(ev(SAMPLES[t].body), view), [], t)
  }
})

test('text.delta / text.end: chunks grouped by message_id, one empty final chunk', () => {
  const [chunk] = encoded({ type: 'text.delta', messageId: 'msg_001', delta: 'the regulations, ' })
  assert.equal(chunk!.content, 'the regulations, ')
  assert.equal(chunk!.message_id, 'msg_001')
  assert.equal(chunk!.is_final, false)
  assert.equal(chunk!.agent_id, 'agent-1')
  const [final] = encoded({ type: 'text.end', messageId: 'msg_001' })
  assert.deepEqual(
    { content: final!.content, message_id: final!.message_id, is_final: final!.is_final },
    { content: '', message_id: 'msg_001', is_final: true },
  )
})

test('status, run.finished, plan and progress become status messages', () => {
  assert.deepEqual(
    encoded({ type: 'status', status: 'thinking' }).map((m) => [m.status, 'message' in m]),
    [['thinking', false]],
  )
  const [routing] = encoded({ type: 'status', status: 'routing', message: 'Routing…' })
  assert.equal(routing!.message, 'Routing…')
  assert.equal(encoded({ type: 'run.finished', result: { ok: true } })[0]!.status, 'completed')
  const [plan] = encoded(SAMPLES.plan.body)
  assert.equal(plan!.status, 'thinking')
  assert.match(plan!.message as string, /Search.*Answer/)
  const [progress] = encoded({ type: 'progress', percent: 42.4, message: 'Searching database...' })
  assert.deepEqual([progress!.status, progress!.message, progress!.progress], ['executing_tools', 'Searching database...', 42.4])
})

test('message.queued and history.rewound: a status thinking carrying queued / rewound (extension fields)', () => {
  const [queued] = encoded({ type: 'message.queued', messageId: 'q1', content: 'and then?', metadata: { onBusy: 'enqueue' }, agent: 'a' })
  assert.deepEqual([queued!.status, queued!.queued], ['thinking', { message_id: 'q1', content: 'and then?' }])
  assert.equal(typeof queued!.message, 'string')
  const [rollback] = encoded({ type: 'history.rewound', toMessageId: 'u1', reason: 'rollback', droppedRunId: 'run_0' })
  assert.deepEqual([rollback!.status, rollback!.rewound], ['thinking', { to_message_id: 'u1', reason: 'rollback', dropped_run_id: 'run_0' }])
  const [edit] = encoded({ type: 'history.rewound', toMessageId: null, reason: 'edit', branch: 'fork_1' })
  assert.deepEqual(edit!.rewound, { to_message_id: null, reason: 'edit', branch: 'fork_1' })
  const [regen] = encoded(SAMPLES['history.rewound'].body)
  assert.deepEqual(regen!.rewound, { to_message_id: 'u1', reason: 'regenerate' })
  assert.notEqual(regen!.message, rollback!.message)
})

test('run.error: an error message with the HAI code and the run id, then status completed', () => {
  const [err, done] = encoded(SAMPLES['run.error'].body)
  assert.equal(err!.error_code, 'interrupted')
  assert.equal(err!.message, 'stopped')
  assert.deepEqual(err!.details, { why: 'new input', run_id: 'run_1', seq: done!.seq })
  assert.equal(done!.status, 'completed')
  const [internal, internalDone] = encoded({ type: 'run.error', code: 'internal', message: 'x' })
  assert.equal(internal!.error_code, 'internal_error')
  assert.deepEqual(internal!.details, { run_id: 'run_1', seq: internalDone!.seq })
})

test('error events use HAI_ERROR_CODES and always carry details', () => {
  const [e] = encoded(SAMPLES.error.body)
  assert.deepEqual([e!.error_code, e!.message, e!.details], ['not_found', 'no such approval', { approvalId: 'a' }])
  const [forbidden] = encoded({ type: 'error', code: 'forbidden_key', message: 'forbidden key' })
  assert.equal(forbidden!.error_code, HAI_ERROR_CODES.forbidden_key)
  assert.equal(forbidden!.error_code, 'invalid_message')
  assert.deepEqual(forbidden!.details, {})
})

test('tool lifecycle: start with parameters, end with a string result, error and cancel as tool_call_error', () => {
  const [start] = encoded(SAMPLES['tool.call'].body)
  assert.deepEqual([start!.tool_call_id, start!.tool_name, start!.parameters], ['call_abc123', 'search_regulations', { query: 'food safety' }])
  assert.deepEqual(start!.metadata, { target: 'server' })
  const [end] = encoded(SAMPLES['tool.result'].body)
  assert.equal(end!.result, '{"documents_found":5}')
  assert.deepEqual(end!.metadata, { result: { documents_found: 5 } })
  const [plain] = encoded({ type: 'tool.result', toolCallId: 'c', toolName: 't', result: 'Found 5 relevant regulations' })
  assert.equal(plain!.result, 'Found 5 relevant regulations')
  const [nul] = encoded({ type: 'tool.result', toolCallId: 'c', toolName: 't', result: null })
  assert.equal(nul!.result, 'null')
  const [error] = encoded(SAMPLES['tool.error'].body)
  assert.equal(error!.error, 'Database connection timeout')
  const [cancel] = encoded(SAMPLES['tool.cancel'].body)
  assert.equal(cancel!.tool_call_id, 'c9')
  assert.match(cancel!.error as string, /interrupted by new input/)
  assert.deepEqual(cancel!.metadata, { cancelled: true })
})

test('approval.requested becomes tool_approval_request with every seed field', () => {
  const [r] = encoded(SAMPLES['approval.requested'].body)
  assert.deepEqual(
    [r!.tool_name, r!.tool_description, r!.parameters, r!.reasoning, r!.risk_level, r!.approval_id, r!.timeout_ms],
    [
      'generate_inspection_report',
      'Generates official PDF inspection report',
      { inspection_id: 'INS-2024-001' },
      'User requested to finalize the inspection report',
      'high',
      'appr_abc123',
      60_000,
    ],
  )
})

test('encodeHistory: past assistant answers become assistant_message', () => {
  const f = encodeHistory({ id: 'm1', role: 'assistant', content: 'Based on the regulations…' }, view)
  assert.ok(f)
  const msg = JSON.parse(f) as Record<string, unknown>
  checkAgainstSeed(msg, {}, 'encodeHistory')
  assert.deepEqual([msg.content, msg.session_id, msg.agent_id], ['Based on the regulations…', 'sess-1', 'agent-1'])
  assert.equal(encodeHistory({ id: 'u1', role: 'user', content: 'hi' }, view), null)
  assert.equal(encodeHistory({ id: 'm2', role: 'assistant', content: '' }, view), null)
})

test('encodeError: {type:"error", error_code, message, details}', () => {
  const bare = JSON.parse(encodeError(new ParlanceError('message_too_long', 'too long', { field: 'content' }), null)) as Record<string, unknown>
  assert.deepEqual(bare, { type: 'error', error_code: 'message_too_long', message: 'too long', details: { field: 'content' } })
  checkAgainstSeed(bare, {}, 'encodeError(null view)')
  const noDetails = JSON.parse(encodeError(new ParlanceError('internal', 'oops'), null)) as Record<string, unknown>
  assert.deepEqual(noDetails, { type: 'error', error_code: 'internal_error', message: 'oops', details: {} })
  const withView = JSON.parse(encodeError(new ParlanceError('too_deep', 'deep'), view)) as Record<string, unknown>
  assert.deepEqual(withView, {
    type: 'error',
    error_code: 'invalid_message',
    message: 'deep',
    details: {},
    session_id: 'sess-1',
    agent_id: 'agent-1',
  })
})

test('property: text.delta content and ids survive quotes, newlines and any unicode', () => {
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.constantFrom('"', '\\', '\n\r\t', '\u2028\u2029', '</script>', '😀𝄞', '\ud800', '\u0000'),
  )
  fc.assert(
    fc.property(text, text, text, (delta, messageId, sessionId) => {
      const v = haiView(sessionId, 'agent "x"')
      const frames = encode({ type: 'text.delta', messageId, delta, sessionId, runId: 'r', seq: 7, ts: 0 }, v)
      assert.equal(frames.length, 1)
      const msg = JSON.parse(frames[0]!) as Record<string, unknown>
      assert.equal(msg.content, delta)
      assert.equal(msg.message_id, messageId)
      assert.equal(msg.session_id, sessionId)
      assert.equal(msg.agent_id, 'agent "x"')
      assert.equal(msg.seq, 7)
    }),
    { numRuns: 500 },
  )
})

test('approval.resolved: nothing for a user answer; an error naming the approval for a timeout or a withdrawal', () => {
  assert.deepEqual(encoded({ type: 'approval.resolved', approvalId: 'ap1', approved: false, by: 'user' }), [])
  const [timedOut] = encoded({ type: 'approval.resolved', approvalId: 'ap1', approved: false, by: 'timeout' })
  assert.deepEqual([timedOut!.type, timedOut!.error_code, timedOut!.details], ['error', 'timeout', { approval_id: 'ap1' }])
  const [withdrawn] = encoded({ type: 'approval.resolved', approvalId: 'ap2', approved: false, by: 'cancel' })
  assert.deepEqual([withdrawn!.error_code, withdrawn!.details], ['cancelled', { approval_id: 'ap2' }])
})

test('the batch codec: frames as per event; a run of another agent names that agent from its run.started on', () => {
  const events = [
    ev({ type: 'text.delta', messageId: 'm', delta: 'a' }),
    ev({ type: 'run.started', agent: 'other' }),
    ev({ type: 'text.delta', messageId: 'm2', delta: 'b' }),
  ]
  const v = hai.view('sess-1', 'demo')
  const out = hai.encode(events, v)
  const agents = out.frames.map((f) => (JSON.parse(f) as { agent_id: string }).agent_id)
  assert.deepEqual(agents, ['demo', 'other'])
  assert.equal(v.agentId, 'demo', 'the input view is untouched')
  assert.equal(out.view.agentId, 'other')
  assert.equal(hai.shareKey(out.view), out.view.ids)
  const again = hai.encode([ev({ type: 'text.delta', messageId: 'm2', delta: 'c' })], out.view)
  assert.equal(again.view, out.view, 'a batch that learns nothing returns the same view')
})

test('the batch codec: chunks of messages in any order, over any batches, are the frames each event makes alone (the view memoizes a tail per message)', () => {
  const piece = fc.record({ messageId: fc.constantFrom('m1', 'm2', 'msg "3"'), delta: fc.string({ unit: 'binary' }), cut: fc.boolean() })
  fc.assert(
    fc.property(fc.array(piece, { minLength: 1, maxLength: 20 }), (pieces) => {
      const events = pieces.map((p, i) => ({ ...ev({ type: 'text.delta', messageId: p.messageId, delta: p.delta }), seq: i + 1 }))
      const alone = events.flatMap((e) => encode(e, haiView('s "1"', 'demo')))
      let view = hai.view('s "1"', 'demo')
      const frames: string[] = []
      let batch: StoredEvent[] = []
      events.forEach((e, i) => {
        batch.push(e)
        if (pieces[i]!.cut || i === events.length - 1) {
          const out = hai.encode(batch, view)
          frames.push(...out.frames)
          view = out.view
          batch = []
        }
      })
      assert.deepEqual(frames, alone)
      assert.equal(hai.shareKey(view), haiView('s "1"', 'demo').ids, 'the memo is not part of the share key')
    }),
  )
})
