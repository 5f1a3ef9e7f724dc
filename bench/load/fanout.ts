// Load generator for fan-out: CONNS connections watch one new session, half HAI and half MyAgent; the first
// HAI connection sends `count N`; timed until every connection has its run's last frame.
// Prints {deliveredPerSecond, seconds, minFrames}. Usage: fanout.ts parlance|raw BASE_WS_URL N CONNS
import WebSocket from 'ws'

const [mode = 'parlance', base = '', nRaw = '20000', connsRaw = '100'] = process.argv.slice(2)
const n = Number(nRaw)
const conns = Number(connsRaw)
const session = `fanout-${process.pid}`

interface Watcher {
  ws: WebSocket
  frames: number
  done: Promise<void>
}

function open(url: string, dialect: 'hai' | 'myagent', hello?: unknown): Promise<Watcher> {
  const ws = new WebSocket(url, { perMessageDeflate: false })
  const last = dialect === 'hai' ? '{"type":"status","status":"completed"' : '"event":"agent.final_answer"'
  return new Promise((resolve, reject) => {
    ws.once('error', reject)
    ws.once('open', () => {
      let finish!: () => void
      const w: Watcher = { ws, frames: 0, done: new Promise((r) => (finish = r)) }
      ws.on('message', (d: Buffer) => {
        w.frames++
        if (d.subarray(0, 200).toString().includes(last)) finish()
      })
      if (hello) ws.send(JSON.stringify(hello))
      resolve(w)
    })
  })
}

const q = `session_id=${session}`
const watchers: Watcher[] = []
for (let i = 0; i < conns; i++) {
  const hai = i % 2 === 0
  if (mode === 'raw') watchers.push(await open(`${base}/?${q}${hai ? '' : '&dialect=myagent'}`, hai ? 'hai' : 'myagent'))
  else if (hai) watchers.push(await open(`${base}/ws?${q}`, 'hai'))
  else watchers.push(await open(`${base}/myagent`, 'myagent', { event: 'user.reconnect', content: { session_id: session, last_seq: 0 } }))
}
// Let MyAgent reconnects bind before the run starts (they answer system.connected first).
await new Promise((r) => setTimeout(r, 200))
const started = performance.now()
watchers[0]!.ws.send(JSON.stringify({ type: 'user_message', content: `count ${n}`, session_id: session }))
await Promise.all(watchers.map((w) => w.done))
const seconds = (performance.now() - started) / 1000
const minFrames = Math.min(...watchers.map((w) => w.frames))
for (const w of watchers) w.ws.terminate()
if (minFrames < n) throw new Error(`a connection received ${minFrames} frames, expected at least ${n}`)
process.stdout.write(`${JSON.stringify({ deliveredPerSecond: (n * conns) / seconds, seconds, minFrames })}\n`)
