// Load generator: the A2A SDK's own client (from the card at URL) streams "count N" with SendStreamingMessage
// and counts the artifact updates holding text until the task completes. Prints {eventsPerSecond: [...]}.
// Usage: a2a-stream.ts CARD_URL N REPS
import { randomUUID } from 'node:crypto'
import { Role } from '@a2a-js/sdk'
import { ClientFactory } from '@a2a-js/sdk/client'

const [url = '', nRaw = '20000', repsRaw = '3'] = process.argv.slice(2)
const n = Number(nRaw)
const client = await new ClientFactory().createFromUrl(url, '')
const results: number[] = []
for (let r = 0; r < Number(repsRaw); r++) {
  const message = {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text' as const, value: `count ${n}` }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  }
  const started = performance.now()
  let chunks = 0
  for await (const ev of client.sendMessageStream({ tenant: '', message, configuration: undefined, metadata: undefined })) {
    const p = ev.payload
    if (p?.$case === 'artifactUpdate' && p.value.artifact?.parts[0]?.content?.$case === 'text' && p.value.artifact.parts[0].content.value) chunks++
  }
  const seconds = (performance.now() - started) / 1000
  if (chunks < n) throw new Error(`received ${chunks} text chunks, expected ${n}`)
  results.push(n / seconds)
}
process.stdout.write(`${JSON.stringify({ eventsPerSecond: results })}\n`)
