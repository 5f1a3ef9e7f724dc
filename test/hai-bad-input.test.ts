import assert from 'node:assert/strict'
import { test } from 'node:test'
import { WebSocket } from 'ws'
import { HaiClient, textOf, type HaiClientOptions } from '../src/client/index.js'
import { startServer } from './harness.js'
import { verifyHaiStream } from './hai-lifecycle.js'

const deep = (n: number): unknown => (n === 0 ? 1 : { a: deep(n - 1) })

// [name, frame, expected error_code, expected details.field]
const ROWS: Array<[string, string | Buffer, string, string?]> = [
  ['invalid JSON', '{"type":"user_message",', 'invalid_json'],
  ['a JSON array', '[1,2,3]', 'invalid_message'],
  ['a JSON number', '42', 'invalid_message'],
  ['missing type', '{"content":"hi","session_id":"s"}', 'invalid_message', 'type'],
  ['unknown type', '{"type":"assistant_message","content":"hi"}', 'unknown_type'],
  ['no session_id', '{"type":"user_message","content":"hi"}', 'invalid_message', 'session_id'],
  ['empty content', '{"type":"user_message","content":"","session_id":"s"}', 'invalid_message', 'content'],
  ['content not a string', '{"type":"user_message","content":7,"session_id":"s"}', 'invalid_message', 'content'],
  [
    'content over 10,000 chars',
    JSON.stringify({ type: 'user_message', content: 'x'.repeat(10_001), session_id: 's' }),
    'message_too_long',
    'content',
  ],
  [
    'frame over 1 MiB',
    JSON.stringify({ type: 'user_message', content: 'x', session_id: 's', metadata: { pad: 'y'.repeat(1_153_434) } }),
    'frame_too_large',
  ],
  ['__proto__ in metadata', '{"type":"user_message","content":"x","session_id":"s","metadata":{"__proto__":{"a":1}}}', 'invalid_message'],
  ['constructor nested deep', '{"type":"user_message","content":"x","session_id":"s","metadata":{"a":[{"constructor":1}]}}', 'invalid_message'],
  ['JSON nested deeper than 64', JSON.stringify({ type: 'user_message', content: 'x', session_id: 's', metadata: deep(70) }), 'invalid_message'],
  ['approved not a boolean', '{"type":"tool_approval_response","approval_id":"a","approved":"yes"}', 'invalid_message', 'approved'],
  ['approval without approval_id', '{"type":"tool_approval_response","approved":true}', 'invalid_message', 'approval_id'],
]

/** A `ws` client that sends every frame as a binary frame (the HAI client only ever sends text). */
class BinaryWebSocket extends WebSocket {
  override send(data: Parameters<WebSocket['send']>[0], ...rest: unknown[]): void {
    const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
    ;(super.send as (d: unknown, ...r: unknown[]) => void)(payload, ...rest)
  }
}

for (const mode of ['text', 'binary'] as const) {
  test(`each bad ${mode} frame gets a HAI error with a stable code; the socket and the stored session survive`, async (t) => {
    const s = await startServer()
    t.after(() => s.close())
    const connect = (o: Omit<HaiClientOptions, 'url'> = {}) =>
      HaiClient.connect({
        url: s.url,
        ...o,
        ...(mode === 'binary' ? { WebSocket: BinaryWebSocket as unknown as HaiClientOptions['WebSocket'] } : {}),
      })
    const c = await connect()
    t.after(() => c.close())
    // before any user_message the connection is bound to no session: the error has no session_id
    c.sendRaw('{"type":')
    const unbound = await c.next('error')
    assert.equal(unbound.error_code, 'invalid_json')
    assert.equal(unbound.session_id, undefined)
    c.say('keep me')
    assert.equal(textOf(await c.untilCompleted()), 'Echo: keep me')
    let runs = 1
    for (const [name, frame, code, field] of ROWS) {
      c.sendRaw(typeof frame === 'string' ? frame : frame.toString())
      const err = await c.next('error')
      assert.equal(err.error_code, code, name)
      assert.equal(typeof err.message, 'string', name)
      assert.equal(err.seq, undefined, `${name}: an inbound error is not part of the session's log`)
      if (field) assert.equal(err.details?.field, field, `${name}: details.field`)
      c.say(`after ${name}`)
      assert.equal(textOf(await c.untilCompleted()), `Echo: after ${name}`, `${name}: the socket still works`)
      runs++
      // nothing stored was lost: a fresh connection replays every run so far from seq 0, frame for frame
      const replay = await connect({ sessionId: c.sessionId, resumeAfter: 0 })
      for (let i = 0; i < runs; i++) await replay.untilCompleted()
      replay.close()
      assert.deepEqual(
        replay.received,
        c.received.filter((m) => m.seq !== undefined),
        `${name}: replay from seq 0`,
      )
    }
    verifyHaiStream(c.received)
  })
}

test('a binary frame is read as UTF-8 text', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  const ws = new (await import('ws')).WebSocket(`${s.url.replace('http', 'ws')}/ws`)
  t.after(() => ws.close())
  await new Promise((resolve) => ws.once('open', resolve))
  const got = new Promise<string>((resolve) => ws.on('message', (d) => resolve((d as Buffer).toString('utf8'))))
  ws.send(Buffer.from(JSON.stringify({ type: 'user_message', content: 'binary', session_id: c.sessionId })), { binary: true })
  assert.match(await got, /"status":"thinking"/)
})

test('a frame over the hard ceiling closes the socket with 1009; the server stays up', async (t) => {
  const s = await startServer({ limits: { maxFrameBytes: 1024, hardMaxPayloadBytes: 4096 } })
  t.after(() => s.close())
  const c = await s.hai()
  c.sendRaw('x'.repeat(2048))
  assert.equal((await c.next('error')).error_code, 'frame_too_large')
  c.sendRaw('x'.repeat(8192))
  assert.equal((await c.closed).code, 1009)
  const d = await s.hai()
  d.say('still up')
  assert.equal(textOf(await d.untilCompleted()), 'Echo: still up')
})

test('an unknown path is refused with 404 and /healthz answers ok', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  await assert.rejects(HaiClient.connect({ url: `${s.url.replace('http', 'ws')}/nope` }), /cannot connect/)
  const health = await fetch(`${s.url}/healthz`)
  assert.equal(health.status, 200)
  assert.equal(((await health.json()) as { status: string }).status, 'ok')
})
