// Load generator: sends "count N" over HAI and times until status completed. Prints JSON.
import WebSocket from 'ws'

const [url = '', nRaw = '200000', repsRaw = '3'] = process.argv.slice(2)
const n = Number(nRaw)
const ws = new WebSocket(url)
await new Promise((resolve, reject) => {
  ws.once('open', resolve)
  ws.once('error', reject)
})
const results: number[] = []
for (let r = 0; r < Number(repsRaw); r++) {
  const sessionId = `bench-${process.pid}-${r}`
  let frames = 0
  const started = performance.now()
  await new Promise<void>((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      frames++
      const text = data.toString()
      if (text.startsWith('{"type":"status","status":"completed"')) {
        ws.off('message', onMessage)
        resolve()
      }
    }
    ws.on('message', onMessage)
    ws.send(JSON.stringify({ type: 'user_message', content: `count ${n}`, session_id: sessionId }))
  })
  const seconds = (performance.now() - started) / 1000
  if (frames < n) throw new Error(`received ${frames} frames, expected at least ${n}`)
  results.push(n / seconds)
}
ws.close()
process.stdout.write(`${JSON.stringify({ eventsPerSecond: results })}\n`)
