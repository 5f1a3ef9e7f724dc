// Load generator for the concurrency benchmark. Opens N WebSockets to URL (200 handshakes in flight),
// prints `connected K` (K = how many opened) and waits for a `go` line on stdin; then REPS times every
// connection sends one HAI user_message `count CHUNKS` in its own session at once, timing its first chunk
// and its `status: completed`; prints `ran` and waits for `go` again; finally prints the JSON result.
// Usage: concurrency.ts URL N CHUNKS REPS
import { createInterface } from 'node:readline'
import WebSocket from 'ws'

const [url = '', nRaw = '1000', chunksRaw = '20', repsRaw = '3'] = process.argv.slice(2)
const n = Number(nRaw)
const chunks = Number(chunksRaw)
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
const waitGo = async () => {
  for (;;) {
    const l = await lines.next()
    if (l.done || l.value.trim() === 'go') return
  }
}

const sockets: WebSocket[] = []
let connectError = ''
let next = 0
async function connector(): Promise<void> {
  while (next < n && !connectError) {
    next++
    const ws = new WebSocket(url, { perMessageDeflate: false })
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve())
        ws.once('error', reject)
      })
      ws.on('error', () => {})
      sockets.push(ws)
    } catch (err) {
      connectError = (err as Error).message
    }
  }
}
const connectStarted = performance.now()
await Promise.all(Array.from({ length: 200 }, connector))
const connectSeconds = (performance.now() - connectStarted) / 1000
process.stdout.write(`connected ${sockets.length}\n`)
await waitGo()

const reps: Array<{ firstMs: number[]; lastMs: number[]; errors: number; seconds: number }> = []
for (let r = 0; r < Number(repsRaw); r++) {
  const firstMs: number[] = []
  const lastMs: number[] = []
  let errors = 0
  const started = performance.now()
  await Promise.all(
    sockets.map(
      (ws, i) =>
        new Promise<void>((resolve) => {
          let t0 = 0
          let first = true
          const onMessage = (d: Buffer) => {
            const s = d.subarray(0, 64).toString()
            if (first && s.startsWith('{"type":"assistant_message_chunk"')) {
              first = false
              firstMs.push(performance.now() - t0)
            } else if (s.startsWith('{"type":"status","status":"completed"')) {
              lastMs.push(performance.now() - t0)
              ws.off('message', onMessage)
              resolve()
            } else if (s.startsWith('{"type":"error"')) {
              errors++
              ws.off('message', onMessage)
              resolve()
            }
          }
          ws.on('message', onMessage)
          t0 = performance.now()
          ws.send(`{"type":"user_message","content":"count ${chunks}","session_id":"conc-${process.pid}-${i}"}`)
        }),
    ),
  )
  reps.push({ firstMs, lastMs, errors, seconds: (performance.now() - started) / 1000 })
  process.stderr.write(`    load: rep ${r + 1}: ${lastMs.length} runs completed, ${errors} errors in ${reps.at(-1)!.seconds.toFixed(2)} s\n`)
}
process.stdout.write('ran\n')
await waitGo()
for (const ws of sockets) ws.terminate()
// A large write to a pipe completes asynchronously: exit only once it is flushed.
process.stdout.write(`${JSON.stringify({ connected: sockets.length, connectError, connectSeconds, reps })}\n`, () => process.exit(0))
