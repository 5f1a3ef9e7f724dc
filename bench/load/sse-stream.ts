// Load generator: POSTs an AG-UI RunAgentInput whose last user message is "count N" and times until
// RUN_FINISHED, counting TEXT_MESSAGE_CONTENT frames. Prints {eventsPerSecond: [...]}.
// Usage: sse-stream.ts URL N REPS
import { request } from 'node:http'

const [url = '', nRaw = '200000', repsRaw = '3'] = process.argv.slice(2)
const n = Number(nRaw)
const results: number[] = []
for (let r = 0; r < Number(repsRaw); r++) {
  const body = JSON.stringify({
    threadId: `bench-${process.pid}-${r}`,
    runId: `run-${r}`,
    state: {},
    messages: [{ id: `u${r}`, role: 'user', content: `count ${n}` }],
    tools: [],
    context: [],
    forwardedProps: {},
  })
  const started = performance.now()
  const frames = await new Promise<number>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' } }, (res) => {
      let count = 0
      let tail = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => {
        const s = tail + d
        for (let i = s.indexOf('TEXT_MESSAGE_CONTENT'); i >= 0; i = s.indexOf('TEXT_MESSAGE_CONTENT', i + 1)) count++
        tail = s.slice(-19) // a marker split across two chunks is counted once
        if (tail.includes('TEXT_MESSAGE_CONTENT')) tail = ''
      })
      res.on('end', () => resolve(count))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
  const seconds = (performance.now() - started) / 1000
  if (frames < n) throw new Error(`received ${frames} content frames, expected ${n}`)
  results.push(n / seconds)
}
process.stdout.write(`${JSON.stringify({ eventsPerSecond: results })}\n`)
