// Baseline of the heartbeat benchmark: a bare `ws` server pinging its sockets the way the `ws` README shows
// (every interval, one timer pings every socket and drops those that did not answer the previous ping).
// GET /lag answers its event loop's largest delay since the previous GET, in ms, as JSON.
// Usage: raw-ws-heartbeat.ts INTERVAL_MS
import { createServer } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { WebSocketServer, type WebSocket } from 'ws'

const interval = Number(process.argv[2] ?? 5_000)
const delay = monitorEventLoopDelay({ resolution: 10 })
delay.enable()
const http = createServer((req, res) => {
  if (req.url !== '/lag') return void res.writeHead(404).end()
  res.end(JSON.stringify({ maxMs: delay.max / 1e6 }))
  delay.reset()
})
const wss = new WebSocketServer({ server: http, perMessageDeflate: false })
const alive = new WeakSet<WebSocket>()
wss.on('connection', (ws) => {
  alive.add(ws)
  ws.on('pong', () => alive.add(ws))
  ws.on('error', () => {})
})
setInterval(() => {
  for (const ws of wss.clients) {
    if (!alive.has(ws)) {
      ws.terminate()
      continue
    }
    alive.delete(ws)
    ws.ping()
  }
}, interval)
http.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const addr = http.address()
  process.stdout.write(`listening ${addr && typeof addr === 'object' ? addr.port : String(addr)}\n`)
})
