// The AG-UI bridge (src/agents/agui) over HAI: a Parlance serving the demo agent over AG-UI, a second one
// serving it through `aguiBridgeAgent`, and a HAI client driving the second through every demo trigger.
import assert from 'node:assert/strict'
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net'
import { after, before, test } from 'node:test'
import { textOf } from '../src/client/index.js'
import { startBridgePair, unreachable, type BridgePair } from './agui-bridge-support.js'
import { verifyHaiStream } from './hai-lifecycle.js'
import { bridgeSuite, chunks, logWith, of } from './bridge-suite.js'
import { startServer } from './harness.js'
import { watch } from './huma-support.js'
import { aguiBridgeAgent } from '../src/agents/agui/index.js'

let pair: BridgePair
before(async () => {
  pair = await startBridgePair()
})
after(() => pair.close())

bridgeSuite({
  label: 'AG-UI',
  bridge: () => pair.bridge,
  remoteLog: (sessionId, pred) => logWith(async () => [await pair.remote.server.sessions.store.read(pair.remoteSession(sessionId), 0, 10_000)], pred),
})

test('state: the remote snapshot and delta become the session state', async () => {
  const c = await pair.bridge.hai()
  const w = await watch(pair.bridge, c.sessionId)
  c.say('state')
  const msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'State updated: counter is 1.')
  await w.runEnd()
  const changes = w.events
    .filter((e) => e.type === 'state.snapshot' || e.type === 'state.delta')
    .map((e) => (e.type === 'state.snapshot' ? e.snapshot : e.type === 'state.delta' ? e.patch : null))
  assert.deepEqual(changes, [{ counter: 0 }, [{ op: 'replace', path: '/counter', value: 1 }]])
  assert.deepEqual(w.session.model.state, { counter: 1 })
})

test('fail: the remote tool error and run error arrive as tool_call_error and an execution_error', async () => {
  const c = await pair.bridge.hai()
  c.say('fail')
  const msgs = await c.untilCompleted()
  verifyHaiStream(msgs)
  const [start] = of(msgs, 'tool_call_start')
  assert.equal(start?.tool_name, 'flaky_tool')
  assert.deepEqual(
    of(msgs, 'tool_call_error').map((m) => [m.tool_call_id, m.error]),
    [[start.tool_call_id, 'flaky_tool is out of order']],
  )
  const [err] = of(msgs, 'error')
  assert.equal(err?.error_code, 'execution_error')
  assert.equal(err?.message, 'the remote AG-UI agent failed: the run failed: tool flaky_tool failed: flaky_tool is out of order')
})

test('count N: exactly N chunks, in order', async () => {
  const c = await pair.bridge.hai()
  c.say('count 25')
  const msgs = await c.untilCompleted()
  assert.deepEqual(
    chunks(msgs).map((m) => m.content),
    Array.from({ length: 25 }, (_, i) => `${i + 1} `),
  )
})

test('burst: the three whole messages arrive as three messages', async () => {
  const c = await pair.bridge.hai()
  c.say('burst')
  const msgs = await c.untilCompleted()
  const ids = [...new Set(chunks(msgs).map((m) => m.message_id))]
  assert.deepEqual(
    ids.map((id) => textOf(msgs, id)),
    ['Here is the first message.', 'And a second one.', 'That was the burst.'],
  )
})

test('cancel: stops the bridge run and the remote run', async () => {
  const c = await pair.bridge.hai()
  const remote = await watch(pair.remote, pair.remoteSession(c.sessionId))
  c.say('slow')
  const first = await c.next('assistant_message_chunk')
  assert.equal(first.content, '1 ')
  c.cancel()
  const msgs = await c.untilCompleted()
  assert.equal(of(msgs, 'error')[0]?.error_code, 'cancelled')
  const end = await remote.runEnd()
  assert.deepEqual(end.type === 'run.error' ? end.code : end.type, 'cancelled', 'the remote run was cancelled too')
  // The conversation goes on.
  c.say('hello after cancel')
  assert.equal(textOf(await c.untilCompleted()), 'Echo: hello after cancel')
})

test('an unreachable remote agent: the run fails with unavailable, naming the URL', async (t) => {
  const dead = await unreachable()
  t.after(() => dead.close())
  const url = dead.url
  const s = await startServer({ agents: [aguiBridgeAgent({ url })], exposeErrors: true })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello?')
  const msgs = await c.untilCompleted()
  const [err] = of(msgs, 'error')
  assert.equal(err?.error_code, 'unavailable')
  assert.equal(err.message, `the remote AG-UI agent at ${url} could not be reached (ECONNREFUSED)`)
})

test('a remote that accepts connections and never answers: the run fails after responseTimeoutMs', async (t) => {
  const sockets = new Set<Socket>()
  const silent = createNetServer((socket) => void sockets.add(socket))
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.after(() => {
    for (const socket of sockets) socket.destroy()
    silent.close()
  })
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/agui`
  const s = await startServer({ agents: [aguiBridgeAgent({ url, responseTimeoutMs: 200 })], exposeErrors: true })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello?')
  const [err] = of(await c.untilCompleted(), 'error')
  assert.equal(err?.error_code, 'unavailable')
  assert.equal(err?.message, `the remote AG-UI agent at ${url} could not be reached (no response within 200 ms)`)
})

test('a remote that answers an HTTP error: the run fails with its status and message', async (t) => {
  const s = await startServer({ agents: [aguiBridgeAgent({ url: `${pair.remote.url}/agui/nobody` })], exposeErrors: true })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello?')
  const [err] = of(await c.untilCompleted(), 'error')
  assert.equal(err?.error_code, 'execution_error')
  assert.match(err.message, /answered HTTP 404: no agent named "nobody"/)
})

test('an invalid URL is refused when the agent is made', () => {
  assert.throws(() => aguiBridgeAgent({ url: 'not a url' }), /not a valid URL/)
  assert.throws(() => aguiBridgeAgent({ url: 'ftp://example.com/agui' }), /must be http: or https:/)
})
