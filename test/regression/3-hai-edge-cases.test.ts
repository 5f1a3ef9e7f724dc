import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DEFAULT_LIMITS } from '../../src/index.js'
import { hai } from '../../src/dialects/hai/index.js'
import { textOf } from '../../src/client/index.js'
import { startServer } from '../harness.js'

// The 10,000-character limit counted UTF-16 units, so 10,000 emoji were refused as 20,000.
test('issue 3: content length counts characters (code points), not UTF-16 units', () => {
  const frame = (content: string) => JSON.stringify({ type: 'user_message', content, session_id: 's' })
  assert.equal(hai.decode(frame('👋'.repeat(10_000)), DEFAULT_LIMITS).ok, true)
  const over = hai.decode(frame('👋'.repeat(10_001)), DEFAULT_LIMITS)
  assert.ok(!over.ok)
  assert.equal(over.error.code, 'message_too_long')
  assert.equal(over.error.details?.length, 10_001)
})

// A client that attached before the session existed stayed unattached and missed everything.
test('issue 3: attaching to a new session id receives what another connection then starts there', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const watcher = await s.hai({ resumeAfter: -1 })
  const talker = await s.hai({ sessionId: watcher.sessionId })
  talker.say('hello watcher')
  assert.equal(textOf(await talker.untilCompleted()), 'Echo: hello watcher')
  assert.equal(textOf(await watcher.untilCompleted()), 'Echo: hello watcher')
})

// A run error is two HAI frames (error, status completed) for one event; both carried its seq, so a
// client that saved the seq of the error frame and resumed never received the completed status.
test('issue 3: only the last frame of an event carries its seq, so resuming never splits an event', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('fail')
  const msgs = await c.untilCompleted()
  const err = msgs.find((m) => m.type === 'error')
  assert.ok(err?.type === 'error')
  assert.equal(err.seq, undefined)
  const done = msgs[msgs.length - 1]!
  assert.equal(err.details?.seq, done.seq)
  const resumed = await s.hai({ sessionId: c.sessionId, resumeAfter: done.seq! - 1 })
  const again = await resumed.untilCompleted()
  assert.deepEqual(
    again.map((m) => m.type),
    ['error', 'status'],
  )
})

// A `create: false` load in flight made a simultaneous creating open fail with not_found.
test('issue 3: a creating open succeeds while a non-creating open of the same id is in flight', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const probe = s.server.sessions.open('race-1', 'anonymous', { create: false })
  const create = s.server.sessions.open('race-1', 'anonymous')
  await assert.rejects(probe, (err: Error & { code?: string }) => err.code === 'not_found')
  assert.equal((await create).id, 'race-1')
})
