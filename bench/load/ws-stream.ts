// Load generator: one WebSocket per repetition sends "count N" (HAI `user_message` or MyAgent
// `user.message`) in a new session and times until the run's last frame. Prints {eventsPerSecond: [...]}.
// Usage: ws-stream.ts URL hai|myagent N REPS
import WebSocket from 'ws'

const [url = '', dialect = 'hai', nRaw = '200000', repsRaw = '3'] = process.argv.slice(2)
const n = Number(nRaw)
const last = dialect === 'hai' ? '{"type":"status","status":"completed"' : '"event":"agent.final_answer"'
const results: number[] = []
for (let r = 0; r < Number(repsRaw); r++) {
  const ws = new WebSocket(url, { perMessageDeflate: false })
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  const sessionId = `bench-${process.pid}-${r}`
  let frames = 0
  const started = performance.now()
  await new Promise<void>((resolve) => {
    ws.on('message', (data: Buffer) => {
      frames++
      // The last frame is recognised by a fixed prefix (HAI) or a field near the start (MyAgent); the final
      // MyAgent answer holds all the text, so look only at the first 200 bytes.
      if (data.subarray(0, 200).toString().includes(last)) resolve()
    })
    const msg =
      dialect === 'hai'
        ? { type: 'user_message', content: `count ${n}`, session_id: sessionId }
        : { event: 'user.message', session_id: sessionId, content: `count ${n}` }
    ws.send(JSON.stringify(msg))
  })
  const seconds = (performance.now() - started) / 1000
  if (frames < n) throw new Error(`received ${frames} frames, expected at least ${n}`)
  results.push(n / seconds)
  ws.close()
}
process.stdout.write(`${JSON.stringify({ eventsPerSecond: results })}\n`)
