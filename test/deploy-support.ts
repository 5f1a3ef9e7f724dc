// Shared by the deploy tests (test/deploy-nginx.test.ts, test/deploy-caddy.test.ts): a Parlance server with a gated
// agent, and every kind of stream driven through a proxy in front of it with the dialects' own clients.
import assert from 'node:assert/strict'
import type { IncomingHttpHeaders } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import type { ChildProcess } from 'node:child_process'
import type { TestContext } from 'node:test'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { io, type Socket } from 'socket.io-client'
import { WebSocket } from 'ws'
import { AguiClient, HaiClient, textOf } from '../src/client/index.js'
import { bearerProtocols } from '../src/client/socket.js'
import { createServer, defineAgent, type ParlanceServer } from '../src/index.js'
import { waitFor } from './support/wait.js'

export const TOKEN = 'deploy-test-token'

/** Waits (bounded) until the proxy `child` answers /healthz at `url` with Parlance's 200. */
export async function proxyReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the proxy exited (${child.exitCode}):\n${log()}`)
      const res = await fetch(`${url}/healthz`).catch(() => null)
      return res?.status === 200
    },
    { what: `${url}/healthz through the proxy`, timeoutMs: 15_000, intervalMs: 100 },
  ).catch((err: Error) => assert.fail(`${err.message}\n${log()}`))
}

/** Gates the agent waits on, by key: the test opens one once it has seen the run's first token. */
const gates = new Map<string, { open: () => void; opened: Promise<void> }>()
function gate(key: string): { open: () => void; opened: Promise<void> } {
  let g = gates.get(key)
  if (!g) {
    let open = () => {}
    const opened = new Promise<void>((resolve) => (open = resolve))
    g = { open, opened }
    gates.set(key, g)
  }
  return g
}

/** 'gate:KEY' says "first ", waits for the test, then says "last"; anything else is echoed. */
export const gated = defineAgent({
  name: 'gated',
  async run(ctx) {
    const key = /gate:(\S+)/.exec(ctx.input.text)?.[1]
    if (!key) return void (await ctx.say(`Echo: ${ctx.input.text}`))
    const g = gate(key)
    await ctx.say(
      (async function* () {
        yield 'first '
        await g.opened
        yield 'last'
      })(),
    )
  },
})

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/** A server behind the proxy under test (auth on, --trust-proxy), recording the headers each authenticated request arrived with. */
export async function startParlance(t: TestContext): Promise<{ server: ParlanceServer; port: number; headers: IncomingHttpHeaders[] }> {
  const headers: IncomingHttpHeaders[] = []
  const server = await createServer({
    agents: [gated],
    store: 'memory',
    logger: false,
    auth: {
      authenticate(req, token) {
        headers.push(req.headers)
        return token === TOKEN ? 'token' : null
      },
    },
    trustProxy: true,
    limits: { typingMsPerChar: 0, messageConfirmTimeoutMs: 5_000 },
  })
  t.after(() => server.close())
  const url = await server.listen(0, '127.0.0.1')
  return { server, port: Number(new URL(url).port), headers }
}

/** Collects a socket's HUMA 'event's from the start (a polling response delivers several in one tick). */
function humaEvents(socket: Socket): (pred: (e: Record<string, unknown>) => boolean, timeoutMs?: number) => Promise<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = []
  let wake = () => {}
  socket.on('event', (e: Record<string, unknown>) => {
    events.push(e)
    wake()
  })
  return async (pred, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = events.find(pred)
      if (found) return found
      if (Date.now() > deadline) throw new Error('timed out waiting for a HUMA event')
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now() + 1)
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  }
}

/**
 * Drives every kind of stream through the proxy at `url` (https with `ca`, else http): HAI over WebSocket, AG-UI's
 * SSE with a dropped stream resumed, HUMA over Socket.IO polling and WebSocket, /api/chat through the ai package.
 * The gated agent holds each run open until the client has its first token, so a buffering proxy fails here.
 */
export async function driveEveryDialect(t: TestContext, url: string, ca?: Buffer): Promise<void> {
  await t.test('HAI over WebSocket', async () => {
    class TrustingWebSocket extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, ca ? { ca } : {})
      }
    }
    const c = await HaiClient.connect({ url, token: TOKEN, WebSocket: TrustingWebSocket as never })
    try {
      c.say('gate:hai')
      await c.next((m) => m.type === 'assistant_message_chunk' && m.content === 'first ')
      gate('hai').open()
      await c.untilCompleted()
      assert.equal(textOf(c.received), 'first last')
    } finally {
      c.close()
    }
  })

  await t.test('AG-UI: SSE unbuffered, and a dropped stream resumed through the proxy', async () => {
    const client = new AguiClient({ url, token: TOKEN })
    const threadId = `thread-${Date.now()}`
    const stop = new AbortController()
    const seen: string[] = []
    for await (const r of client.run({ threadId, runId: 'run-1', messages: [{ id: 'u1', role: 'user', content: 'gate:agui' }] }, stop.signal)) {
      seen.push(r.event.type)
      if (r.event.type === 'TEXT_MESSAGE_CONTENT' && r.event.delta === 'first ') break // the run is still waiting on the gate
    }
    stop.abort()
    assert.ok(!seen.includes('RUN_FINISHED'))
    gate('agui').open()
    const resumed: Array<{ type: string; [k: string]: unknown }> = []
    for await (const r of client.resume(threadId)) resumed.push(r.event)
    assert.deepEqual(
      resumed.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta),
      ['last'],
      'the resume replays only what came after the last id seen',
    )
    assert.equal(resumed.at(-1)?.type, 'RUN_FINISHED')
  })

  for (const transport of ['polling', 'websocket'] as const) {
    await t.test(`HUMA over Socket.IO ${transport}`, async () => {
      const socket = io(url, {
        transports: [transport],
        auth: { token: TOKEN },
        ...(ca ? { ca: ca.toString() } : {}),
        reconnection: false,
        forceNew: true,
      })
      const next = humaEvents(socket)
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('session', () => resolve())
          socket.once('connect_error', reject)
        })
        assert.equal(socket.io.engine.transport.name, transport)
        socket.emit('message', { type: 'context-update', triggering: true, name: 'new-message', context: {}, description: `hello over ${transport}` })
        const e = await next((x) => x.type === 'messaging' && x.event === 'message_sent')
        assert.equal(e.message, `Echo: hello over ${transport}`)
        socket.emit('message', { type: 'addon-tool-event', toolCallId: e.toolCallId, data: { messageIndex: e.messageIndex, success: true } })
        await next((x) => x.type === 'messaging' && x.event === 'typing_end')
        assert.equal(socket.io.engine.transport.name, transport, "no upgrade happened behind the test's back")
      } finally {
        socket.disconnect()
      }
    })
  }

  await t.test('/api/chat through the ai package: the first token before the run ends', async () => {
    const transport = new DefaultChatTransport({ api: `${url}/api/chat`, headers: { authorization: `Bearer ${TOKEN}` } })
    const messages: UIMessage[] = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'gate:aisdk' }] }]
    const stream = await transport.sendMessages({
      chatId: `chat-${Date.now()}`,
      trigger: 'submit-message',
      messageId: undefined,
      messages,
      abortSignal: undefined,
    })
    const reader = stream.getReader()
    let text = ''
    for (;;) {
      const { done, value } = await reader.read()
      assert.ok(!done, 'the stream ended before its first token')
      if (value.type === 'text-delta') text += value.delta
      if (text === 'first ') break
    }
    gate('aisdk').open()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (value.type === 'text-delta') text += value.delta
    }
    assert.equal(text, 'first last')
  })
}

/**
 * Requests that carry the token where a log could see it, each accepted by Parlance through the proxy: the
 * `?access_token=` query (an EventSource's only way) on HTTP and on a WebSocket, a Referer whose page URL has
 * it, and the `parlance.bearer` subprotocol a browser's WebSocket offers. The caller then reads the access log.
 */
export async function tokenInUrlsAndProtocols(url: string, ca?: Buffer): Promise<void> {
  const res = await fetch(`${url}/inspector/api/info?access_token=${TOKEN}`, { headers: { referer: `${url}/?access_token=${TOKEN}` } })
  assert.equal(res.status, 200, 'a token in the query is still accepted')
  const ws = url.replace(/^http/, 'ws')
  for (const [address, protocols] of [
    [`${ws}/ws?access_token=${TOKEN}`, undefined],
    [`${ws}/ws`, bearerProtocols(TOKEN)],
  ] as const) {
    const socket = new WebSocket(address, protocols, ca ? { ca } : {})
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve())
      socket.once('error', reject)
    })
    if (protocols) assert.equal(socket.protocol, 'parlance.bearer')
    // Accepted: the server keeps it open (a refused token gets close 4401 right after the handshake).
    socket.send(JSON.stringify({ type: 'user_message', content: 'hi', session_id: `logs-${Date.now()}` }))
    await new Promise<void>((resolve, reject) => {
      socket.once('message', () => resolve())
      socket.once('close', (code) => reject(new Error(`closed ${code}`)))
    })
    socket.close()
  }
}

/** What the proxy told Parlance: the browser's Host, the client's address set (a forged one dropped), the scheme. */
export async function checkForwardedHeaders(
  url: string,
  headers: IncomingHttpHeaders[],
  expected: { host: string; forwardedHost: string; proto: string },
): Promise<void> {
  headers.length = 0
  const res = await fetch(`${url}/inspector/api/info`, { headers: { authorization: `Bearer ${TOKEN}`, 'x-forwarded-for': '203.0.113.9' } })
  assert.equal(res.status, 200)
  const h = headers.at(-1)!
  assert.equal(h.host, expected.host)
  assert.equal(h['x-forwarded-for'], '127.0.0.1', "the client's own X-Forwarded-For is replaced, not appended to")
  assert.equal(h['x-forwarded-proto'], expected.proto)
  assert.equal(h['x-forwarded-host'], expected.forwardedHost)
}
