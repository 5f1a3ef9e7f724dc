// Baseline: a bare `ws` server with no store, no session and no encoder, sending the frames Parlance sends.
// Usage: raw-ws.ts [hai|myagent]. On a HAI `user_message` "count N" (or a MyAgent `user.message`) it
// answers every connection of that session id with the frames Parlance sends for the demo's `count N`
// (HAI: chunks, final chunk, completed; MyAgent: partial answers, final answer), corked in batches of
// 2,048, pausing while any socket of the session has over 1 MiB unsent. Connections that send nothing stay
// idle (the concurrency baseline); one opened with `?session_id=X[&dialect=myagent]` watches session X in
// that dialect (the fan-out baseline: each frame is built once per dialect and sent to every watcher).
import { WebSocketServer, type WebSocket } from 'ws'

type Dialect = 'hai' | 'myagent'
const defaultDialect: Dialect = process.argv[2] === 'myagent' ? 'myagent' : 'hai'
const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', backlog: 4096, perMessageDeflate: false })
const watchers = new Map<string, Map<WebSocket, Dialect>>()
wss.on('listening', () => {
  const addr = wss.address()
  process.stdout.write(`listening ${addr && typeof addr === 'object' ? addr.port : String(addr)}\n`)
})

type Frames = { chunk(i: number, seq: number): string; final(seq: number): string; done(seq: number): string }

function frames(dialect: Dialect, sessionId: string, n: number): Frames {
  const sid = JSON.stringify(sessionId)
  if (dialect === 'hai') {
    const ids = `"session_id":${sid},"agent_id":"demo"`
    return {
      chunk: (i, seq) => `{"type":"assistant_message_chunk","content":"${i} ","message_id":"msg_1",${ids},"is_final":false,"seq":${seq}}`,
      final: (seq) => `{"type":"assistant_message_chunk","content":"","message_id":"msg_1",${ids},"is_final":true,"seq":${seq}}`,
      done: (seq) => `{"type":"status","status":"completed",${ids},"seq":${seq}}`,
    }
  }
  const head = `{"session_id":${sid},"connection_id":"conn_1","event":`
  const ts = () => JSON.stringify(new Date().toISOString())
  return {
    chunk: (i, seq) =>
      `${head}"agent.partial_answer","timestamp":${ts()},"content":"${i} ","metadata":{"chunk_index":${i - 1},"seq":${seq}},"step_id":"msg_1"}`,
    final: (seq) => {
      let answer = ''
      for (let i = 1; i <= n; i++) answer += `${i} `
      return `${head}"agent.final_answer","timestamp":${ts()},"content":{"answer":"${answer}","answer_type":"text"},"metadata":{"generation_time_ms":0,"total_tokens_used":0,"model":"parlance","message_id":"msg_1","seq":${seq}},"step_id":"msg_1"}`
    },
    done: () => '',
  }
}

const corked = (ws: WebSocket) => (ws as unknown as { _socket: { cork(): void; uncork(): void } })._socket

function stream(targets: Map<WebSocket, Dialect>, sessionId: string, n: number): void {
  const groups = (['hai', 'myagent'] as const)
    .map((d) => ({ f: frames(d, sessionId, n), sockets: [...targets].filter(([, x]) => x === d).map(([ws]) => ws) }))
    .filter((g) => g.sockets.length > 0)
  const all = [...targets.keys()]
  let seq = 0
  let i = 1
  const pump = () => {
    for (const ws of all) corked(ws).cork()
    const end = Math.min(n, i + 2047)
    for (; i <= end; i++) {
      ++seq
      for (const g of groups) {
        const frame = g.f.chunk(i, seq)
        for (const ws of g.sockets) ws.send(frame)
      }
    }
    for (const ws of all) corked(ws).uncork()
    if (i <= n) {
      let congested = false
      for (const ws of all) if (ws.bufferedAmount > 1024 * 1024) congested = true
      if (congested) setTimeout(pump, 1)
      else setImmediate(pump)
      return
    }
    const s1 = ++seq
    const s2 = ++seq
    for (const g of groups) {
      const last = [g.f.final(s1), g.f.done(s2)].filter(Boolean)
      for (const ws of g.sockets) for (const frame of last) ws.send(frame)
    }
  }
  pump()
}

wss.on('connection', (ws, req) => {
  const q = new URL(req.url ?? '/', 'http://x').searchParams
  const watch = q.get('session_id')
  if (watch) {
    let set = watchers.get(watch)
    if (!set) watchers.set(watch, (set = new Map<WebSocket, Dialect>()))
    set.set(ws, q.get('dialect') === 'myagent' ? 'myagent' : 'hai')
    ws.once('close', () => set.delete(ws))
  }
  ws.on('message', (data) => {
    const msg = JSON.parse((data as Buffer).toString('utf8')) as { content: string; session_id: string }
    const n = Number(/count (\d+)/.exec(msg.content)?.[1] ?? 0)
    const targets = watchers.get(msg.session_id) ?? new Map<WebSocket, Dialect>()
    if (!targets.has(ws)) targets.set(ws, defaultDialect)
    stream(targets, msg.session_id, n)
  })
})
