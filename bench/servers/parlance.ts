// A Parlance server for benchmarks: the demo agent (or the default export of --agent MODULE) on 127.0.0.1,
// port 0, no logging.
// Usage: parlance.ts --store memory|sqlite [--data DIR] [--limits '{"typingMsPerChar":0}'] [--agent bench/agents/paced.ts] [--heartbeat MS] [--loop-delay]
// --loop-delay: samples the event loop's delay (monitorEventLoopDelay, 1 ms resolution) and, with a 1 ms timer, the
// process CPU time spent between two turns of the loop; each 'loop-delay' message on the IPC channel is answered with
// {p50, p99, max, cpuMax} (ms, since the previous one) and starts over (bench/lib/proc.ts: ServerProcess.loopDelay).
// cpuMax separates the server's own blocking from a busy machine's scheduling: a gap the server spent descheduled
// is long in wall time but short in CPU. (Signals were used first: two sent while the server waited for a core
// merged into one, and the second report never came.)
import { resolve } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { createServer, demoAgent, type AgentDefinition, type Limits } from '../../src/index.js'

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const store = arg('--store') === 'memory' ? 'memory' : 'sqlite'
const limits = JSON.parse(arg('--limits') ?? '{}') as Partial<Limits>
const agentModule = arg('--agent')
const agent = agentModule ? ((await import(pathToFileURL(resolve(agentModule)).href)) as { default: AgentDefinition }).default : demoAgent
const heartbeat = arg('--heartbeat')
const server = await createServer({
  agents: [agent],
  store,
  dataDir: arg('--data') ?? '.parlance-bench',
  limits,
  logger: false,
  ...(heartbeat ? { heartbeatIntervalMs: Number(heartbeat) } : {}),
})
if (process.argv.includes('--loop-delay')) {
  const loop = monitorEventLoopDelay({ resolution: 1 })
  loop.enable()
  const ms = (ns: number) => Math.round(ns / 1e4) / 100
  let cpuMax = 0
  let last = process.cpuUsage()
  const tick = () => {
    const now = process.cpuUsage()
    cpuMax = Math.max(cpuMax, (now.user + now.system - last.user - last.system) / 1000)
    last = now
    setTimeout(tick, 1).unref()
  }
  tick()
  process.on('message', (m) => {
    if (m !== 'loop-delay') return
    process.send?.({ p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max), cpuMax: Math.round(cpuMax * 100) / 100 })
    loop.reset()
    cpuMax = 0
  })
}
const url = await server.listen(0, '127.0.0.1')
process.stdout.write(`listening ${new URL(url).port}\n`)
const stop = () => {
  setTimeout(() => process.exit(1), 5_000).unref()
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
