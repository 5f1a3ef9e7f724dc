import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { DEFAULT_LIMITS, ParlanceError, type StoredEvent } from '../../core/index.js'
import { decodeCommand, decodeEventStreamRequest, resumeOf } from './protocol-decode.js'
import { protocolStep, protocolView, type ProtocolView } from './protocol-encode.js'
import { errorResponse } from './protocol-errors.js'

const cmd = (body: unknown) => decodeCommand(JSON.stringify(body), DEFAULT_LIMITS)
const human = (content: unknown) => ({ messages: [{ type: 'human', content }] })

test('protocol decode: run.start as the classic run (forkFrom as its checkpoint), input.respond keyed by interrupt id', () => {
  const start = cmd({ id: 1, method: 'run.start', params: { assistant_id: 'demo', input: human('hi'), multitaskStrategy: 'reject' } })
  assert.ok(start.ok && start.value.method === 'run.start')
  assert.equal(start.value.run.multitask_strategy, 'reject')
  const fork = cmd({
    id: 2,
    method: 'run.start',
    params: { assistant_id: 'demo', input: null, config: { configurable: { checkpoint_id: 'ckpt_1' } } },
  })
  assert.ok(fork.ok && fork.value.method === 'run.start')
  assert.deepEqual(fork.value.run.checkpoint, { checkpoint_id: 'ckpt_1' })
  const one = cmd({ id: 3, method: 'input.respond', params: { namespace: [], interrupt_id: 'a', response: { decisions: [{ type: 'approve' }] } } })
  assert.ok(one.ok && one.value.method === 'input.respond')
  assert.deepEqual(one.value.resume, { a: { decisions: [{ type: 'approve' }] } })
  const many = cmd({
    id: 4,
    method: 'input.respond',
    params: {
      responses: [
        { namespace: [], interrupt_id: 'a', response: 1 },
        { interrupt_id: 'b', response: 2 },
      ],
    },
  })
  assert.ok(many.ok && many.value.method === 'input.respond')
  assert.deepEqual(many.value.resume, { a: 1, b: 2 })
})

test('protocol decode: every refusal is a value with the command id and the protocol code, naming the field', () => {
  const rows: Array<[unknown, number | null, string, RegExp]> = [
    ['not json', null, 'invalid_argument', /JSON/i],
    [{ method: 'run.start' }, null, 'invalid_argument', /id/],
    [{ id: 1, method: 'nope' }, 1, 'unknown_command', /nope/],
    [{ id: 2, method: 'subscription.subscribe', params: {} }, 2, 'not_supported', /stream\/events/],
    [{ id: 3, method: 'run.start', params: { input: human('x') } }, 3, 'invalid_argument', /params\.assistant_id/],
    [{ id: 4, method: 'run.start', params: { assistant_id: 'demo', input: { foo: 1 } } }, 4, 'invalid_argument', /params\.input/],
    [
      { id: 5, method: 'run.start', params: { assistant_id: 'demo', input: { messages: [{ type: 'ai', content: 'x' }] } } },
      5,
      'invalid_argument',
      /human/,
    ],
    [{ id: 6, method: 'run.start', params: { assistant_id: 'demo', input: human([{ type: 'image' }]) } }, 6, 'invalid_argument', /content\[0\]/],
    [
      { id: 7, method: 'run.start', params: { assistant_id: 'demo', input: human('x'), multitaskStrategy: 'later' } },
      7,
      'invalid_argument',
      /multitask/,
    ],
    [{ id: 8, method: 'input.respond', params: { namespace: [] } }, 8, 'invalid_argument', /params/],
    [{ id: 9, method: 'input.respond', params: { interrupt_id: 'a', response: 1, goto: 'x' } }, 9, 'not_supported', /goto/],
  ]
  for (const [body, id, code, message] of rows) {
    const d = decodeCommand(typeof body === 'string' ? body : JSON.stringify(body), DEFAULT_LIMITS)
    assert.ok(!d.ok, JSON.stringify(body))
    const e = errorResponse(d.error, d.id)
    assert.deepEqual({ type: e.type, id: e.id, error: e.error }, { type: 'error', id, error: code }, JSON.stringify(body))
    assert.match(e.message, message, JSON.stringify(body))
  }
  assert.ok(!decodeEventStreamRequest('{"channels": []}', DEFAULT_LIMITS).ok)
  assert.ok(decodeEventStreamRequest('{"channels": ["values", "custom:x"], "since": 4}', DEFAULT_LIMITS).ok)
  assert.equal(errorResponse(new ParlanceError('not_found', 'no', { field: 'checkpoint' }), 1).error, 'no_such_checkpoint')
})

test('protocol decode never throws', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.json()), (s) => {
      decodeCommand(s, DEFAULT_LIMITS)
      decodeEventStreamRequest(s, DEFAULT_LIMITS)
    }),
  )
})

let seq = 0
const ev = (e: Record<string, unknown>, runId = 'r1') => ({ seq: ++seq, ts: 1000 + seq, sessionId: 's', runId, ...e }) as unknown as StoredEvent
type Wire = { event_id: string; seq: number; method: string; params: { namespace: string[]; data: Record<string, unknown> } }
function fold(v: ProtocolView, events: StoredEvent[]): Wire[] {
  const out: Wire[] = []
  for (const e of events) {
    const s = protocolStep(e, v)
    v = s.view
    for (const block of s.out.split('\n\n').filter(Boolean)) {
      const lines = block.split('\n')
      const w = JSON.parse(lines[1]!.slice('data: '.length)) as Wire
      assert.equal(lines[0], `id: ${w.event_id}`)
      out.push(w)
    }
  }
  return out
}
const all = ['lifecycle', 'messages', 'values', 'tools', 'input', 'custom']
const kind = (w: Wire) =>
  w.method === 'lifecycle' || w.method === 'messages' || w.method === 'tools' ? `${w.method}:${String(w.params.data.event)}` : w.method

test('protocol encode: a run with a streamed message, an approval answered, a server tool and its end', () => {
  seq = 0
  const events = [
    ev({ type: 'run.started', agent: 'demo' }),
    ev({ type: 'message.user', messageId: 'u1', content: 'hi' }),
    ev({ type: 'text.start', messageId: 'm1' }),
    ev({ type: 'text.delta', messageId: 'm1', delta: 'Hel' }),
    ev({ type: 'text.delta', messageId: 'm1', delta: 'lo' }),
    ev({ type: 'text.end', messageId: 'm1' }),
    ev({ type: 'tool.call', toolCallId: 'c1', toolName: 'rm', args: { p: 1 }, target: 'server' }),
    ev({ type: 'approval.requested', approvalId: 'a1', toolCallId: 'c1', toolName: 'rm', args: { p: 1 }, risk: 'high' }),
    ev({ type: 'approval.resolved', approvalId: 'a1', approved: true, by: 'user' }),
    ev({ type: 'tool.result', toolCallId: 'c1', toolName: 'rm', result: 'ok' }),
    ev({ type: 'custom', name: 'note', value: 1 }),
    ev({ type: 'run.finished' }),
  ]
  const wire = fold(protocolView({ threadId: 't', after: 0, messages: [], channels: all, root: true }), events)
  assert.deepEqual(wire.map(kind), [
    'lifecycle:running',
    'values',
    'messages:message-start',
    'messages:content-block-start',
    'messages:content-block-delta',
    'messages:content-block-delta',
    'messages:content-block-finish',
    'messages:message-finish',
    'values',
    'tools:tool-started',
    'values',
    'input.requested',
    'lifecycle:interrupted',
    'lifecycle:running',
    'tools:tool-finished',
    'values',
    'custom',
    'lifecycle:completed',
  ])
  assert.deepEqual(wire.find((w) => w.params.data.event === 'content-block-finish')!.params.data.content, { type: 'text', text: 'Hello' })
  assert.equal(wire.find((w) => w.method === 'input.requested')!.params.data.interrupt_id, 'a1')
  assert.equal(new Set(wire.map((w) => w.event_id)).size, wire.length)
  assert.ok(wire.every((w) => w.params.namespace.length === 0))
  // The same events through a narrower filter: the same ids for the events it keeps.
  const narrow = fold(protocolView({ threadId: 't', after: 0, messages: [], channels: ['lifecycle', 'input'], root: true }), events)
  assert.deepEqual(
    narrow.map((w) => w.event_id),
    wire.filter((w) => w.method === 'lifecycle' || w.method === 'input.requested').map((w) => w.event_id),
  )
  // A filter for other namespaces only: nothing.
  assert.deepEqual(fold(protocolView({ threadId: 't', after: 0, messages: [], channels: all, root: false }), events), [])
})

test('protocol encode: a failure and a cancel end the run as failed and interrupted', () => {
  seq = 0
  const v = protocolView({ threadId: 't', after: 0, messages: [], channels: ['lifecycle'], root: true })
  const failed = fold(v, [ev({ type: 'run.started', agent: 'demo' }), ev({ type: 'run.error', code: 'execution_error', message: 'boom' })])
  assert.deepEqual(failed.at(-1)!.params.data, { event: 'failed', graph_name: 'agent', error: 'boom' })
  const cancelled = fold(v, [ev({ type: 'run.error', code: 'cancelled', message: 'stop' })])
  assert.equal(cancelled[0]!.params.data.event, 'interrupted')
})

test("protocol decode: a headless tool's answer keyed again by its call id is unwrapped; an approval's is kept", () => {
  const pending = [
    { id: 'c1', kind: 'tool' as const },
    { id: 'a1', kind: 'approval' as const },
  ]
  assert.deepEqual(resumeOf({ c1: { c1: { app: 'x' } }, a1: { a1: true } }, pending), { c1: { app: 'x' }, a1: { a1: true } })
  assert.deepEqual(resumeOf({ c1: { app: 'x' } }, pending), { c1: { app: 'x' } })
})
