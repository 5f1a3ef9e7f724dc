// Load generator: asks the demo agent for "count N" (an answer of N chunks) over one dialect, in a new session,
// reads the whole answer, and meanwhile asks GET /healthz again and again (one at a time), recording how long
// each took (one every 10 ms): a server whose event loop is blocked answers it late. Prints {seconds, healthzMs: [...]}.
// Usage: long-answer.ts PORT DIALECT N   (DIALECT: api-chat agui hai myagent huma mcp a2a-send a2a-stream openai-chat
// openai-responses)
import { randomUUID } from 'node:crypto'
import { Worker } from 'node:worker_threads'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { io } from 'socket.io-client'
import WebSocket from 'ws'

const [portRaw = '', dialect = '', nRaw = '1000'] = process.argv.slice(2)
const base = `http://127.0.0.1:${portRaw}`
const n = Number(nRaw)
let ask = 'count 10'
let id = `long-${process.pid}-${randomUUID()}`

/** POSTs JSON and reads the whole answer; fails unless it holds `done` (the answer's last event). */
async function post(path: string, body: unknown, done: string, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  const text = await res.text()
  if (!res.ok || !text.includes(done)) throw new Error(`${dialect}: HTTP ${res.status}, no "${done}" in ${text.slice(-300)}`)
}

/** Sends one frame over a WebSocket and waits for a frame starting with (or, early on, holding) `done`. */
async function socket(path: string, frame: unknown, done: string): Promise<void> {
  const ws = new WebSocket(`ws://127.0.0.1:${portRaw}${path}`, { perMessageDeflate: false })
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  await new Promise<void>((resolve) => {
    ws.on('message', (data: Buffer) => {
      if (data.subarray(0, 200).toString().includes(done)) resolve()
    })
    ws.send(JSON.stringify(frame))
  })
  ws.close()
}

const a2a = (method: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method,
  params: { message: { messageId: id, role: 'ROLE_USER', parts: [{ text: ask }] } },
})

const dialects: Record<string, () => Promise<void>> = {
  'api-chat': () => post('/api/chat', { id, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: ask }] }] }, '"type":"finish"'),
  agui: () =>
    post(
      '/agui',
      { threadId: id, runId: 'r1', state: {}, messages: [{ id: 'u1', role: 'user', content: ask }], tools: [], context: [], forwardedProps: {} },
      'RUN_FINISHED',
      { accept: 'text/event-stream' },
    ),
  'a2a-send': () => post('/a2a/demo', a2a('SendMessage'), 'TASK_STATE_COMPLETED', { 'a2a-version': '1.0' }),
  'openai-chat': () =>
    post(
      '/v1/chat/completions',
      { model: 'demo', stream: true, messages: [{ role: 'user', content: ask }], metadata: { parlance_session: id } },
      'data: [DONE]',
    ),
  'openai-responses': () => post('/v1/responses', { model: 'demo', stream: true, input: ask }, '"type":"response.completed"'),
  'a2a-stream': () => post('/a2a/demo', a2a('SendStreamingMessage'), 'TASK_STATE_COMPLETED', { 'a2a-version': '1.0' }),
  hai: () => socket('/ws', { type: 'user_message', content: ask, session_id: id }, '{"type":"status","status":"completed"'),
  myagent: () => socket('/myagent', { event: 'user.message', session_id: id, content: ask }, '"event":"agent.final_answer"'),
  async mcp() {
    const client = new Client({ name: 'bench', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
    let progress = 0
    await client.callTool({ name: 'ask_demo', arguments: { message: ask } }, undefined, { timeout: 600_000, onprogress: () => void progress++ })
    await client.close()
    if (ask !== 'count 10' && progress < n) throw new Error(`mcp: ${progress} progress notifications, expected ${n}`)
  },
  async huma() {
    const s = io(base, { transports: ['websocket'], auth: { sessionId: id }, reconnection: false })
    await new Promise<void>((resolve, reject) => {
      s.once('session', () => resolve())
      s.once('connect_error', reject)
    })
    await new Promise<void>((resolve, reject) => {
      s.on('error', (e: unknown) => reject(new Error(JSON.stringify(e))))
      s.on('event', (e: { event?: string; toolCallId?: string; messageIndex?: number }) => {
        if (e.event === 'message_sent')
          s.emit('message', { type: 'addon-tool-event', toolCallId: e.toolCallId, data: { messageIndex: e.messageIndex, success: true } })
        else if (e.event === 'typing_end') resolve()
      })
      s.emit('message', { type: 'context-update', triggering: true, name: 'bench', context: {}, description: ask })
    })
    s.close()
  },
}

const run = dialects[dialect]
if (!run) throw new Error(`unknown dialect "${dialect}"; one of ${Object.keys(dialects).join(', ')}`)
// Warm up first (this client's connections, the server's lazily built pieces): a short answer, a health check.
await run()
await (await fetch(`${base}/healthz`)).text()
ask = `count ${n}`
id = `long-${process.pid}-${randomUUID()}`
// The probe runs in a worker thread, so the time this process spends reading the answer does not delay it.
const probe = new Worker(
  `const { parentPort, workerData } = require('node:worker_threads')
  const ms = []
  let running = true
  parentPort.once('message', () => (running = false))
  ;(async () => {
    await (await fetch(workerData + '/healthz')).text()
    parentPort.postMessage('ready')
    while (running) {
      const t0 = performance.now()
      await (await fetch(workerData + '/healthz')).text()
      ms.push(performance.now() - t0)
      await new Promise((r) => setTimeout(r, 10))
    }
    parentPort.postMessage(ms)
  })()`,
  { eval: true, workerData: base },
)
await new Promise((resolve) => probe.once('message', resolve))
const started = performance.now()
await run()
const seconds = (performance.now() - started) / 1000
const healthzMs = await new Promise<number[]>((resolve) => {
  probe.once('message', resolve)
  probe.postMessage('stop')
})
await probe.terminate()
process.stdout.write(`${JSON.stringify({ seconds, healthzMs })}\n`)
