import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import fc from 'fast-check'
import { DEFAULT_LIMITS } from '../../core/index.js'
import { decode, type MyAgentRequest } from './decode.js'
import { encodeError, view } from './encode.js'

const FIXTURES = new URL('./fixtures/', import.meta.url)
const limits = {
  maxFrameBytes: DEFAULT_LIMITS.maxFrameBytes,
  maxJsonDepth: DEFAULT_LIMITS.maxJsonDepth,
  maxUserMessageChars: DEFAULT_LIMITS.maxUserMessageChars,
}
const read = (p: string) => readFileSync(new URL(p, FIXTURES), 'utf8')

/** What each of the seed's real examples must decode to. */
const EXPECTED: Record<string, MyAgentRequest> = {
  'user_create_session.json': { kind: 'create_session', projectName: 'PowerPoint Generator', sessionName: 'generate_slides_oct18' },
  'user_message.json': {
    kind: 'command',
    command: {
      type: 'user.message',
      sessionId: 'sess_xyz789',
      content: 'Create a 5-slide presentation about AI trends',
      metadata: { message_type: 'query', priority: 'normal', source: 'web_ui' },
    },
  },
  'user_response.json': {
    kind: 'command',
    command: {
      type: 'approval.response',
      sessionId: 'sess_xyz789',
      approvalId: 'confirm_001',
      approved: true,
      feedback: 'Looks good, but change slide 2 color to blue',
    },
  },
  'user_ack.json': { kind: 'ack', sessionId: 'sess_xyz789', lastSeq: 42 },
  'user_cancel.json': { kind: 'command', command: { type: 'run.cancel', sessionId: 'sess_xyz789', reason: 'User changed mind' } },
  'user_reconnect.json': { kind: 'reconnect', sessionId: 'sess_xyz789', lastSeq: 42 },
}

test('every inbound example of the seed decodes to its request', () => {
  const files = readdirSync(new URL('inbound/', FIXTURES))
  assert.deepEqual(files.sort(), Object.keys(EXPECTED).sort())
  for (const f of files) {
    const d = decode(read(`inbound/${f}`), limits)
    assert.ok(d.ok, `${f}: ${d.ok ? '' : d.error.message}`)
    assert.deepEqual(d.request, EXPECTED[f], f)
  }
})

test('the events the seed gives no example for decode by their payload structure', () => {
  const cases: Array<[unknown, MyAgentRequest]> = [
    [{ event: 'user.create_session' }, { kind: 'create_session', projectName: undefined, sessionName: undefined }],
    [
      { event: 'user.request_state', session_id: 's', metadata: { include_history: false, compression: 'none' } },
      { kind: 'request_state', sessionId: 's', includeHistory: false },
    ],
    [
      { event: 'user.request_state', session_id: 's' },
      { kind: 'request_state', sessionId: 's', includeHistory: true },
    ],
    [
      {
        event: 'user.reconnect_with_state',
        content: { signed_state: 'a.b', last_seq: 7, last_event_id: 'e' },
        metadata: { offline_duration_ms: 90_000, state_version: '1' },
      },
      { kind: 'reconnect_with_state', signedState: 'a.b', lastSeq: 7 },
    ],
    [
      { event: 'user.reconnect', content: { session_id: 's' } },
      { kind: 'reconnect', sessionId: 's', lastSeq: null },
    ],
    [
      { event: 'user.ack', session_id: 's' },
      { kind: 'ack', sessionId: 's', lastSeq: null },
    ],
    [
      { event: 'user.cancel', session_id: 's' },
      { kind: 'command', command: { type: 'run.cancel', sessionId: 's', reason: 'cancelled by the user' } },
    ],
    [
      { event: 'user.cancel', session_id: 's', content: null },
      { kind: 'command', command: { type: 'run.cancel', sessionId: 's', reason: 'cancelled by the user' } },
    ],
    [{ event: 'system.heartbeat', timestamp: '2024-10-18T14:30:00Z' }, { kind: 'heartbeat' }],
    // System events are bidirectional: the client's, in the seed's structures.
    [
      {
        event: 'system.heartbeat',
        session_id: 's',
        content: { server_time: '2024-10-18T14:30:00Z' },
        metadata: { seq: 3, server_uptime_seconds: 9 },
      },
      { kind: 'heartbeat' },
    ],
    [
      {
        event: 'system.connected',
        connection_id: 'c1',
        content: { server_version: '1', server_time: '2024-10-18T14:30:00Z' },
        metadata: { server_uptime_seconds: 1, active_sessions: 0 },
      },
      { kind: 'client_connected', connectionId: 'c1' },
    ],
    [{ event: 'system.connected', content: null }, { kind: 'client_connected' }],
    [
      { event: 'system.error', session_id: 's', content: 'boom', metadata: { error_code: 'E1', severity: 'warning' } },
      { kind: 'client_error', sessionId: 's', message: 'boom', errorCode: 'E1', severity: 'warning' },
    ],
    [
      { event: 'system.error', content: 'boom' },
      { kind: 'client_error', message: 'boom', severity: 'error' },
    ],
    // Conversation control (extensions): metadata.onBusy, user.regenerate.
    [
      { event: 'user.message', session_id: 's', content: 'hi', metadata: { onBusy: 'enqueue', source: 'web_ui' } },
      {
        kind: 'command',
        command: { type: 'user.message', sessionId: 's', content: 'hi', metadata: { onBusy: 'enqueue', source: 'web_ui' }, onBusy: 'enqueue' },
      },
    ],
    [
      { event: 'user.regenerate', session_id: 's' },
      { kind: 'command', command: { type: 'run.regenerate', sessionId: 's' } },
    ],
    [
      { event: 'user.regenerate', session_id: 's', content: null },
      { kind: 'command', command: { type: 'run.regenerate', sessionId: 's' } },
    ],
    [
      { event: 'user.regenerate', session_id: 's', content: { message_id: 'msg_1' }, metadata: { onBusy: 'rollback' } },
      { kind: 'command', command: { type: 'run.regenerate', sessionId: 's', messageId: 'msg_1', onBusy: 'rollback' } },
    ],
  ]
  for (const [frame, request] of cases) {
    const d = decode(JSON.stringify(frame), limits)
    assert.ok(d.ok, JSON.stringify(frame))
    assert.deepEqual(d.request, request)
  }
})

test('user.response data is kept for the log (custom.record myagent.user_response)', () => {
  const d = decode(
    JSON.stringify({
      event: 'user.response',
      session_id: 's',
      step_id: 'appr_1',
      content: { approved: false, data: { color: 'blue' } },
      metadata: { user_action: 'modify' },
    }),
    limits,
  )
  assert.ok(d.ok && d.request.kind === 'command')
  assert.deepEqual(d.request.command, { type: 'approval.response', sessionId: 's', approvalId: 'appr_1', approved: false })
  assert.deepEqual(d.request.record, {
    name: 'myagent.user_response',
    value: { step_id: 'appr_1', approved: false, data: { color: 'blue' }, metadata: { user_action: 'modify' } },
  })
})

test('the validation table: each bad frame is refused naming its field and constraint', () => {
  const cases = JSON.parse(read('invalid/cases.json')) as Array<{ frame: unknown; field: string; constraint: string }>
  cases.push({
    frame: '{"event":"user.message","session_id":"s","content":"x","metadata":{"__proto__":{"a":1}}}',
    field: 'metadata.__proto__',
    constraint: 'forbidden_key',
  })
  // Conversation control (extensions).
  cases.push(
    {
      frame: { event: 'user.message', session_id: 's', content: 'x', metadata: { onBusy: 'later' } },
      field: 'metadata.onBusy',
      constraint: 'one of interrupt, enqueue, reject, rollback',
    },
    {
      frame: { event: 'user.message', session_id: 's', content: 'x', metadata: { onBusy: 1 } },
      field: 'metadata.onBusy',
      constraint: 'one of interrupt',
    },
    { frame: { event: 'user.regenerate', content: {} }, field: 'session_id', constraint: 'required' },
    { frame: { event: 'user.regenerate', session_id: 's', content: { message_id: '' } }, field: 'content.message_id', constraint: '' },
    { frame: { event: 'user.regenerate', session_id: 's', content: 'last' }, field: 'content', constraint: '' },
    { frame: { event: 'user.regenerate', session_id: 's', metadata: { onBusy: 'queue' } }, field: 'metadata.onBusy', constraint: 'one of' },
    // Client system events.
    { frame: { event: 'system.error', session_id: 's' }, field: 'content', constraint: '' },
    { frame: { event: 'system.error', content: 'x', metadata: { severity: 'fatal' } }, field: 'metadata.severity', constraint: '' },
  )
  for (const { frame, field, constraint } of cases) {
    const text = typeof frame === 'string' ? frame : JSON.stringify(frame)
    const d = decode(text, limits)
    assert.ok(!d.ok, text)
    assert.equal(d.error.details?.field ?? '', field, text)
    assert.match(String(d.error.details?.constraint), new RegExp(constraint, 'i'), text)
    const wire = JSON.parse(encodeError(d.error, { ...view('conn_1'), now: 0 })) as { event: string; metadata: Record<string, unknown> }
    assert.equal(wire.event, 'error.validation')
    assert.equal(wire.metadata.error_code, 'ERR_VALIDATION_400')
    assert.equal(wire.metadata.recoverable, true)
  }
})

test('an error names the session and step its frame named (the seed: error events carry session_id and step_id)', () => {
  const d = decode(JSON.stringify({ event: 'user.response', session_id: 'sess_1', step_id: 'step_9', content: { approved: 'yes' } }), limits)
  assert.ok(!d.ok)
  const wire = JSON.parse(encodeError(d.error, { ...view('conn_1'), now: 0 }, 'step_fresh')) as { session_id: string; step_id: string }
  assert.deepEqual([wire.session_id, wire.step_id], ['sess_1', 'step_9'])
  const bare = decode('{"event":"nope"}', limits)
  assert.ok(!bare.ok)
  const out = JSON.parse(encodeError(bare.error, { ...view('conn_1'), now: 0 }, 'step_fresh')) as { session_id: string; step_id: string }
  assert.deepEqual([out.session_id, out.step_id], ['', 'step_fresh'], 'no session yet: an empty session_id, and the step the binding gave')
})

test('size limits: frame bytes checked first, message characters counted', () => {
  const big = decode(JSON.stringify({ event: 'user.message', session_id: 's', content: 'x'.repeat(200) }), { ...limits, maxFrameBytes: 100 })
  assert.ok(!big.ok && big.error.code === 'frame_too_large')
  const long = decode(JSON.stringify({ event: 'user.message', session_id: 's', content: '😀'.repeat(11) }), { ...limits, maxUserMessageChars: 10 })
  assert.ok(!long.ok && long.error.code === 'message_too_long' && long.error.details?.field === 'content')
  const ok = decode(JSON.stringify({ event: 'user.message', session_id: 's', content: '😀'.repeat(10) }), { ...limits, maxUserMessageChars: 10 })
  assert.ok(ok.ok)
})

test('decode never throws and always answers ok or an error naming a constraint', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.json(),
        fc
          .record({
            event: fc.constantFrom('user.message', 'user.response', 'user.ack', 'user.reconnect'),
            session_id: fc.anything(),
            content: fc.anything(),
          })
          .map((o) => JSON.stringify(o)),
      ),
      (s) => {
        const d = decode(s, limits)
        if (!d.ok) assert.ok(typeof d.error.details?.constraint === 'string')
      },
    ),
    { numRuns: 500 },
  )
})
