import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HumaClient } from '../src/client/index.js'
import { humaServer, watch } from './huma-support.js'

const ID = '550e8400-e29b-41d4-a716-446655440000'

test('the validation table over a real socket: INVALID_EVENT naming the field, socket stays up, nothing changes', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma()
  const w = await watch(s, c.sessionId)
  const rows: Array<[string, unknown, RegExp]> = [
    [
      'name of 129 characters',
      { type: 'context-update', triggering: true, name: 'n'.repeat(129), context: {}, description: 'd' },
      /"name" has 129 characters; the limit is 128/,
    ],
    [
      'result of 65,537 characters as JSON',
      { type: 'tool-result', triggering: true, toolCallId: ID, toolName: 't', outcome: 'success', result: 'x'.repeat(65_535) },
      /"result" is 65537 characters as JSON; the limit is 65536/,
    ],
    ['bad outcome', { type: 'tool-result', triggering: true, toolCallId: ID, toolName: 't', outcome: 'done' }, /"outcome"/],
    [
      'nested __proto__ (a real key, from JSON.parse)',
      JSON.parse('{"type":"context-update","triggering":true,"name":"n","description":"d","context":{"a":{"b":{"__proto__":{"polluted":true}}}}}'),
      /forbidden key "__proto__".*context\/a\/b\/__proto__/,
    ],
    [
      '__proto__ in addon data',
      JSON.parse(`{"type":"addon-tool-event","toolCallId":"${ID}","data":{"context":{"__proto__":{}}}}`),
      /data\/context\/__proto__/,
    ],
    ['missing triggering', { type: 'context-update', name: 'n', context: {}, description: 'd' }, /^context-update requires boolean "triggering"$/],
    ['tool-result missing triggering', { type: 'tool-result', toolCallId: ID, toolName: 't', outcome: 'success' }, /requires boolean "triggering"/],
    ['unknown type', { type: 'user_message', content: 'hi' }, /unknown event type "user_message"/],
    ['a string instead of an object', 'hello', /JSON object/],
    ['no payload', undefined, /JSON object/],
  ]
  const before = w.session.lastSeq
  for (const [name, payload, message] of rows) {
    c.sendRaw('message', payload)
    const err = await c.nextError()
    assert.deepEqual([err.type, err.code], ['error', 'INVALID_EVENT'], name)
    assert.match(err.message, message, name)
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution')
  c.sendRaw('chat', { type: 'context-update' })
  const unknown = await c.nextError()
  assert.deepEqual([unknown.code, unknown.message], ['INVALID_EVENT', 'unknown channel "chat"; send client events on "message"'])
  assert.equal(w.session.lastSeq, before, 'no event was recorded')
  assert.ok(c.socket.connected, 'the socket stays connected')
  c.contextUpdate('still works')
  assert.equal((await c.nextMessaging('message_sent')).message, 'Echo: still works')
})

test('an event over the frame limit is INVALID_EVENT; over the hard ceiling engine.io drops the socket and the server stays up', async (t) => {
  const s = await humaServer({ maxFrameBytes: 10_000, hardMaxPayloadBytes: 100_000 })
  t.after(() => s.close())
  const c = await s.huma()
  c.contextUpdate('x'.repeat(20_000))
  const err = await c.nextError()
  assert.equal(err.code, 'INVALID_EVENT')
  assert.match(err.message, /10000-byte limit/)
  const gone = new Promise((r) => c.socket.once('disconnect', r))
  c.contextUpdate('x'.repeat(200_000))
  await gone
  const d = await s.huma()
  d.contextUpdate('hello again')
  assert.equal((await d.nextMessaging('message_sent')).message, 'Echo: hello again')
})

test('a bad handshake sessionId is refused with INVALID_EVENT; the server and other dialects carry on', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  await assert.rejects(HumaClient.connect({ url: s.url, sessionId: 42 as unknown as string }), /"sessionId" must be a string/)
  const res = await fetch(`${s.url}/healthz`)
  assert.equal(res.status, 200)
  const hai = await s.hai()
  hai.say('hai still works next to socket.io')
  await hai.untilCompleted()
})
