import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { pino, type Logger } from 'pino'
import type { Duplex } from 'node:stream'
import { ANONYMOUS, DEFAULT_LIMITS, ParlanceError, type Limits, type Principal } from '../core/index.js'
import type { AgentDefinition } from '../agent/index.js'
import { SessionManager } from '../session/index.js'
import { EventStore, createMemoryStore, type StoreBackend } from '../store/index.js'
import { WsTransport } from '../transports/ws.js'
import { bearerToken, makeAuthenticator, principalOf, type AuthOptions } from './auth.js'
import type { Endpoint, EndpointDeps } from './endpoint.js'
import { ENDPOINTS } from './endpoints.js'
import { RateLimiter } from './rate-limit.js'
import { sendJson } from './http-util.js'
import { createMetrics, type Metrics } from './metrics.js'

/** Options of `createServer`. */
export interface ServerOptions {
  /** Agents to serve; the first is the default for new sessions. */
  agents: readonly AgentDefinition[]
  /**
   * Where events and sessions are kept: 'sqlite' (a file in `dataDir`), 'memory', or a backend.
   * @default 'sqlite'
   */
  store?: 'sqlite' | 'memory' | StoreBackend
  /** Directory of the SQLite file. @default './.parlance' */
  dataDir?: string
  /** Limits and timeouts; see DEFAULT_LIMITS. */
  limits?: Partial<Limits>
  /** A pino logger, or false for none. @default pino at LOG_LEVEL or 'info' */
  logger?: Logger | false
  /** WebSocket ping interval (ms); 0 disables. @default 15000 */
  heartbeatIntervalMs?: number
  /**
   * Key for signed exports (MyAgent state) and tokens. @default PARLANCE_SECRET; else, with the SQLite
   * store, a random key generated once and kept in `dataDir/secret` (mode 0600); else random per process.
   * Nodes that must accept each other's exports share it.
   */
  secret?: string
  /** Authentication (off by default: everyone is `anonymous`). See README "Auth". */
  auth?: AuthOptions
}

/** A running (or ready to run) Parlance server. */
export interface ParlanceServer {
  readonly http: Server
  readonly sessions: SessionManager
  readonly metrics: Metrics
  readonly limits: Limits
  /** Starts listening; resolves with the base URL (`http://host:port`). */
  listen(port?: number, host?: string): Promise<string>
  /** Stops accepting, interrupts active runs (recorded in the store), flushes and closes everything. */
  close(): Promise<void>
}

async function openBackend(store: ServerOptions['store'], dataDir: string): Promise<StoreBackend> {
  if (store === 'memory') return createMemoryStore()
  if (store === undefined || store === 'sqlite') {
    const { createSqliteStore } = await import('../store/sqlite.js')
    return createSqliteStore({ file: join(dataDir, 'parlance.db') })
  }
  return store
}

function loadSecret(options: ServerOptions): Buffer {
  const configured = options.secret ?? process.env.PARLANCE_SECRET
  if (configured) return Buffer.from(configured, 'utf8')
  if (options.store !== undefined && options.store !== 'sqlite') return randomBytes(32)
  // Durable store: a durable key, so signed exports outlive a restart like the sessions they describe.
  const file = join(options.dataDir ?? './.parlance', 'secret')
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const key = randomBytes(32)
  try {
    writeFileSync(file, key.toString('base64url'), { mode: 0o600, flag: 'wx' })
    return key
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url')
    throw err
  }
}

/** Creates a Parlance server: HTTP endpoints and every dialect, mounted on one node:http server. */
export async function createServer(options: ServerOptions): Promise<ParlanceServer> {
  if (options.agents.length === 0) throw new TypeError('createServer needs at least one agent')
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits }
  const log = options.logger === false ? pino({ enabled: false }) : (options.logger ?? pino({ level: process.env.LOG_LEVEL ?? 'info' }))
  const backend = await openBackend(options.store, options.dataDir ?? './.parlance')
  let sessions: SessionManager | undefined
  const metrics = createMetrics(() => sessions?.activeRunCount ?? 0)
  const store = new EventStore(backend, {
    highWaterEvents: limits.maxPendingEvents,
    onCommit: (_n, ms) => metrics.storeCommit.observe(ms / 1000),
    onError: (err, attempt) => log.error({ err, attempt }, 'store commit failed; retrying'),
    onListenerError: (err) => log.error({ err }, 'delivering committed events failed'),
  })
  sessions = new SessionManager({
    store,
    agents: new Map(options.agents.map((a) => [a.name, a])),
    defaultAgent: options.agents[0]!.name,
    limits,
    hooks: {
      committed: (n) => metrics.events.inc(n),
      runStarted: (s) => log.info({ sessionId: s.id, runId: s.activeRunId, agent: s.agentName }, 'run started'),
      runEnded: (s, runId, outcome) =>
        log[outcome === 'finished' || outcome === 'interrupted' || outcome === 'cancelled' ? 'info' : 'warn'](
          { sessionId: s.id, runId, outcome },
          'run ended',
        ),
    },
  })
  const manager = sessions
  const ws = new WsTransport({
    hardMaxPayloadBytes: limits.hardMaxPayloadBytes,
    maxOutboundBufferBytes: limits.maxOutboundBufferBytes,
    heartbeatIntervalMs: options.heartbeatIntervalMs,
  })

  const secret = loadSecret(options)
  const http = createHttpServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      log.error({ err }, 'HTTP handler failed')
      if (!res.headersSent) sendJson(res, 500, { error: { code: 'internal', message: 'internal error' } })
      else res.destroy()
    })
  })

  // Auth: the gate below authenticates every request and upgrade once and records the principal here;
  // endpoints read it with `deps.principal(req)`.
  const auth = makeAuthenticator({ token: options.auth?.token, authenticate: options.auth?.authenticate })
  const principals = new WeakMap<IncomingMessage, Principal>()
  const rateLimiter = new RateLimiter(limits)
  const authenticate = async (req: IncomingMessage, token: string | null): Promise<Principal | null> => {
    const p = await principalOf(auth, req, token)
    if (p !== null) principals.set(req, p)
    else metrics.authFailures.inc()
    return p
  }
  const deps: EndpointDeps = {
    sessions: manager,
    limits,
    metrics,
    log,
    ws,
    http,
    secret,
    authenticate,
    admission: (principal) => rateLimiter.forConnection(principal),
    principal(req) {
      const p = principals.get(req)
      if (p !== undefined) return p
      if (auth === null) return ANONYMOUS
      // An endpoint served a request that bypassed the gate: fail closed, loudly.
      throw new ParlanceError('unauthorized', 'request was not authenticated')
    },
  }
  const endpoints: Endpoint[] = ENDPOINTS.map((make) => make(deps))
  const protectMetrics = auth !== null && options.auth?.protectMetrics !== false
  const ownUpgrades = endpoints.flatMap((e) => e.ownUpgradePaths ?? [])

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (req.method === 'GET' && url.pathname === '/healthz') {
      const storeOk = await backend.ping().catch(() => false)
      return sendJson(res, storeOk ? 200 : 503, { status: storeOk ? 'ok' : 'degraded', store: { kind: backend.kind, ok: storeOk } })
    }
    const principal = auth === null ? ANONYMOUS : await authenticate(req, bearerToken(req, url))
    if (principal === null && (url.pathname !== '/metrics' || protectMetrics)) {
      const message = 'missing or invalid credentials: send Authorization: Bearer <token>'
      for (const e of endpoints) if (e.unauthorized?.(req, res, url, message)) return
      return sendJson(res, 401, { error: { code: 'unauthorized', message } }, { 'www-authenticate': 'Bearer' })
    }
    if (req.method === 'GET' && url.pathname === '/metrics') {
      res.writeHead(200, { 'content-type': metrics.registry.contentType })
      res.end(await metrics.registry.metrics())
      return
    }
    for (const e of endpoints) if (e.request?.(req, res, url)) return
    if (req.method === 'GET' && url.pathname === '/') {
      const paths: Record<string, string> = {}
      for (const e of endpoints) Object.assign(paths, e.paths)
      return sendJson(res, 200, {
        name: 'parlance',
        agents: manager.agentNames(),
        endpoints: { ...paths, healthz: '/healthz', metrics: '/metrics' },
      })
    }
    sendJson(res, 404, { error: { code: 'not_found', message: `no route ${req.method} ${url.pathname}` } })
  }

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void => {
    for (const e of endpoints) if (e.upgrade?.(req, socket, head, url)) return
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
  }
  http.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (auth === null || ownUpgrades.some((p) => url.pathname.startsWith(p))) return upgrade(req, socket, head, url)
    const onError = () => socket.destroy()
    socket.on('error', onError)
    void authenticate(req, bearerToken(req, url)).then((p) => {
      socket.off('error', onError)
      if (socket.destroyed) return
      // WebSocket clients learn why from the close frame (4401), which browsers expose and HTTP 401 is not.
      if (p === null) return ws.refuse(req, socket, head, 4401, 'unauthorized: missing or invalid token')
      upgrade(req, socket, head, url)
    })
  })

  let closed = false
  return {
    http,
    sessions: manager,
    metrics,
    limits,
    listen(port = 8000, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        http.once('error', reject)
        http.listen(port, host, () => {
          http.off('error', reject)
          const addr = http.address() as AddressInfo
          const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address
          resolve(`http://${h}:${addr.port}`)
        })
      })
    },
    async close() {
      if (closed) return
      closed = true
      const httpClosed = new Promise<void>((resolve) => http.close(() => resolve()))
      await manager.shutdown()
      for (const e of endpoints) await e.close?.()
      ws.close()
      http.closeAllConnections()
      await httpClosed
      await backend.close()
    },
  }
}
