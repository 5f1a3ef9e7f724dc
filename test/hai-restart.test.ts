import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HaiClient, textOf } from '../src/client/index.js'
import { startServer } from './harness.js'

test('restart on the same SQLite file: the session continues, seq has no gap, history is kept', async (t) => {
  const first = await startServer({ store: 'sqlite' })
  t.after(() => first.removeData())
  const a = await first.hai()
  a.say('before restart')
  await a.untilCompleted()
  const lastSeq = a.lastSeq
  await first.close()

  const second = await startServer({ store: 'sqlite', dataDir: first.dataDir })
  t.after(() => second.close())
  const b = await second.hai({ sessionId: a.sessionId })
  b.say('after restart')
  const msgs = await b.untilCompleted()
  assert.equal(textOf(msgs), 'Echo: after restart')
  assert.equal(msgs[0]!.seq, lastSeq + 3, 'message.user and run.started take the next two seqs, then the first frame')
  const session = await second.server.sessions.open(a.sessionId, 'anonymous')
  assert.deepEqual(
    session.model.messages.map((m) => m.content),
    ['before restart', 'Echo: before restart', 'after restart', 'Echo: after restart'],
  )
  // the whole log is replayable from seq 0 across the restart
  const replay = await HaiClient.connect({ url: second.url, sessionId: a.sessionId, resumeAfter: 0 })
  t.after(() => replay.close())
  await replay.untilCompleted()
  const all = await replay.untilCompleted()
  assert.equal(textOf(all), 'Echo: after restart')
})

test('a run active at shutdown is recorded as interrupted and the session goes on', async (t) => {
  const first = await startServer({ store: 'sqlite' })
  t.after(() => first.removeData())
  const a = await first.hai()
  a.say('slow')
  await a.next('assistant_message_chunk')
  const seenSeq = a.lastSeq
  await first.close()

  const second = await startServer({ store: 'sqlite', dataDir: first.dataDir })
  t.after(() => second.close())
  const b = await second.hai({ sessionId: a.sessionId, resumeAfter: seenSeq })
  const err = await b.next('error')
  assert.equal(err.error_code, 'interrupted')
  await b.untilCompleted()
  b.say('hello again')
  assert.equal(textOf(await b.untilCompleted()), 'Echo: hello again')
})
