// The server the live fuzzer attacks: the demo agent, memory store, rate limits off (so every frame reaches a
// decoder instead of the token bucket) and no cap on sessions per principal (each valid A2A or /api/chat body
// without a session id opens one: past the default 10,000 every valid body would be refused before it ran),
// short timeouts. Prints "listening on PORT".
import { createServer, demoAgent } from '../src/index.js'

const server = await createServer({
  agents: [demoAgent],
  store: 'memory',
  logger: false,
  limits: {
    connectionRatePerSec: 0,
    principalRatePerSec: 0,
    approvalTimeoutMs: 200,
    clientToolTimeoutMs: 200,
    typingMsPerChar: 0,
    messageConfirmTimeoutMs: 200,
    maxConcurrentRuns: 0,
    maxSessionsPerPrincipal: 0,
  },
})
const url = await server.listen(0, '127.0.0.1')
process.stdout.write(`listening on ${new URL(url).port}\n`)
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
