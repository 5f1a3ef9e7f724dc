// W3C trace context leaving Parlance (issue 38, item 4), with an in-memory SDK and the W3C propagator registered in
// this process: the run's context reaches a bridged AG-UI agent (a local AG-UI server that records headers), a
// bridged A2A agent (a second Parlance, whose own request span continues the trace) and an A2A push webhook
// (a local receiver the webhook guard is told to allow). Everything listens on 127.0.0.1.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { HttpAgent } from '@ag-ui/client'
import { Role, type Message } from '@a2a-js/sdk'
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { a2aBridgeAgent } from '../src/agents/a2a/index.js'
import { aguiBridgeAgent } from '../src/agents/agui/index.js'
import { exporter, inboundTrace, parentOf, parseTraceparent, span } from './telemetry-support.js'
import { aguiRemote } from './telemetry-remote.js'
import { startServer } from './harness.js'
import { run, text } from './agui-support.js'
import { waitFor } from './support/wait.js'

test("AG-UI bridge: the remote agent gets a traceparent in the inbound trace, its parent the bridge's run span", async (t) => {
  exporter.reset()
  const remote = await aguiRemote(t)
  const bridge = await startServer({
    agents: [aguiBridgeAgent({ url: remote.url, headers: { authorization: 'Bearer remote-key' }, cancelUrl: false })],
  })
  t.after(() => bridge.close())
  const inbound = inboundTrace()
  const threadId = randomUUID()
  const events = await run(new HttpAgent({ url: `${bridge.url}/agui`, threadId, headers: { traceparent: inbound.traceparent } }), 'hi')
  assert.equal(text(events), 'hello from afar')
  const runSpan = await span('invoke_agent agui', (x) => x.name === 'invoke_agent agui' && x.attributes['parlance.session.id'] === threadId)
  assert.equal(runSpan.spanContext().traceId, inbound.traceId)
  assert.equal(remote.seen.length, 1)
  const sent = parseTraceparent(remote.seen[0]!.traceparent)
  assert.equal(sent.traceId, inbound.traceId, 'the remote continues the inbound trace')
  assert.equal(sent.spanId, runSpan.spanContext().spanId, "as a child of the bridge's run span")
  assert.equal(remote.seen[0]!.authorization, 'Bearer remote-key', 'the configured headers still go')
})

test("A2A bridge: the remote Parlance continues the trace; its request span is the bridge run span's child", async (t) => {
  exporter.reset()
  const remote = await startServer()
  t.after(() => remote.close())
  const bridge = await startServer({ agents: [a2aBridgeAgent({ url: `${remote.url}/a2a/demo/.well-known/agent-card.json` })] })
  t.after(() => bridge.close())
  const c = await bridge.hai()
  c.say('hello remote')
  await c.untilCompleted()
  const bridgeRun = await span(
    'invoke_agent a2a (bridge)',
    (x) => x.name.startsWith('invoke_agent ') && x.attributes['parlance.session.id'] === c.sessionId,
  )
  const remoteRequest = await span(
    'parlance.request a2a (remote)',
    (x) => x.name === 'parlance.request a2a' && parentOf(x) === bridgeRun.spanContext().spanId,
  )
  assert.equal(remoteRequest.spanContext().traceId, bridgeRun.spanContext().traceId)
  // The remote's own run is that request's child: one trace from the HAI frame to the remote agent.
  const remoteRun = await span(
    'invoke_agent demo (remote)',
    (x) => x.name === 'invoke_agent demo' && parentOf(x) === remoteRequest.spanContext().spanId,
  )
  assert.equal(remoteRun.spanContext().traceId, bridgeRun.spanContext().traceId)
})

test('A2A push: a webhook delivery carries the traceparent of the trace the task was started in', async (t) => {
  exporter.reset()
  const got: IncomingHttpHeaders[] = []
  const hook = createHttpServer((req, res) => {
    req.resume()
    req.on('end', () => {
      got.push(req.headers)
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r))
  t.after(() => hook.close())
  const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`
  // The receiver is local: the webhook guard refuses loopback unless told to allow it.
  const s = await startServer({ allowWebhookHosts: ['127.0.0.1'] })
  t.after(() => s.close())
  const inbound = inboundTrace()
  // The official A2A client, sending the inbound traceparent with every request.
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers)
    headers.set('traceparent', inbound.traceparent)
    return fetch(input, { ...init, headers })
  }
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  )
  const client = await factory.createFromUrl(s.url, '/a2a/demo/.well-known/agent-card.json')
  const message: Message = {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: 'count 3' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  }
  await client.sendMessage({
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      historyLength: undefined,
      returnImmediately: false,
      taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url: hookUrl, token: 'hook-token', authentication: undefined },
    },
    metadata: undefined,
  })
  await waitFor(() => got.length >= 2, { what: 'two webhook deliveries', timeoutMs: 10_000 })
  const request = await span('parlance.request a2a', (x) => x.name === 'parlance.request a2a' && x.spanContext().traceId === inbound.traceId)
  assert.equal(parentOf(request), inbound.spanId)
  for (const h of got) {
    assert.equal(h['x-a2a-notification-token'], 'hook-token')
    assert.equal(parseTraceparent(h.traceparent).traceId, inbound.traceId, 'every delivery continues the inbound trace')
  }
})
