// Load generator for the cluster benchmark's aggregate throughput: CLIENTS HAI WebSockets, client i on node
// i % nodes (no sticky routing), all connected first; then every client sends `count N` in its own new session
// at the same instant and times until its `status: completed`. Counts the chunk frames each client receives
// (N chunks and the final empty one; any other count is an error). Prints {eventsPerSecond, seconds, perNode: [{clients, eventsPerSecond, seconds}]}.
// Usage: cluster-stream.ts BASE_WS_URL[,BASE_WS_URL…] CLIENTS N
import WebSocket from 'ws'

const [urlsRaw = '', clientsRaw = '60', nRaw = '2000'] = process.argv.slice(2)
const urls = urlsRaw.split(',').filter(Boolean)
const clients = Number(clientsRaw)
const n = Number(nRaw)
const CHUNK = '{"type":"assistant_message_chunk"'
const COMPLETED = '{"type":"status","status":"completed"'
const ERROR = '{"type":"error"'

interface Client {
  node: number
  ws: WebSocket
  chunks: number
  ms: number
}

function connect(node: number): Promise<Client> {
  const ws = new WebSocket(`${urls[node]}/ws`, { perMessageDeflate: false })
  return new Promise((resolve, reject) => {
    ws.once('error', reject)
    ws.once('open', () => resolve({ node, ws, chunks: 0, ms: 0 }))
  })
}

const all: Client[] = []
for (let i = 0; i < clients; i += 20)
  all.push(...(await Promise.all(Array.from({ length: Math.min(20, clients - i) }, (_, j) => connect((i + j) % urls.length)))))

const tag = `cl-${process.pid}-${Date.now().toString(36)}`
const started = performance.now()
await Promise.all(
  all.map(
    (c, i) =>
      new Promise<void>((resolve, reject) => {
        c.ws.on('message', (d: Buffer) => {
          const head = d.subarray(0, 48).toString()
          if (head.startsWith(CHUNK)) c.chunks++
          else if (head.startsWith(COMPLETED)) {
            c.ms = performance.now() - started
            resolve()
          } else if (head.startsWith(ERROR)) reject(new Error(`client ${i} (node ${c.node + 1}): ${d.toString().slice(0, 300)}`))
        })
        c.ws.once('close', () => reject(new Error(`client ${i} (node ${c.node + 1}) closed before its run completed`)))
        c.ws.send(`{"type":"user_message","content":"count ${n}","session_id":"${tag}-${i}"}`)
      }),
  ),
)
const seconds = (performance.now() - started) / 1000
for (const c of all) c.ws.terminate()
const short = all.filter((c) => c.chunks !== n + 1)
if (short.length)
  throw new Error(`${short.length} clients received a chunk frame count other than ${n + 1} (e.g. ${short[0]!.chunks} on node ${short[0]!.node + 1})`)
const perNode = urls.map((_, node) => {
  const mine = all.filter((c) => c.node === node)
  const s = Math.max(...mine.map((c) => c.ms)) / 1000
  return { clients: mine.length, eventsPerSecond: (mine.length * n) / s, seconds: s }
})
process.stdout.write(`${JSON.stringify({ eventsPerSecond: (clients * n) / seconds, seconds, perNode })}\n`)
