// Load generator for the cluster benchmark's idle connections: opens PER_NODE HAI WebSockets (`/ws`, no
// session) to each node, round-robin, 200 handshakes in flight; prints `connected K1,K2,…` (how many opened per
// node), waits for a `go` line on stdin, closes them all and prints the JSON result
// {connected: [K1,…], stillOpen: [K1,…], connectSeconds, connectError}. Usage: cluster-idle.ts BASE_WS_URL[,…] PER_NODE
import { createInterface } from 'node:readline'
import WebSocket from 'ws'

const [urlsRaw = '', perNodeRaw = '1000'] = process.argv.slice(2)
const urls = urlsRaw.split(',').filter(Boolean)
const total = Number(perNodeRaw) * urls.length
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()

const sockets: Array<{ ws: WebSocket; node: number }> = []
const connected = urls.map(() => 0)
let connectError = ''
let next = 0
async function connector(): Promise<void> {
  while (next < total && !connectError) {
    const node = next++ % urls.length
    const ws = new WebSocket(`${urls[node]}/ws`, { perMessageDeflate: false })
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve())
        ws.once('error', reject)
      })
      ws.on('error', () => {})
      sockets.push({ ws, node })
      connected[node]!++
    } catch (err) {
      connectError = `node ${node + 1}: ${(err as Error).message}`
    }
  }
}
const started = performance.now()
await Promise.all(Array.from({ length: 200 }, connector))
const connectSeconds = (performance.now() - started) / 1000
process.stdout.write(`connected ${connected.join(',')}\n`)
for (;;) {
  const l = await lines.next()
  if (l.done || l.value.trim() === 'go') break
}
// Every socket must still be open after the idle period (a server that dropped idle sockets would show here).
const open = urls.map(() => 0)
for (const s of sockets) if (s.ws.readyState === WebSocket.OPEN) open[s.node]!++
for (const s of sockets) s.ws.terminate()
process.stdout.write(`${JSON.stringify({ connected, stillOpen: open, connectSeconds, connectError })}\n`, () => process.exit(0))
