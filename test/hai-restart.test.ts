import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { HaiClient, textOf } from '../src/client/index.js'
import { spawnServe } from './support/serve-process.js'
import { startServer } from './harness.js'
import { verifyHaiStream } from './hai-lifecycle.js'

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
  verifyHaiStream(replay.received)
  verifyHaiStream([...a.received, ...msgs])
})

test('a run active at shutdown is recorded as interrupted and the session goes on', async (t) => {
  const first = await startServer({ store: 'sqlite' })
  t.after(() => first.removeData())
  const a = await first.hai()
  a.say('slow')
  await a.next('assistant_message_chunk')
  await first.close()
  // The live client saw the run end as interrupted before its socket closed (issue 22); it resumes after what it saw.
  const seenSeq = a.lastSeq
  const err = a.received.find((m) => m.type === 'error')
  assert.equal(err?.type === 'error' && err.error_code, 'interrupted')

  const second = await startServer({ store: 'sqlite', dataDir: first.dataDir })
  t.after(() => second.close())
  const b = await second.hai({ sessionId: a.sessionId, resumeAfter: seenSeq })
  b.say('hello again')
  assert.equal(textOf(await b.untilCompleted()), 'Echo: hello again')
  // the slow message was closed (is_final) before the run ended
  verifyHaiStream([...a.received, ...b.received])
})

// Regression: a session loaded with an activeRunId appended only run.error;
// the text message the crashed run had open never got text.end, so HAI never sent its is_final.
test('a run active when the process is killed is closed cleanly after restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parlance-crash-'))
  t.after(() => rmSync(dataDir, { recursive: true, force: true }))
  const server = await spawnServe(t, ['--store', 'sqlite', '--data', dataDir])
  const url = server.url
  const a = await HaiClient.connect({ url })
  t.after(() => a.close())
  a.say('slow')
  for (let i = 0; i < 3; i++) await a.next('assistant_message_chunk')
  await server.kill() // no shutdown: the store still records the run as active
  await a.closed

  const second = await startServer({ store: 'sqlite', dataDir })
  t.after(() => second.close())
  const b = await second.hai({ sessionId: a.sessionId, resumeAfter: a.lastSeq })
  const rest = await b.untilCompleted()
  assert.ok(rest.some((m) => m.type === 'error' && m.error_code === 'interrupted'))
  verifyHaiStream([...a.received, ...rest])
  // Every event the client saw before the kill is in the store; everything stored after it came exactly once, in order.
  await second.server.sessions.store.flush()
  const stored = (await second.server.sessions.store.read(a.sessionId, 0, 100_000)).map((e) => e.seq)
  assert.deepEqual(
    stored,
    Array.from({ length: stored.length }, (_, i) => i + 1),
    'the log has no gap',
  )
  const seenBefore = a.received.flatMap((m) => (typeof m.seq === 'number' ? [m.seq] : []))
  for (const seq of seenBefore) assert.ok(stored.includes(seq), `seq ${seq} the client saw is stored`)
  const after = rest.flatMap((m) => (typeof m.seq === 'number' ? [m.seq] : []))
  for (let i = 1; i < after.length; i++) assert.ok(after[i]! > after[i - 1]!, 'in order, no duplicate')
  assert.ok(after[0]! > a.lastSeq, 'nothing seen before is replayed')
  assert.equal(after.at(-1), stored.at(-1), 'replayed up to the last stored event')
})
