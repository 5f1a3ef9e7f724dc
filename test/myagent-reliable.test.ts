import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MyAgentClient, type MyAgentServerEvent } from '../src/client/index.js'
import { startServer, type TestServer } from './harness.js'

const client = (s: TestServer) => MyAgentClient.connect({ url: s.url })
const answer = (e: MyAgentServerEvent) => e.event === 'agent.final_answer'
const seqsOf = (c: MyAgentClient) => c.received.flatMap((e) => (typeof e.metadata.seq === 'number' ? [e.metadata.seq] : []))
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

test('after the reconnect window the buffer is gone: replay comes from the log, still exactly after last_seq', async (t) => {
  const s = await startServer({ limits: { reconnectWindowMs: 20 } })
  t.after(() => s.close())
  const a = await client(s)
  const sessionId = await a.createSession()
  a.message('count 30')
  const end = (await a.next(answer)).metadata.seq!
  a.close()
  await a.closed
  // The reconnect window (20 ms) passes: its expiry is the behaviour under test, and more time only passes on a slow machine.
  // eslint-disable-next-line no-restricted-syntax -- the window's expiry is the passage of time itself
  await new Promise((r) => setTimeout(r, 60))
  const b = await client(s)
  t.after(() => b.close())
  b.reconnect(sessionId, 10)
  const resumed = await b.next('system.connected')
  assert.equal(resumed.metadata.replay, 'log')
  await b.next(answer)
  assert.deepEqual(seqsOf(b), range(11, end))
})

test('a reconnect that the buffer does not cover (acked past it) falls back to the log; last_seq ahead of the session is refused', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const a = await client(s)
  const sessionId = await a.createSession()
  a.message('count 20')
  const end = (await a.next(answer)).metadata.seq!
  a.ack(end)
  a.send({ event: 'user.ack', session_id: sessionId, content: { last_seq: end + 5 } })
  const ahead = await a.next('error.validation')
  assert.equal(ahead.metadata.field, 'content.last_seq')
  a.close()
  await a.closed
  const b = await client(s)
  t.after(() => b.close())
  b.reconnect(sessionId, 2) // acknowledged long ago: not in the buffer any more
  assert.equal((await b.next('system.connected')).metadata.replay, 'log')
  await b.next(answer)
  // Exactly what the first connection saw after seq 2 (events with no MyAgent counterpart, like run.started, are not sent).
  assert.deepEqual(
    seqsOf(b),
    seqsOf(a).filter((q) => q > 2),
  )
  assert.equal(seqsOf(b).at(-1), end)
  b.message('again')
  const next = await b.next(answer)
  assert.equal(next.connection_id, b.connectionId)
})

test('user.response data: the agent gets approved/feedback, the log keeps the data (agent.custom myagent.user_response)', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await client(s)
  t.after(() => c.close())
  const sessionId = await c.createSession()
  c.message('delete it')
  const confirm = await c.next('agent.user_confirm')
  c.send({
    event: 'user.response',
    session_id: sessionId,
    step_id: confirm.step_id,
    content: { approved: true, data: { path: 'notes/other.txt' } },
    metadata: { user_action: 'modify' },
  })
  const record = await c.next('agent.custom')
  assert.deepEqual(record.content, {
    name: 'myagent.user_response',
    value: { step_id: confirm.step_id, approved: true, data: { path: 'notes/other.txt' }, metadata: { user_action: 'modify' } },
  })
  assert.match(((await c.next(answer)).content as { answer: string }).answer, /Done: deleted/)
  // A refused answer records nothing.
  c.send({ event: 'user.response', session_id: sessionId, step_id: 'appr_nope', content: { approved: true, data: { x: 1 } } })
  assert.equal((await c.next('error.validation')).metadata.error_code, 'ERR_VALIDATION_400')
  await s.server.sessions.store.flush()
  const records = (await s.server.sessions.store.read(sessionId, 0, 10_000)).filter((e) => e.type === 'custom')
  assert.equal(records.length, 1, 'only the accepted answer left a record')
})

test('an expired signed state is refused with error.validation and nothing is restored', async (t) => {
  const one = await startServer({ secret: 'shared', limits: { stateExportTtlMs: 30 } })
  t.after(() => one.close())
  const a = await client(one)
  t.after(() => a.close())
  const sessionId = await a.createSession()
  a.message('state')
  await a.next(answer)
  const signed = await a.requestState()
  // The export's TTL (30 ms) passes: its expiry is the behaviour under test.
  // eslint-disable-next-line no-restricted-syntax -- a TTL's expiry is the passage of time itself
  await new Promise((r) => setTimeout(r, 60))
  const two = await startServer({ secret: 'shared' })
  t.after(() => two.close())
  const b = await client(two)
  t.after(() => b.close())
  b.reconnectWithState(signed, a.lastSeq)
  const refused = await b.next('error.validation')
  assert.equal(refused.metadata.field, 'content.signed_state')
  assert.equal(refused.metadata.constraint, 'expired')
  await b.next('error.recovery_failed')
  await assert.rejects(two.server.sessions.open(sessionId, 'anonymous', { create: false }), /no session/)
})

test('signed state restores on a second SQLite server with a fresh data dir; the session then runs there', async (t) => {
  const one = await startServer({ store: 'sqlite', secret: 'shared' })
  t.after(() => one.close())
  t.after(() => one.removeData())
  const a = await client(one)
  t.after(() => a.close())
  const sessionId = await a.createSession()
  a.message('state')
  await a.next(answer)
  const signed = await a.requestState()
  const two = await startServer({ store: 'sqlite', secret: 'shared' })
  t.after(() => two.close())
  t.after(() => two.removeData())
  const b = await client(two)
  t.after(() => b.close())
  b.reconnectWithState(signed, a.lastSeq)
  assert.equal((await b.next('error.recovery_success')).metadata.restored_from, 'export')
  b.message('hello there', sessionId)
  const final = await b.next(answer)
  assert.equal(final.session_id, sessionId)
  const session = await two.server.sessions.open(sessionId, 'anonymous')
  assert.deepEqual(session.model.state, { counter: 1 })
  assert.deepEqual(
    session.model.messages.map((m) => m.content),
    ['state', 'State updated: counter is 1.', 'hello there', 'Echo: hello there'],
  )
})
