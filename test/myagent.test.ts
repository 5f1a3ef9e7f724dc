import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MyAgentClient, type MyAgentServerEvent } from '../src/client/index.js'
import { startServer, type TestServer } from './harness.js'
import { waitFor } from './support/wait.js'

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

async function client(s: TestServer): Promise<MyAgentClient> {
  return MyAgentClient.connect({ url: s.url })
}
/** Events up to and including the first one matching `pred`. */
async function until(c: MyAgentClient, pred: (e: MyAgentServerEvent) => boolean): Promise<MyAgentServerEvent[]> {
  const from = c.received.length
  await c.next(pred)
  return c.received.slice(from)
}
const answer = (e: MyAgentServerEvent) => e.event === 'agent.final_answer'

test('connect, create a session, send a message: base fields on every event, partial answers then the final one', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await client(s)
  t.after(() => c.close())
  const connected = c.received[0]!
  assert.equal(connected.event, 'system.connected')
  assert.match(connected.connection_id, /^conn_/)
  assert.ok((connected.content as { server_version: string }).server_version)
  const sessionId = await c.createSession({ project_name: 'Demo', session_name: 'first' })
  assert.match(sessionId, /^sess_/)
  c.message('hello myagent')
  const events = await until(c, answer)
  for (const e of events) {
    assert.equal(e.session_id, sessionId)
    assert.equal(e.connection_id, c.connectionId)
    assert.match(e.timestamp, ISO)
    assert.ok('content' in e && typeof e.metadata === 'object')
  }
  assert.deepEqual(
    events.map((e) => e.event),
    ['agent.thinking', 'agent.partial_answer', 'agent.partial_answer', 'agent.partial_answer', 'agent.final_answer'],
  )
  const partials = events.filter((e) => e.event === 'agent.partial_answer')
  assert.deepEqual(
    partials.map((e) => e.metadata.chunk_index),
    [0, 1, 2],
  )
  assert.equal(partials.map((e) => e.content).join(''), 'Echo: hello myagent')
  assert.deepEqual(events.at(-1)!.content, { answer: 'Echo: hello myagent', answer_type: 'text' })
  // seq: in metadata, increasing, on session events only.
  const seqs = events.map((e) => e.metadata.seq as number)
  for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! > seqs[i - 1]!)
  assert.equal(connected.metadata.seq, undefined)
})

test('plan flow: plan.start, plan.completed, solver.start, plan.step_completed and solver.progress, solver.completed, then agent.final_answer', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await client(s)
  t.after(() => c.close())
  await c.createSession()
  c.message('make a plan')
  const events = await until(c, answer)
  const names = events.map((e) => e.event)
  assert.deepEqual(names.slice(0, 3), ['plan.start', 'plan.completed', 'solver.start'])
  assert.deepEqual((events[0]!.content as { question: string }).question, 'make a plan')
  assert.equal((events[1]!.content as { tasks: unknown[] }).tasks.length, 3)
  assert.deepEqual(
    events.filter((e) => e.event === 'solver.progress').map((e) => e.metadata.progress_percent),
    [33, 66, 100],
  )
  assert.equal(names.filter((n) => n === 'plan.step_completed').length, 3)
  assert.equal(names.at(-2), 'solver.completed', 'the response chain ends solver.completed → agent.final_answer')
  assert.equal((events.at(-2)!.metadata as { successful_tasks: number }).successful_tasks, 3)
})

test('weather: agent.tool_call and agent.tool_result; fail: solver.step_failed then error.execution', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await client(s)
  t.after(() => c.close())
  await c.createSession()
  c.message('weather in Oslo')
  const events = await until(c, answer)
  const call = events.find((e) => e.event === 'agent.tool_call')!
  assert.deepEqual(call.content, { tool_name: 'get_weather', tool_description: '', arguments: { city: 'Oslo' } })
  const result = events.find((e) => e.event === 'agent.tool_result')!
  assert.equal(result.metadata.call_id, call.metadata.call_id)
  assert.deepEqual(result.content, { result: { city: 'Oslo', temperature_c: 18, conditions: 'cloudy' }, status: 'success' })
  c.message('fail please')
  const failed = await until(c, (e) => e.event === 'error.execution')
  assert.ok(failed.some((e) => e.event === 'solver.step_failed'))
  assert.equal(failed.at(-1)!.metadata.error_code, 'ERR_EXECUTION_600')
  assert.match(String(failed.at(-1)!.content), /flaky_tool is out of order/)
})

for (const approved of [true, false]) {
  test(`agent.user_confirm answered by user.response (${approved ? 'approved' : 'rejected'})`, async (t) => {
    const s = await startServer()
    t.after(() => s.close())
    const c = await client(s)
    t.after(() => c.close())
    await c.createSession()
    c.message('delete it')
    const confirm = await c.next('agent.user_confirm')
    assert.equal((confirm.content as { confirmation_type: string }).confirmation_type, 'approve')
    assert.equal(confirm.metadata.timeout_seconds, 60)
    assert.equal(confirm.metadata.critical, true)
    c.respond(confirm.step_id!, approved, approved ? undefined : 'not today')
    const final = await c.next(answer)
    assert.match((final.content as { answer: string }).answer, approved ? /Done: deleted/ : /Not approved.*not today/)
  })
}

test('confirmation timeout → error.timeout ERR_TIMEOUT_500; user.cancel → the turn ends with agent.final_answer, no error; unknown step → error.validation', async (t) => {
  const s = await startServer({ limits: { approvalTimeoutMs: 150 } })
  t.after(() => s.close())
  const c = await client(s)
  t.after(() => c.close())
  await c.createSession()
  c.message('delete')
  const confirm = await c.next('agent.user_confirm')
  const timeout = await c.next('error.timeout')
  assert.equal(timeout.step_id, confirm.step_id)
  assert.equal(timeout.metadata.error_code, 'ERR_TIMEOUT_500')
  await c.next(answer)
  c.respond('appr_nope', true)
  const invalid = await c.next('error.validation')
  assert.equal(invalid.metadata.error_code, 'ERR_VALIDATION_400')
  c.message('slow')
  await c.next('agent.partial_answer')
  const from = c.received.length
  c.cancel('changed my mind')
  const final = await c.next(answer)
  assert.match((final.content as { answer: string }).answer, /^\d/, 'the text streamed so far')
  c.message('count 1')
  await c.next(answer)
  assert.ok(!c.received.slice(from).some((e) => e.event.startsWith('error.')), 'no error for a cancel the user asked for')
})

test('reconnect with last_seq mid-"slow" (within the window): the unacked frames from memory, then live — contiguous seqs, whole final answer', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const a = await client(s)
  const sessionId = await a.createSession()
  a.message('slow')
  for (let i = 0; i < 3; i++) await a.next('agent.partial_answer')
  a.ack() // prunes the server's buffer up to here
  for (let i = 0; i < 3; i++) await a.next('agent.partial_answer')
  const seqsOf = (c: MyAgentClient) => c.received.flatMap((e) => (typeof e.metadata.seq === 'number' ? [e.metadata.seq] : []))
  const seen = seqsOf(a)
  const lastSeq = a.lastSeq
  a.close()
  await a.closed
  // The agent keeps streaming meanwhile: events past what the client saw are committed before it comes back.
  const session = await s.server.sessions.open(sessionId, 'anonymous', { create: false })
  await waitFor(() => session.lastSeq >= lastSeq + 3, { what: 'the run to stream on while the client is away' })
  const b = await client(s)
  t.after(() => b.close())
  b.reconnect(sessionId, lastSeq - 2) // the client lost its last two events: the server's buffer still has them
  const resumed = await b.next('system.connected')
  assert.equal(resumed.metadata.resumed, true)
  assert.equal(resumed.metadata.replay, 'buffer')
  const final = await b.next(answer)
  const after = seqsOf(b)
  assert.deepEqual(
    after,
    Array.from({ length: final.metadata.seq! - lastSeq + 2 }, (_, i) => lastSeq - 1 + i),
    'exactly last_seq+1 … the end, each once, in order',
  )
  assert.deepEqual(seen.slice(-2), after.slice(0, 2))
  for (const e of b.received.slice(1)) assert.equal(e.connection_id, b.connectionId)
  const text = Array.from({ length: 50 }, (_, i) => `${i + 1} `).join('')
  assert.equal((final.content as { answer: string }).answer, text, 'the final answer holds the text streamed across the drop')
  const partials = [...a.received, ...b.received].filter((e) => e.event === 'agent.partial_answer' && e.metadata.seq! <= lastSeq - 2)
  const rest = b.received.filter((e) => e.event === 'agent.partial_answer')
  assert.equal(partials.length + rest.length, 50)
  assert.deepEqual(
    rest.map((e) => e.metadata.chunk_index),
    Array.from({ length: rest.length }, (_, i) => partials.length + i),
    'chunk_index continues',
  )
})

test('reconnect after a server restart on SQLite resumes from the log', async (t) => {
  const s = await startServer({ store: 'sqlite' })
  t.after(() => s.removeData())
  const a = await client(s)
  const sessionId = await a.createSession()
  a.message('count 20')
  await a.next(answer)
  const lastSeq = a.lastSeq
  a.close()
  await s.close()
  const s2 = await startServer({ store: 'sqlite', dataDir: s.dataDir })
  t.after(() => s2.close())
  const b = await client(s2)
  t.after(() => b.close())
  b.reconnect(sessionId, 3)
  await b.next(answer)
  const seqs = b.received.flatMap((e) => (typeof e.metadata.seq === 'number' ? [e.metadata.seq] : []))
  assert.equal(seqs[0], 4)
  assert.equal(seqs.at(-1), lastSeq)
  b.message('hello again')
  assert.match(((await b.next(answer)).content as { answer: string }).answer, /Echo: hello again/)
})

test('signed state: export, restore on another server sharing the secret; tampered or foreign → error.validation', async (t) => {
  const one = await startServer({ secret: 'shared-secret' })
  t.after(() => one.close())
  const a = await client(one)
  t.after(() => a.close())
  const sessionId = await a.createSession()
  a.message('state')
  await a.next(answer)
  const signed = await a.requestState()
  const [body, sig] = signed.split('.')
  const decoded = JSON.parse(Buffer.from(body!, 'base64url').toString()) as {
    session_id: string
    state: unknown
    expires_at: string
    history_digest: string
  }
  assert.equal(decoded.session_id, sessionId)
  assert.deepEqual(decoded.state, { counter: 1 })
  assert.ok(Date.parse(decoded.expires_at) - Date.now() > 23 * 3600_000)

  const two = await startServer({ secret: 'shared-secret' })
  t.after(() => two.close())
  const b = await client(two)
  t.after(() => b.close())
  // Tampered: the state edited, signature kept.
  const forged = Buffer.from(JSON.stringify({ ...decoded, state: { counter: 999 } })).toString('base64url')
  b.reconnectWithState(`${forged}.${sig}`, 5)
  const rejected = await b.next('error.validation')
  assert.match(String(rejected.content), /bad signature/)
  await b.next('error.recovery_failed')
  // Genuine: restored from the export on a server that never saw the session.
  b.reconnectWithState(signed, a.lastSeq)
  await b.next('error.recovery_started')
  const ok = await b.next('error.recovery_success')
  assert.equal(ok.metadata.restored_from, 'export')
  const session = await two.server.sessions.open(sessionId, 'anonymous')
  assert.deepEqual(session.model.state, { counter: 1 })
  assert.deepEqual(
    session.model.messages.map((m) => m.content),
    ['state', 'State updated: counter is 1.'],
  )

  const three = await startServer({ secret: 'another-secret' })
  t.after(() => three.close())
  const c = await client(three)
  t.after(() => c.close())
  c.reconnectWithState(signed, 1)
  assert.match(String((await c.next('error.validation')).content), /bad signature/)
  await assert.rejects(three.server.sessions.open(sessionId, 'anonymous', { create: false }), /no session/)
})

test('system.heartbeat arrives on the interval with the session position', async (t) => {
  const s = await startServer({ limits: { heartbeatMs: 50 } })
  t.after(() => s.close())
  const c = await client(s)
  t.after(() => c.close())
  await c.createSession()
  const hb = await c.next('system.heartbeat')
  assert.equal(typeof hb.metadata.seq, 'number')
  assert.match(hb.content.server_time, ISO)
})

test('validation table: each bad event gets error.validation naming field and constraint; the socket stays open', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await client(s)
  t.after(() => c.close())
  const sessionId = await c.createSession()
  const cases: Array<[unknown, string, RegExp]> = [
    ['not json', '', /JSON/],
    [{ content: 'x' }, 'event', /required/],
    [{ event: 'user.dance' }, 'event', /one of/],
    [{ event: 'user.message', session_id: sessionId, content: 42 }, 'content', /content type: string/],
    [{ event: 'user.message', content: 'hi' }, 'session_id', /required/],
    [{ event: 'user.response', session_id: sessionId, step_id: 'x', content: 'yes' }, 'content', /content type: object/],
    [{ event: 'user.response', session_id: sessionId, step_id: 'x', content: { feedback: 'no flag' } }, 'content.approved', /approved/],
    [{ event: 'user.response', session_id: sessionId, content: { approved: true } }, 'step_id', /required/],
    [JSON.parse('{"event":"user.message","session_id":"s","content":"x","metadata":{"__proto__":{"a":1}}}'), 'metadata.__proto__', /forbidden_key/],
    [{ event: 'user.ack', session_id: sessionId, content: { last_seq: -1 } }, 'content.last_seq', /./],
  ]
  for (const [frame, field, constraint] of cases) {
    c.send(typeof frame === 'string' ? frame : JSON.stringify(frame))
    const err = await c.next('error.validation')
    assert.equal(err.metadata.error_code, 'ERR_VALIDATION_400')
    assert.equal(err.metadata.field ?? '', field, JSON.stringify(frame))
    assert.match(String(err.metadata.constraint), constraint, JSON.stringify(frame))
  }
  c.message('still here')
  assert.match(((await c.next(answer)).content as { answer: string }).answer, /Echo: still here/)
})
