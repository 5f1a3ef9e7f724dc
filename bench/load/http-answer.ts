// Load generator: POSTs one "count N" request to an HTTP streaming dialect and times it until the stream ends,
// counting its text deltas. Prints {eventsPerSecond: [...]}.
// Usage: http-answer.ts URL KIND N REPS   (KIND: agui | aisdk | chat | responses)
import { request } from 'node:http'

const [url = '', kind = 'aisdk', nRaw = '20000', repsRaw = '3'] = process.argv.slice(2)
const n = Number(nRaw)
const text = `count ${n}`
/** The request body and the marker that opens each text delta, per dialect. */
const KINDS: Record<string, { body: (r: number) => unknown; marker: string }> = {
  agui: {
    body: (r) => ({
      threadId: `bench-${process.pid}-${r}`,
      runId: `run-${r}`,
      state: {},
      messages: [{ id: `u${r}`, role: 'user', content: text }],
      tools: [],
      context: [],
      forwardedProps: {},
    }),
    marker: 'TEXT_MESSAGE_CONTENT',
  },
  aisdk: {
    body: (r) => ({ id: `bench-${process.pid}-${r}`, messages: [{ id: `u${r}`, role: 'user', parts: [{ type: 'text', text }] }] }),
    marker: '"text-delta"',
  },
  chat: { body: () => ({ model: 'demo', stream: true, messages: [{ role: 'user', content: text }] }), marker: '"content":"' },
  responses: { body: () => ({ model: 'demo', stream: true, input: text }), marker: 'event: response.output_text.delta' },
}
const k = KINDS[kind]
if (!k) throw new Error(`unknown kind ${kind}`)
const results: number[] = []
for (let r = 0; r < Number(repsRaw); r++) {
  const started = performance.now()
  const frames = await new Promise<number>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' } }, (res) => {
      let count = 0
      let tail = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => {
        const s = tail + d
        for (let i = s.indexOf(k.marker); i >= 0; i = s.indexOf(k.marker, i + 1)) count++
        tail = s.slice(-(k.marker.length - 1)) // a marker split across two chunks is counted once
      })
      res.on('end', () => resolve(count))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(JSON.stringify(k.body(r)))
  })
  const seconds = (performance.now() - started) / 1000
  if (frames < n) throw new Error(`${kind}: received ${frames} text deltas, expected ${n}`)
  results.push(n / seconds)
}
process.stdout.write(`${JSON.stringify({ eventsPerSecond: results })}\n`)
