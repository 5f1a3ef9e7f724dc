import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { isAgent, type AgentDefinition, type ToolDefinition } from '../agent-api/index.js'
import { demoAgent } from '../agents/demo/index.js'
import { mcpToolsOf, openIntegrations } from './mcp.js'
import type { Limits, OnBusy } from '../core/index.js'
import { loadErrorText, loadModule } from './load-module.js'
import { createServer, DRAIN_TIMEOUT_MS, type ClusterOptions, type RedisUrl } from '../server/index.js'

/** Options of `parlance serve`. */
export interface ServeOptions {
  port: number
  host: string
  dataDir: string
  /** 'sqlite', 'memory', or a Redis URL (this process is then a node of a cluster). */
  store: 'sqlite' | 'memory' | RedisUrl
  /** Cluster settings, with a Redis store. */
  cluster?: ClusterOptions
  /** 'demo', 'openai', 'agui:URL' (a remote AG-UI agent) or paths of modules whose default (or `agent`) export is an agent. */
  agents: string[]
  /** Static bearer token every client must present; absent: no auth. */
  token?: string
  /** `--no-auth`: listen on a non-loopback address without auth (refused otherwise). */
  allowUnauthenticated?: boolean
  /** `--no-inspector` makes it false: no inspector page or API. */
  inspector?: boolean
  /** Model of `--agent openai` (base URL and key from OPENAI_BASE_URL / OPENAI_API_KEY). */
  model?: string
  /** Limits changed from their defaults (`--limit NAME=VALUE`). */
  limits?: Partial<Limits>
  /** Rate limits key on X-Forwarded-For's first address (`--trust-proxy`). */
  trustProxy?: boolean
  /** `--allow-origin`: browser origins that may call the server ('*': any); default: loopback pages on a loopback host. */
  origins?: readonly string[] | '*'
  /** `--allow-host`: Host names answered besides loopback names. */
  allowedHosts?: readonly string[]
  /** `--on-busy`: the server's policy for a message arriving during a run. */
  onBusy?: OnBusy
  /** `--expose-errors`: clients get an agent's failure as thrown (createServer's `exposeErrors`). */
  exposeErrors?: boolean
  /** `--allow-webhook-host`: internal hosts A2A push webhooks may reach. */
  allowWebhookHosts?: readonly string[]
  /** `--mcp`: MCP servers (URLs, or `stdio:COMMAND ARG…`) whose tools `--agent openai` gets. */
  mcp?: readonly string[]
  /** `--integration NAME=URL`: HugAI integrations, NAME → an MCP server (URL or `stdio:…`). */
  integrations?: Readonly<Record<string, string>>
  /** `--drain-timeout`: how long SIGTERM lets active runs finish before interrupting them (ms). @default 30 s */
  drainTimeoutMs?: number
}

/**
 * Loads `demo`, `openai` (needs `model`), `agui:URL` / `a2a:URL` (a remote AG-UI / A2A agent, bridged) or an agent module (a
 * built .js/.mjs file; for .ts run the CLI under tsx).
 */
export async function loadAgent(
  spec: string,
  opts: { model?: string; name?: string; tools?: Record<string, ToolDefinition> } = {},
): Promise<AgentDefinition> {
  if (spec === 'demo') return demoAgent
  if (spec.startsWith('agui:')) {
    const url = spec.slice('agui:'.length)
    if (!url) throw new Error("--agent agui:URL needs the remote agent's AG-UI URL, e.g. --agent agui:http://127.0.0.1:9000/agui")
    const { aguiBridgeAgent } = await import('../agents/agui/index.js')
    try {
      return aguiBridgeAgent({ url, ...(opts.name ? { name: opts.name } : {}) })
    } catch (err) {
      throw new Error(`--agent ${spec}: ${(err as Error).message}`, { cause: err })
    }
  }
  if (spec.startsWith('a2a:')) {
    const url = spec.slice('a2a:'.length)
    if (!url) throw new Error("--agent a2a:URL needs the remote agent's base URL or agent card URL, e.g. --agent a2a:http://127.0.0.1:9000")
    const { a2aBridgeAgent } = await import('../agents/a2a/index.js')
    try {
      return a2aBridgeAgent({ url, ...(opts.name ? { name: opts.name } : {}) })
    } catch (err) {
      throw new Error(`--agent ${spec}: ${(err as Error).message}`, { cause: err })
    }
  }
  if (spec === 'openai') {
    if (!opts.model) throw new Error('--agent openai needs --model NAME (base URL and key from OPENAI_BASE_URL / OPENAI_API_KEY)')
    const { openaiAgent } = await import('../agents/openai/index.js')
    return openaiAgent({ model: opts.model, ...(opts.tools ? { tools: opts.tools } : {}) })
  }
  const file = resolve(spec)
  if (!existsSync(file)) {
    if (!/[/\\]|\.[cm]?[jt]s$/.test(spec))
      throw new Error(
        `unknown agent "${spec}": use demo, openai (with --model NAME), agui:URL (a remote AG-UI agent), a2a:URL (a remote A2A agent), or the path of an agent module (./my-agent.js)`,
      )
    throw new Error(`--agent ${spec}: no such file ${file}`)
  }
  const mod = await loadModule(file, spec).catch((err: unknown) => {
    // The module's own failure: the stack says which file and line of the agent threw (the message alone does not).
    if (err instanceof Error && err.message.startsWith(`--agent ${spec}:`)) throw err
    throw new Error(`--agent ${spec}: the module threw while loading:\n${loadErrorText(err, file)}`, { cause: err })
  })
  const candidate = mod.default ?? mod.agent
  if (!isAgent(candidate)) throw new Error(`${spec} does not export an agent (export default defineAgent({...}))`)
  return candidate
}

/**
 * Says on stderr when a bridged AG-UI agent does not answer now. Only a warning: the remote may start later,
 * and until it answers each run fails saying the remote agent could not be reached.
 */
async function warnIfUnreachable(url: string): Promise<void> {
  try {
    const res = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(2_000) })
    await res.body?.cancel()
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message
    process.stderr.write(`warning: the AG-UI agent at ${url} cannot be reached now (${cause}); runs fail until it answers\n`)
  }
}

/** A listen failure said in the CLI's words: which address, and the flag that changes it. */
function listenError(err: unknown, port: number, host: string): unknown {
  const code = (err as NodeJS.ErrnoException).code
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`
  if (code === 'EADDRINUSE')
    return new Error(
      `port ${port} is already in use on ${host} (another parlance, or another server): stop it, or pick another port with --port N (or PORT=N; --port 0 picks a free one)`,
      { cause: err },
    )
  if (code === 'EACCES')
    return new Error(
      `no permission to listen on ${where}: ports below 1024 need privileges; use --port 8000 (or PORT), or a reverse proxy in front`,
      { cause: err },
    )
  if (code === 'EADDRNOTAVAIL') return new Error(`cannot listen on ${where}: this machine has no address ${host} (--host)`, { cause: err })
  return err
}

/** Longest a graceful shutdown may take before the process exits anyway (ms). */
const SHUTDOWN_MS = 10_000

/**
 * Starts a server. SIGTERM (a deploy, a rolling restart) drains: no new runs, `/healthz` 503, active runs finish (up
 * to the drain timeout), then it stops. SIGINT (Ctrl-C), or a signal while draining, stops at once: active runs are
 * recorded as interrupted. A signal while stopping exits.
 */
export async function serve(options: ServeOptions): Promise<void> {
  const specs = options.agents.length ? options.agents : ['demo']
  // Several bridges of a kind: agui, agui-2, … (they would all be named agui, and the last would take every run).
  const bridges = { agui: 0, a2a: 0 }
  const named = (spec: string): { name?: string } => {
    const kind = spec.startsWith('agui:') ? 'agui' : spec.startsWith('a2a:') ? 'a2a' : null
    return kind && bridges[kind]++ > 0 ? { name: `${kind}-${bridges[kind]}` } : {}
  }
  // MCP servers: their tools for --agent openai (--mcp), HugAI integrations (--integration); closed at shutdown.
  const mcp = options.mcp?.length ? await mcpToolsOf(options.mcp) : null
  const integrations =
    options.integrations && Object.keys(options.integrations).length
      ? await openIntegrations(options.integrations).catch(async (err: unknown) => {
          await mcp?.close()
          throw err
        })
      : undefined
  const agents = await Promise.all(specs.map((a) => loadAgent(a, { model: options.model, ...named(a), ...(mcp ? { tools: mcp.tools } : {}) })))
  const server = await createServer({
    ...(integrations ? { integrations } : {}),
    agents,
    store: options.store,
    dataDir: options.dataDir,
    cluster: options.cluster,
    auth: options.token ? { token: options.token } : undefined,
    ...(options.allowUnauthenticated ? { allowUnauthenticated: true } : {}),
    ...(options.inspector === false ? { inspector: false } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.trustProxy ? { trustProxy: true } : {}),
    ...(options.origins ? { origins: options.origins } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.onBusy ? { onBusy: options.onBusy } : {}),
    ...(options.exposeErrors ? { exposeErrors: true } : {}),
    ...(options.allowWebhookHosts?.length ? { allowWebhookHosts: options.allowWebhookHosts } : {}),
  })
  const url = await server.listen(options.port, options.host).catch(async (err: unknown) => {
    await server.close() // the store is open (its data directory locked) even though nothing listens
    await mcp?.close()
    throw listenError(err, options.port, options.host)
  })
  const ws = url.replace('http', 'ws')
  process.stdout.write(
    `parlance listening on ${url}\n${options.inspector === false ? '' : `  inspector: ${url}/ (open it in a browser)\n`}  agents: ${agents.map((a) => a.name).join(', ')}\n` +
      (server.sessions.nodeId ? `  node:    ${server.sessions.nodeId} (cluster on ${options.store})\n` : '') +
      `  HAI:     ${ws}/ws\n  AG-UI:   POST ${url}/agui\n  HUMA:    Socket.IO ${url}/socket.io/\n  MyAgent: ${ws}/myagent\n  HugAI:   ${ws}/rpc, POST ${url}/rpc\n  AI SDK:  POST ${url}/api/chat\n  MCP:     ${url}/mcp\n  A2A:     POST ${url}/a2a (card: ${url}/.well-known/agent-card.json)\n` +
      `  health:  ${url}/healthz  metrics: ${url}/metrics\n` +
      `  browser: ${server.originPolicy} (--allow-origin, --allow-host)\n` +
      (options.token
        ? '  auth:    bearer token required (Authorization: Bearer …, browser WebSocket: the parlance.bearer subprotocol, Socket.IO auth.token)\n'
        : ''),
  )
  for (const spec of specs) if (spec.startsWith('agui:')) void warnIfUnreachable(spec.slice('agui:'.length))
  const drainMs = options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS
  let phase: 'serving' | 'draining' | 'stopping' = 'serving'
  const finish = (work: Promise<unknown>) =>
    work
      .then(() => mcp?.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          process.stderr.write(`error while stopping: ${String(err)}\n`)
          process.exit(1)
        },
      )
  const stop = (signal: string) => {
    if (phase === 'stopping') process.exit(1)
    phase = 'stopping'
    process.stdout.write(`\n${signal}: stopping (active runs are recorded as interrupted)…\n`)
    // Bounded: a store that does not flush in time must not keep the process alive forever.
    setTimeout(() => {
      process.stderr.write(`still stopping after ${SHUTDOWN_MS} ms; exiting\n`)
      process.exit(1)
    }, SHUTDOWN_MS).unref()
    void finish(server.close())
  }
  const drain = (signal: string) => {
    if (phase !== 'serving') return stop(signal)
    phase = 'draining'
    const runs = server.sessions.activeRunCount
    process.stdout.write(`\n${signal}: draining: no new runs; ${runs} active run${runs === 1 ? '' : 's'} may finish (up to ${drainMs} ms)…\n`)
    setTimeout(() => {
      process.stderr.write(`still stopping ${SHUTDOWN_MS} ms after the drain timeout; exiting\n`)
      process.exit(1)
    }, drainMs + SHUTDOWN_MS).unref()
    void finish(
      server.drain({ timeoutMs: drainMs }).then((all) => {
        phase = 'stopping'
        if (!all) process.stdout.write('drain timeout: the runs still active are recorded as interrupted\n')
      }),
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => drain('SIGTERM'))
}
