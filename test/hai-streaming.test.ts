import assert from 'node:assert/strict'
import { test } from 'node:test'
import { textOf } from '../src/client/index.js'
import { startServer } from './harness.js'
import { verifyHaiStream } from './hai-lifecycle.js'

test('echo: status thinking, ≥3 chunks of "Echo: <text>" with one final, then completed', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('Hello, Parlance')
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  assert.deepEqual(msgs[0], {
    type: 'status',
    status: 'thinking',
    message: 'Assistant is thinking...',
    session_id: c.sessionId,
    agent_id: 'demo',
    seq: msgs[0]!.seq,
  })
  const chunks = msgs.filter((m) => m.type === 'assistant_message_chunk')
  assert.ok(chunks.filter((m) => m.content !== '').length >= 3)
  assert.equal(textOf(msgs), 'Echo: Hello, Parlance')
  for (const m of chunks) {
    assert.equal(m.session_id, c.sessionId)
    assert.equal(m.agent_id, 'demo')
    assert.equal(typeof m.message_id, 'string')
    assert.equal(typeof m.is_final, 'boolean')
  }
  assert.equal(chunks.filter((m) => m.is_final).length, 1)
})

test('count 1000 streams exactly 1000 chunks in order, over SQLite', async (t) => {
  const s = await startServer({ store: 'sqlite' })
  t.after(async () => {
    await s.close()
    s.removeData()
  })
  const c = await s.hai()
  c.say('count 1000')
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  const contents = msgs
    .filter((m) => m.type === 'assistant_message_chunk' && !m.is_final)
    .map((m) => (m.type === 'assistant_message_chunk' ? m.content : ''))
  assert.equal(contents.length, 1000)
  assert.deepEqual(
    contents,
    Array.from({ length: 1000 }, (_, i) => `${i + 1} `),
  )
  const seqs = msgs.map((m) => m.seq!)
  for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! >= seqs[i - 1]!, 'seq never goes back')
})

test('fan-out: two connections on one session receive identical frames', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const a = await s.hai()
  a.say('first')
  await a.untilCompleted()
  const b = await s.hai({ sessionId: a.sessionId, resumeAfter: a.lastSeq })
  a.say('count 50')
  const fromA = await a.untilCompleted()
  const fromB = await b.untilCompleted()
  verifyHaiStream(fromA)
  assert.deepEqual(fromB, fromA)
  // and the other way round: what b starts, a sees frame for frame
  b.say('from b')
  const bSaw = await b.untilCompleted()
  assert.equal(textOf(bSaw), 'Echo: from b')
  assert.deepEqual(await a.untilCompleted(), bSaw)
  verifyHaiStream(a.received)
  assert.equal(textOf(fromB), Array.from({ length: 50 }, (_, i) => `${i + 1} `).join(''))
})

test('sessions are separate: another session sees nothing of this one', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const a = await s.hai()
  const b = await s.hai()
  a.say('only for a')
  b.say('only for b')
  assert.equal(textOf(await a.untilCompleted()), 'Echo: only for a')
  assert.equal(textOf(await b.untilCompleted()), 'Echo: only for b')
  verifyHaiStream(a.received)
  verifyHaiStream(b.received)
  assert.ok(a.received.every((m) => m.session_id === a.sessionId))
  assert.ok(b.received.every((m) => m.session_id === b.sessionId))
})

test('echo splits between characters: no chunk carries half an emoji', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  const text = `a${'👋'.repeat(30)}` // odd offset: a split by UTF-16 units lands inside a surrogate pair
  c.say(text)
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  assert.equal(textOf(msgs), `Echo: ${text}`)
  const parts = msgs.flatMap((m) => (m.type === 'assistant_message_chunk' && m.content ? [m.content] : []))
  assert.ok(parts.length >= 3)
  const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
  for (const p of parts) assert.doesNotMatch(p, loneSurrogate, `chunk ${JSON.stringify(p)} holds half a surrogate pair`)
})
