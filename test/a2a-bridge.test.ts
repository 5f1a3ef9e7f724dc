// The A2A bridge (src/agents/a2a, `--agent a2a:URL`): a Parlance serving the demo agent over A2A, a second one
// serving it through `a2aBridgeAgent`, and HAI (and AG-UI) clients driving the second, as the AG-UI bridge's
// tests do (a client tool travels as an input-required task answered by its next message).
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { AguiClient, textOf } from '../src/client/index.js'
import { a2aBridgeAgent } from '../src/agents/a2a/index.js'
import { unreachable } from './agui-bridge-support.js'
import { agentFor, last, run, text } from './agui-support.js'
import { bridgeSuite, logWith, of } from './bridge-suite.js'
import { startServer, type TestServer } from './harness.js'

let remote: TestServer
let bridge: TestServer
before(async () => {
  remote = await startServer({ exposeErrors: true })
  // exposeErrors: these tests read the bridge's failure messages, which a server without it keeps for its log.
  bridge = await startServer({ agents: [a2aBridgeAgent({ url: `${remote.url}/a2a/demo/.well-known/agent-card.json` })], exposeErrors: true })
})
after(async () => {
  await bridge.close()
  await remote.close()
})

bridgeSuite({
  label: 'A2A',
  bridge: () => bridge,
  // The remote sessions are the bridge's A2A contexts: the one holding the event.
  remoteLog: (_sessionId, pred) =>
    logWith(() => Promise.all([...remote.server.sessions.loadedSessions()].map((s) => remote.server.sessions.store.read(s.id, 0, 10_000))), pred),
})

test('state and failure: the remote state becomes the session state; a failed remote task fails the run', async () => {
  const c = await bridge.hai()
  c.say('state please')
  await c.untilCompleted()
  const s = await bridge.server.sessions.open(c.sessionId, 'anonymous')
  assert.deepEqual(s.model.state, { counter: 1 })
  c.say('fail now')
  const msgs = await c.untilCompleted()
  const err = of(msgs, 'error')[0]
  assert.equal(err?.error_code, 'execution_error')
  assert.match(err.message, /the remote A2A agent failed: .*flaky_tool/)
})

test('cancel: stops the bridge run and the remote task; AG-UI watches the same bridged session', async () => {
  const c = await bridge.hai()
  c.say('slow')
  const first = await c.next('assistant_message_chunk')
  assert.equal(first.content, '1 ')
  const watcher = (async () => {
    let seen = ''
    for await (const e of new AguiClient({ url: bridge.url }).resume(c.sessionId, 0))
      if (e.event.type === 'TEXT_MESSAGE_CONTENT') seen += String(e.event.delta)
    return seen
  })()
  c.cancel()
  const msgs = await c.untilCompleted()
  assert.equal(of(msgs, 'error')[0]?.error_code, 'cancelled')
  assert.match(await watcher, /^1 /, 'the AG-UI client saw the bridged text')
  // The remote task was cancelled too: its run ended cancelled.
  const log = await logWith(
    () => Promise.all([...remote.server.sessions.loadedSessions()].map((s) => remote.server.sessions.store.read(s.id, 0, 10_000))),
    (e) => e.type === 'run.error' && e.code === 'cancelled',
  )
  assert.ok(log.some((e) => e.type === 'message.user' && e.content === 'slow'))
  c.say('hello after cancel')
  assert.equal(textOf(await c.untilCompleted()), 'Echo: hello after cancel')
})

test('AG-UI: the official HttpAgent drives the bridge — weather with its tool call, then an approval across runs (interrupt and resume)', async () => {
  const agent = agentFor(bridge.url)
  const weather = await run(agent, 'weather in Paris')
  const call = weather.find((e) => e.type === 'TOOL_CALL_START')
  assert.equal(call?.toolCallName, 'get_weather')
  assert.ok(weather.some((e) => e.type === 'TOOL_CALL_RESULT' && String(e.content).includes('cloudy')))
  assert.equal(text(weather), 'The weather in Paris is cloudy at 18 °C.')
  const first = await run(agent, 'delete my notes')
  const outcome = last(first).outcome as { type: string; interrupts: Array<{ id: string }> }
  assert.equal(outcome.type, 'interrupt')
  const second = await run(agent, null, { resume: [{ interruptId: outcome.interrupts[0]!.id, status: 'resolved', payload: { approved: true } }] })
  assert.match(text(second), /Done: deleted notes\/demo\.txt/)
  assert.equal(last(second).type, 'RUN_FINISHED')
})

test('an unreachable remote agent: the run fails with unavailable, naming the URL', async (t) => {
  const dead = await unreachable()
  t.after(() => dead.close())
  const s = await startServer({ agents: [a2aBridgeAgent({ url: dead.url })], exposeErrors: true })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello')
  const msgs = await c.untilCompleted()
  const err = of(msgs, 'error')[0]
  assert.equal(err?.error_code, 'unavailable')
  assert.match(err.message, /cannot reach the A2A agent at http:\/\/127\.0\.0\.2/)
  assert.throws(() => a2aBridgeAgent({ url: 'not a url' }), /not a valid URL/)
  assert.throws(() => a2aBridgeAgent({ url: 'ftp://example.com/' }), /must be http: or https:/)
})
