// Load generator: the MCP SDK's own Client over StreamableHTTPClientTransport calls ask_demo "count N" with a
// progress token and counts the progress notifications until the result. Prints {eventsPerSecond: [...]}.
// Usage: mcp-stream.ts URL N REPS
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const [url = '', nRaw = '20000', repsRaw = '3'] = process.argv.slice(2)
const n = Number(nRaw)
const client = new Client({ name: 'bench', version: '1' })
await client.connect(new StreamableHTTPClientTransport(new URL(url)))
const results: number[] = []
for (let r = 0; r < Number(repsRaw); r++) {
  let progress = 0
  const started = performance.now()
  await client.callTool({ name: 'ask_demo', arguments: { message: `count ${n}` } }, undefined, {
    timeout: 600_000,
    onprogress: () => void progress++,
  })
  const seconds = (performance.now() - started) / 1000
  if (progress < n) throw new Error(`received ${progress} progress notifications, expected ${n}`)
  results.push(n / seconds)
}
await client.close()
process.stdout.write(`${JSON.stringify({ eventsPerSecond: results })}\n`)
