import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HaiClient, textOf } from '../src/client/index.js'
import { startServer } from './harness.js'
import { verifyHaiStream } from './hai-lifecycle.js'

const expected = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1} `).join('')

test('closing mid-stream does not stop the run; reconnecting after the last seq gets exactly the rest', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const a = await s.hai()
  a.say('slow')
  for (let i = 0; i < 3; i++) await a.next('assistant_message_chunk')
  const seen = a.received.slice()
  const lastSeq = a.lastSeq
  a.close()
  await a.closed
  const b = await HaiClient.connect({ url: s.url, sessionId: a.sessionId, resumeAfter: lastSeq })
  t.after(() => b.close())
  const rest = await b.untilCompleted(20_000)
  assert.ok(rest[0]!.seq! > lastSeq)
  verifyHaiStream([...seen, ...rest])
  assert.equal(textOf(seen) + textOf(rest), expected(50))
})

test('reconnecting without a seq replays the active run from its start; history=1 sends past answers', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const a = await s.hai()
  a.say('earlier question')
  await a.untilCompleted()
  a.say('slow')
  await a.next('assistant_message_chunk')
  a.close()
  const b = await s.hai({ sessionId: a.sessionId, resumeAfter: -1, history: true })
  const past = await b.next('assistant_message')
  assert.equal(past.content, 'Echo: earlier question')
  const rest = await b.untilCompleted(20_000)
  assert.equal(textOf(rest), expected(50))
  verifyHaiStream(b.received)
  await a.closed
  const aSlow = a.received.slice(a.received.findIndex((m) => m.type === 'status' && m.status === 'completed') + 1)
  assert.ok(aSlow.length >= 1)
  assert.deepEqual(b.received.slice(1, 1 + aSlow.length), aSlow, 'the replay starts with the very frames a saw of the active run')
})

test('a message after reconnecting continues the same conversation', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const a = await s.hai()
  a.say('one')
  await a.untilCompleted()
  a.close()
  const b = await s.hai({ sessionId: a.sessionId })
  b.say('two')
  assert.equal(textOf(await b.untilCompleted()), 'Echo: two')
  verifyHaiStream([...a.received, ...b.received])
  assert.deepEqual(
    (await s.stored(a.sessionId))?.messages.map((m) => [m.role, m.content]),
    [
      ['user', 'one'],
      ['assistant', 'Echo: one'],
      ['user', 'two'],
      ['assistant', 'Echo: two'],
    ],
  )
})

test('a message sent again with its message_id (its client lost the socket before any answer) is carried out once', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const a = await s.hai()
  a.say('slow', { message_id: 'm-1' })
  await a.next('assistant_message_chunk')
  const [seen, cursor] = [a.received.slice(), a.lastSeq]
  a.close()
  await a.closed
  // Not knowing whether its message arrived, the client sends it again on a new socket, then reads by its cursor.
  const b = await s.hai({ sessionId: a.sessionId, resumeAfter: cursor })
  t.after(() => b.close())
  b.say('slow', { message_id: 'm-1' })
  const rest = await b.untilCompleted(20_000)
  assert.equal(textOf(seen) + textOf(rest), expected(50), 'the answer is whole and not interrupted by its own resend')
  assert.ok(!rest.some((m) => m.type === 'error'), JSON.stringify(rest.filter((m) => m.type === 'error')))
  verifyHaiStream([...seen, ...rest])
  // Again once answered: nothing runs; the next new message is answered next.
  b.say('slow', { message_id: 'm-1' })
  b.say('two', { message_id: 'm-2' })
  assert.equal(textOf(await b.untilCompleted()), 'Echo: two')
  assert.deepEqual(
    (await s.stored(a.sessionId))?.messages.map((m) => [m.role, m.content]),
    [
      ['user', 'slow'],
      ['assistant', expected(50)],
      ['user', 'two'],
      ['assistant', 'Echo: two'],
    ],
  )
  // The same id for other words is the client's mistake, answered as such; the session goes on.
  b.say('three', { message_id: 'm-2' })
  const refused = await b.next('error')
  assert.equal(refused.error_code, 'conflict')
  assert.match(String(refused.message), /message id m-2 already names another message/)
  b.say('three', { message_id: 'm-3' })
  assert.equal(textOf(await b.untilCompleted()), 'Echo: three')
})
