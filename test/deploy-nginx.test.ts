// Issue 38, part 5: the documented nginx site (deploy/nginx.conf) run for real in front of a Parlance server,
// with TLS (a certificate made here with openssl), and every kind of stream driven through it with the
// dialects' own clients: HAI over WebSocket, AG-UI's SSE with a resume, HUMA over Socket.IO polling and
// WebSocket, and the AI SDK's /api/chat. Streaming must not be buffered: a gated agent says its first token,
// then waits for the test to have received it before finishing the run.
// Needs nginx from the distribution (CI installs it: .ci/run); nothing is installed here.
import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { io, type Socket } from 'socket.io-client'
import { Agent, setGlobalDispatcher } from 'undici'
import { WebSocket } from 'ws'
import { AguiClient, HaiClient, textOf } from '../src/client/index.js'
import { createServer, defineAgent, type ParlanceServer } from '../src/index.js'

const NGINX = '/usr/sbin/nginx'
const SITE = new URL('../deploy/nginx.conf', import.meta.url)
const TOKEN = 'deploy-test-token'

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
const gated = defineAgent({
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/** Replaces `from` (which must occur exactly once) in the site file: the test changes ports and paths only. */
function swap(text: string, from: string, to: string): string {
  assert.equal(text.split(from).length, 2, `deploy/nginx.conf no longer has exactly one "${from}"; update this test with it`)
  return text.replace(from, to)
}

/** Runs the documented site under a non-daemon nginx with its own prefix, pid and temp dirs; resolves with its https URL. */
async function startNginx(dir: string, upstreamPort: number): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const [http, https] = [await freePort(), await freePort()]
  let site = readFileSync(SITE, 'utf8')
  site = swap(site, 'server 127.0.0.1:8000;', `server 127.0.0.1:${upstreamPort};`)
  site = swap(site, 'listen 80;', `listen 127.0.0.1:${http};`)
  site = swap(site, 'listen 443 ssl http2;', `listen 127.0.0.1:${https} ssl http2;`)
  // Only loopback here: the IPv6 wildcard listeners go.
  site = swap(site, '    listen [::]:80;\n', '')
  site = swap(site, '    listen [::]:443 ssl http2;\n', '')
  site = swap(site, '/etc/letsencrypt/live/chat.example.com/fullchain.pem', join(dir, 'cert.pem'))
  site = swap(site, '/etc/letsencrypt/live/chat.example.com/privkey.pem', join(dir, 'key.pem'))
  writeFileSync(join(dir, 'parlance.conf'), site)
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi', 'logs']) mkdirSync(join(dir, d))
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log info;
events { worker_connections 256; }
http {
  access_log ${dir}/logs/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/parlance.conf;
}
`,
  )
  const check = spawnSync(NGINX, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')], { encoding: 'utf8' })
  assert.equal(check.status, 0, `nginx -t refused the site:\n${check.stderr}`)
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const log = () => `${stderr}${existsSync(join(dir, 'logs/error.log')) ? readFileSync(join(dir, 'logs/error.log'), 'utf8').slice(-3000) : ''}`
  const url = `https://127.0.0.1:${https}`
  // Ready when /healthz answers through it (bounded).
  const deadline = Date.now() + 15_000
  for (;;) {
    if (child.exitCode !== null) assert.fail(`nginx exited (${child.exitCode}):\n${log()}`)
    const res = await fetch(`${url}/healthz`).catch(() => null)
    if (res?.status === 200) break
    if (Date.now() > deadline) assert.fail(`nginx did not answer /healthz within 15 s:\n${log()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  // The redirect server block answers too.
  const redirect = await fetch(`http://127.0.0.1:${http}/x`, { redirect: 'manual' })
  assert.equal(redirect.status, 301)
  assert.equal(redirect.headers.get('location'), 'https://127.0.0.1/x')
  return { url, child, log }
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

test('the documented nginx site in front of Parlance: every dialect streams through it, unbuffered', { timeout: 120_000 }, async (t) => {
  assert.ok(existsSync(NGINX), `${NGINX} is missing: install the distribution's nginx (apt-get install -y nginx), as .ci/run does`)
  const dir = mkdtempSync(join(tmpdir(), 'parlance-nginx-'))
  chmodSync(dir, 0o755) // nginx's workers may run as another user
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const cert = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
    { encoding: 'utf8' },
  )
  assert.equal(cert.status, 0, `openssl could not make a test certificate: ${cert.stderr}`)
  const ca = readFileSync(join(dir, 'cert.pem'))
  setGlobalDispatcher(new Agent({ connect: { ca } })) // fetch (AguiClient, the ai transport) trusts the test certificate

  const server: ParlanceServer = await createServer({
    agents: [gated],
    store: 'memory',
    logger: false,
    auth: { token: TOKEN },
    trustProxy: true,
    limits: { typingMsPerChar: 0, messageConfirmTimeoutMs: 5_000 },
  })
  t.after(() => server.close())
  const direct = await server.listen(0, '127.0.0.1')
  const nginx = await startNginx(dir, Number(new URL(direct).port))
  t.after(() => nginx.child.kill('SIGTERM'))
  const url = nginx.url

  await t.test('HAI over WebSocket', async () => {
    class TrustingWebSocket extends WebSocket {
      constructor(address: string) {
        super(address, { ca })
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
      const socket = io(url, { transports: [transport], auth: { token: TOKEN }, ca: ca.toString(), reconnection: false, forceNew: true })
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
        assert.equal(socket.io.engine.transport.name, transport, 'no upgrade happened behind the test\'s back')
      } finally {
        socket.disconnect()
      }
    })
  }

  await t.test('/api/chat through the ai package: the first token before the run ends', async () => {
    const transport = new DefaultChatTransport({ api: `${url}/api/chat`, headers: { authorization: `Bearer ${TOKEN}` } })
    const messages: UIMessage[] = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'gate:aisdk' }] }]
    const stream = await transport.sendMessages({ chatId: `chat-${Date.now()}`, trigger: 'submit-message', messageId: undefined, messages, abortSignal: undefined })
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

  // What nginx forwarded: its access log has every dialect's path, answered without a proxy error.
  const access = readFileSync(join(dir, 'logs/access.log'), 'utf8')
  for (const path of ['/ws', '/agui', '/agui/threads/', '/socket.io/?EIO=4&transport=polling', '/socket.io/?EIO=4&transport=websocket', '/api/chat']) {
    assert.ok(access.includes(path), `${path} went through nginx`)
  }
  assert.doesNotMatch(access, /" 50[234] /, `no 502/503/504 from nginx:\n${nginx.log()}`)
})
