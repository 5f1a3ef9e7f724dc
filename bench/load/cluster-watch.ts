// Load generator for the cluster benchmark's cross-node delivery: a sender on WRITER starts a new session there
// with a one-chunk warm-up run (so WRITER holds the session's lease), then K watchers attach to it with
// `/ws?session_id=S&after=0`, round-robin over WATCH_URLS, and each waits for the warm-up's replay (so it is
// attached before the measured run). Then the sender sends `count N`, which runs on WRITER; timed until every
// watcher has the run's `status: completed`. Prints {deliveredPerSecond, seconds, minChunks}.
// Usage: cluster-watch.ts WRITER_BASE_WS_URL WATCH_BASE_WS_URL[,…] N K
import WebSocket from 'ws'

const [writer = '', watchRaw = '', nRaw = '20000', kRaw = '30'] = process.argv.slice(2)
const watchUrls = watchRaw.split(',').filter(Boolean)
const n = Number(nRaw)
const k = Number(kRaw)
const session = `watch-${process.pid}-${Date.now().toString(36)}`
const CHUNK = '{"type":"assistant_message_chunk"'
const COMPLETED = '{"type":"status","status":"completed"'
const ERROR = '{"type":"error"'

/**
 * A HAI socket counting chunk frames. `completed(c)` resolves once a `status: completed` has arrived after at
 * least c chunk frames: frames can arrive in the same read as the handshake, before anyone waits for them, so
 * the socket remembers the chunk count at each completed status.
 */
function open(url: string) {
  const ws = new WebSocket(url, { perMessageDeflate: false })
  let chunks = 0
  let completedAt = -1
  let waiting: { atLeast: number; resolve: () => void } | null = null
  let failed: Error | null = null
  let fail: (e: Error) => void = (e) => (failed = e)
  ws.on('message', (d: Buffer) => {
    const head = d.subarray(0, 48).toString()
    if (head.startsWith(CHUNK)) chunks++
    else if (head.startsWith(COMPLETED)) {
      completedAt = chunks
      if (waiting && chunks >= waiting.atLeast) waiting.resolve()
    } else if (head.startsWith(ERROR)) fail(new Error(`${url}: ${d.toString().slice(0, 300)}`))
  })
  ws.once('close', () => fail(new Error(`${url} closed early`)))
  return {
    ws,
    get chunks() {
      return chunks
    },
    ready: new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    }),
    completed(atLeast: number): Promise<void> {
      return new Promise((resolve, reject) => {
        if (failed) return reject(failed)
        if (completedAt >= atLeast) return resolve()
        fail = reject
        waiting = { atLeast, resolve }
      })
    },
  }
}

const sender = open(`${writer}/ws`)
await sender.ready
// A run of `count c` is c chunk frames and a final empty one.
const WARM = 2
const warm = sender.completed(WARM)
sender.ws.send(JSON.stringify({ type: 'user_message', content: 'count 1', session_id: session }))
await warm
const watchers = Array.from({ length: k }, (_, i) => open(`${watchUrls[i % watchUrls.length]}/ws?session_id=${session}&after=0`))
// Attached once the warm-up run has been replayed to it.
await Promise.all(
  watchers.map(async (w) => {
    await w.ready
    await w.completed(WARM)
  }),
)
const done = Promise.all(watchers.map((w) => w.completed(WARM + n + 1)))
const started = performance.now()
sender.ws.send(JSON.stringify({ type: 'user_message', content: `count ${n}`, session_id: session }))
await done
const seconds = (performance.now() - started) / 1000
const chunks = watchers.map((w) => w.chunks - WARM)
const minChunks = Math.min(...chunks)
for (const w of [sender, ...watchers]) w.ws.terminate()
if (minChunks !== n + 1 || Math.max(...chunks) !== n + 1)
  throw new Error(`watchers received ${minChunks}–${Math.max(...chunks)} chunk frames of the run, expected ${n + 1}`)
process.stdout.write(`${JSON.stringify({ deliveredPerSecond: (n * k) / seconds, seconds, minChunks })}\n`)
