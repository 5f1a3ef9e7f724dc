// Issue 37, item 5: MyAgent's system events are bidirectional (seed "System Events"): a client's
// system.connected and system.heartbeat are accepted without error, its system.error is logged and recorded in
// the session (the inspector lists it). Every error event names session_id and step_id as the seed's error
// structures do: the request's step when it has one, a fresh one otherwise.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MyAgentClient, type MyAgentServerEvent } from '../src/client/index.js'
import { startServer, type TestServer } from './harness.js'

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const isError = (e: MyAgentServerEvent) => e.event.startsWith('error.') || e.event === 'system.error'

async function client(t: { after(fn: () => void): void }, s: TestServer): Promise<MyAgentClient> {
  const c = await MyAgentClient.connect({ url: s.url })
  t.after(() => c.close())
  return c
}

/** The seed's error-event structure: session_id and step_id strings, string content, metadata.error_code. */
function assertErrorShape(e: MyAgentServerEvent): void {
  assert.equal(typeof e.session_id, 'string', `session_id on ${JSON.stringify(e)}`)
  assert.equal(typeof e.step_id, 'string', `step_id on ${JSON.stringify(e)}`)
  assert.ok(e.step_id!.length > 0)
  assert.match(e.timestamp, ISO)
  assert.equal(typeof e.content, 'string')
  assert.equal(typeof e.metadata.error_code, 'string')
}

test("a client's system.connected and system.heartbeat are accepted: no error, the conversation goes on", async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await client(t, s)
  const sessionId = await c.createSession()
  // As the seed shapes them (the server's own structures, sent by the client).
  c.send({
    event: 'system.connected',
    connection_id: c.connectionId,
    timestamp: new Date().toISOString(),
    content: { server_version: 'client/1.0', server_time: new Date().toISOString() },
    metadata: { server_uptime_seconds: 0, active_sessions: 1 },
  })
  c.send({
    event: 'system.heartbeat',
    session_id: sessionId,
    timestamp: new Date().toISOString(),
    content: { server_time: new Date().toISOString() },
    metadata: { seq: 0, server_uptime_seconds: 1 },
  })
  c.send({ event: 'system.connected', content: null })
  c.message('hello after system events')
  await c.next('agent.final_answer')
  assert.deepEqual(c.received.filter(isError), [], 'no error answered any of them')
})

test("a client's system.error is logged and recorded in its session as client.error; the inspector lists it", async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await client(t, s)
  const sessionId = await c.createSession()
  c.send({
    event: 'system.error',
    session_id: sessionId,
    timestamp: new Date().toISOString(),
    content: 'render failed: canvas lost',
    metadata: { error_code: 'ERR_CLIENT_RENDER', severity: 'warning' },
  })
  // Bound to the session, the client sees the record come back as the session's event.
  const echoed = await c.next((e) => e.event === 'agent.custom' && (e.content as { name?: string }).name === 'client.error')
  assert.deepEqual((echoed.content as { value: unknown }).value, {
    message: 'render failed: canvas lost',
    error_code: 'ERR_CLIENT_RENDER',
    severity: 'warning',
    connection_id: c.connectionId,
  })
  const page = (await (await fetch(`${s.url}/inspector/api/sessions/${sessionId}/events?after=0`)).json()) as {
    events: Array<{ type: string; name?: string; value?: { message?: string } }>
  }
  const recorded = page.events.filter((e) => e.type === 'custom' && e.name === 'client.error')
  assert.equal(recorded.length, 1, JSON.stringify(page))
  assert.equal(recorded[0]!.value?.message, 'render failed: canvas lost')
  // Without session_id it goes to the bound session; the severity defaults to error.
  c.send({ event: 'system.error', content: 'second problem' })
  const second = await c.next(
    (e) => e.event === 'agent.custom' && (e.content as { value?: { message?: string } }).value?.message === 'second problem',
  )
  assert.equal((second.content as { value: { severity: string } }).value.severity, 'error')
  // A malformed one is a validation error naming the field.
  c.send({ event: 'system.error', session_id: sessionId, content: 'x', metadata: { severity: 'fatal' } })
  const bad = await c.next('error.validation')
  assertErrorShape(bad)
  assert.equal(bad.metadata.field, 'metadata.severity')
  assert.equal(c.received.filter((e) => e.event === 'error.validation').length, 1)
})

test('every error event carries session_id and step_id: the frame’s, else the connection’s session and a fresh step', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await client(t, s)
  // Before any session: an unknown event naming a session and a step.
  c.send({ event: 'user.bogus', session_id: 'sess_named', step_id: 'step_named' })
  const named = await c.next('error.validation')
  assertErrorShape(named)
  assert.deepEqual([named.session_id, named.step_id, named.metadata.error_code], ['sess_named', 'step_named', 'ERR_VALIDATION_400'])
  // Before any session, naming none: session_id is there ('' — no session yet) and the step is fresh.
  c.send('{"event": 42}')
  const bare = await c.next((e) => e.event === 'error.validation' && e !== named)
  assertErrorShape(bare)
  assert.equal(bare.session_id, '')
  assert.match(bare.step_id!, /^step_/)
  const sessionId = await c.createSession()
  // A response to a step nobody waits for: the request's own step.
  c.respond('appr_nope', true)
  const unknownStep = await c.next((e) => e.event === 'error.validation' && e.step_id === 'appr_nope')
  assertErrorShape(unknownStep)
  assert.equal(unknownStep.session_id, sessionId)
  // A frame naming no step, bound: the connection's session and a fresh step, different each time.
  c.send({ event: 'user.message', session_id: sessionId, content: '' })
  c.send({ event: 'user.message', session_id: sessionId, content: '' })
  await c.next(() => c.received.filter((x) => x.event === 'error.validation').length >= 5)
  const [a, b] = c.received.filter((e) => e.event === 'error.validation').slice(-2)
  for (const e of [a!, b!]) {
    assertErrorShape(e)
    assert.equal(e.session_id, sessionId)
  }
  assert.notEqual(a!.step_id, b!.step_id)
  // A run's failure: error.execution with the session and the run's step.
  c.message('fail please')
  const failed = await c.next('error.execution')
  assertErrorShape(failed)
  assert.equal(failed.session_id, sessionId)
})

test('error.recovery_*: a failed state recovery and a successful one each name a session and share one step', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await client(t, s)
  c.send({ event: 'user.reconnect_with_state', content: { signed_state: 'not-a-signed-state', last_seq: 0 } })
  const failed = await c.next('error.recovery_failed')
  const validation = c.received.find((e) => e.event === 'error.validation')!
  for (const e of [validation, failed]) assertErrorShape(e)
  assert.equal(failed.step_id, validation.step_id, 'the validation error and the failed recovery are one step')
  assert.deepEqual(Object.keys(failed.metadata).sort(), ['attempts', 'error_code', 'original_error', 'recovery_error'])
  const sessionId = await c.createSession()
  c.message('count 2')
  await c.next('agent.final_answer')
  const signed = await c.requestState()
  const d = await client(t, s)
  d.send({ event: 'user.reconnect_with_state', content: { signed_state: signed, last_seq: 0 } })
  const success = await d.next('error.recovery_success')
  const started = d.received.find((e) => e.event === 'error.recovery_started')!
  for (const e of [started, success]) {
    assert.equal(e.session_id, sessionId)
    assert.equal(typeof e.step_id, 'string')
  }
  assert.equal(success.step_id, started.step_id)
})
