import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { isAgent, type AgentDefinition } from '../agent/index.js'
import { demoAgent } from '../agents/demo/index.js'
import { createServer } from '../server/index.js'

/** Options of `parlance serve`. */
export interface ServeOptions {
  port: number
  host: string
  dataDir: string
  store: 'sqlite' | 'memory'
  /** 'demo' or paths of modules whose default (or `agent`) export is an agent. */
  agents: string[]
  /** Static bearer token every client must present; absent: no auth. */
  token?: string
  /** Model of `--agent openai` (base URL and key from OPENAI_BASE_URL / OPENAI_API_KEY). */
  model?: string
}

/** Loads `demo`, `openai` (needs `model`) or an agent module (a built .js/.mjs file; for .ts run the CLI under tsx). */
export async function loadAgent(spec: string, opts: { model?: string } = {}): Promise<AgentDefinition> {
  if (spec === 'demo') return demoAgent
  if (spec === 'openai') {
    if (!opts.model) throw new Error('--agent openai needs --model NAME (base URL and key from OPENAI_BASE_URL / OPENAI_API_KEY)')
    const { openaiAgent } = await import('../agents/openai/index.js')
    return openaiAgent({ model: opts.model })
  }
  const mod = (await import(pathToFileURL(resolve(spec)).href)) as Record<string, unknown>
  const candidate = mod.default ?? mod.agent
  if (!isAgent(candidate)) throw new Error(`${spec} does not export an agent (export default defineAgent({...}))`)
  return candidate
}

/** Longest a graceful shutdown may take before the process exits anyway (ms). */
const SHUTDOWN_MS = 10_000

/** Starts a server and stops it cleanly on SIGINT/SIGTERM (a second signal exits at once). */
export async function serve(options: ServeOptions): Promise<void> {
  const agents = await Promise.all((options.agents.length ? options.agents : ['demo']).map((a) => loadAgent(a, { model: options.model })))
  const server = await createServer({ agents, store: options.store, dataDir: options.dataDir, auth: options.token ? { token: options.token } : undefined })
  const url = await server.listen(options.port, options.host)
  const ws = url.replace('http', 'ws')
  process.stdout.write(
    `parlance listening on ${url}\n  agents: ${agents.map((a) => a.name).join(', ')}\n` +
      `  HAI:     ${ws}/ws\n  AG-UI:   POST ${url}/agui\n  HUMA:    Socket.IO ${url}/socket.io/\n  MyAgent: ${ws}/myagent\n  HugAI:   ${ws}/rpc, POST ${url}/rpc\n  AI SDK:  POST ${url}/api/chat\n` +
      `  health:  ${url}/healthz  metrics: ${url}/metrics\n` +
      (options.token ? '  auth:    bearer token required (Authorization: Bearer …, ?access_token=…, Socket.IO auth.token)\n' : ''),
  )
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) process.exit(1)
    stopping = true
    process.stdout.write(`\n${signal}: stopping (active runs are recorded as interrupted)…\n`)
    // Bounded: a store that does not flush in time must not keep the process alive forever.
    setTimeout(() => {
      process.stderr.write(`still stopping after ${SHUTDOWN_MS} ms; exiting\n`)
      process.exit(1)
    }, SHUTDOWN_MS).unref()
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`error while stopping: ${String(err)}\n`)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}
