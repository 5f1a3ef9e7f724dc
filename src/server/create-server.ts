import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { readFileSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { pino, type Logger } from 'pino'
import type { Duplex } from 'node:stream'
import { ANONYMOUS, DEFAULT_LIMITS, ON_BUSY, ParlanceError, type Limits, type OnBusy, type Principal } from '../core/index.js'
import type { AgentDefinition, ToolDefinition } from '../agent/index.js'
import { SessionManager } from '../session/index.js'
import type { ClusterPort } from '../session/cluster.js'
import { EventStore, createMemoryStore, type StoreBackend } from '../store/index.js'
import { redisKeys } from '../store/redis/keys.js'
import { WsTransport } from '../transports/ws.js'
import { bearerToken, makeAuthenticator, principalOf, type AuthOptions } from './auth.js'
import type { Dialect, Endpoint, EndpointDeps } from '../binding/index.js'
import { withDialects } from '../dialects/registry.js'
import { inspectorEndpoint, type InspectorDeps } from './inspector-endpoint.js'
import { sessionsEndpoint } from './sessions-endpoint.js'
import { protectedModeError } from './protected-mode.js'
import { RateLimiter } from '../binding/rate-limit.js'
import { sendJson } from '../binding/http-util.js'
import { countCommitted, createMetrics, type Metrics } from '../binding/metrics.js'
import { isLoopbackHostname, originPolicy, type OriginSettings } from './origin-policy.js'
import { OriginGate } from './origin-gate.js'

/** Options of `createServer`. */
export interface ServerOptions {
  /** Agents to serve; the first is the default for new sessions. */
  agents: readonly AgentDefinition[]
  /**
   * Where events and sessions are kept: 'sqlite' (a file in `dataDir`), 'memory', a backend, or a Redis URL
   * (`redis://host:port`), which also makes this server a node of a cluster sharing that Redis (see `cluster`).
   * @default 'sqlite'
   */
  store?: 'sqlite' | 'memory' | StoreBackend | RedisUrl
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
  /** Protected mode: with auth off, `listen()` refuses non-loopback addresses unless this opts in. @default false */
  allowUnauthenticated?: boolean
  /** false: no inspector page or API (they answer 404). @default true */
  inspector?: boolean
  /** Cluster settings, used with a Redis store. */
  cluster?: ClusterOptions
  /** Directory of the built inspector page served at `GET /`. @default this package's `dist/inspector` */
  inspectorDir?: string
  /**
   * Behind a reverse proxy: take the client's address from the first entry of `X-Forwarded-For` (rate limits
   * key on it when auth is off). Only when the proxy sets that header itself: a client could forge it otherwise.
   * @default false
   */
  trustProxy?: boolean
  /**
   * Dialects to serve besides the built-in ones (mounted after them); one named like a built-in replaces it.
   * See docs/ADDING-A-DIALECT.md.
   */
  dialects?: readonly Dialect[]
  /**
   * What a message that arrives while a run is active does, unless the message or its agent says: 'interrupt',
   * 'enqueue', 'reject' or 'rollback' (README "Concurrent messages, regenerate and forks"). @default 'interrupt'
   */
  onBusy?: OnBusy
  /**
   * Connections the kernel queues before the server accepts them (capped by `net.core.somaxconn`). Node's own
   * default, 511, overflowed when 2,000 AG-UI clients connected within one second to a busy server: the kernel
   * dropped their SYNs, and they got their first token 1–7 s late (SYN retries) or a reset.
   * @default 4096
   */
  listenBacklog?: number
  /**
   * Browser origins whose pages may call the server (CORS, Socket.IO, WebSocket `Origin`): `https://app.example.com`,
   * `http://localhost:3000`, `https://*.example.com`, or '*' for any page. Same-origin pages are always allowed;
   * a request carrying any other `Origin` is refused with 403. README "Front ends in the browser".
   * @default loopback origins (any port) when listening on a loopback address, else same-origin only
   */
  origins?: OriginSettings['origins']
  /**
   * Host names accepted in the `Host` header besides loopback names (`.example.com`: the domain and its
   * subdomains). When the server listens on loopback, any other `Host` is refused with 403 (DNS rebinding).
   */
  allowedHosts?: OriginSettings['allowedHosts']
  /**
   * Hosts A2A push-notification webhooks may reach although they are internal (loopback, private, link-local…):
   * host names as the webhook URL spells them, or IP addresses. Any other internal address is refused.
   * @default []
   */
  allowWebhookHosts?: readonly string[]
  /** HugAI `tool/integration` targets: name → tools record (e.g. `mcpTools`), closed with the server (docs/dialects/hugai.md). */
  integrations?: Readonly<Record<string, Readonly<Record<string, ToolDefinition>>>>
}

/** A Redis connection URL. */
export type RedisUrl = `redis://${string}` | `rediss://${string}`

/** How a node joins a cluster (a Redis store). */
export interface ClusterOptions {
  /** Unique per node. @default PARLANCE_NODE_ID, else `${hostname}-${pid}-${random}` */
  nodeId?: string
  /** Prefix of every Redis key and channel. @default PARLANCE_REDIS_PREFIX, else 'parlance:' */
  prefix?: string
  /** Run lease time to live (ms): a dead node's runs are ended by another node within about this. @default 5000 */
  leaseMs?: number
  /** Approximate cap on each session's stream in Redis; 0 keeps everything. @default 0 */
  maxEventsPerSession?: number
}

/** A running (or ready to run) Parlance server. */
export interface ParlanceServer {
  readonly http: Server
  readonly sessions: SessionManager
  readonly metrics: Metrics
  readonly limits: Limits
  /** What the origin policy allows, in words (for a startup banner). */
  readonly originPolicy: string
  /** Starts listening; resolves with the base URL (`http://host:port`). */
  listen(port?: number, host?: string): Promise<string>
  /** Stops accepting, interrupts active runs (recorded in the store), flushes and closes everything. */
  close(): Promise<void>
}

/** A URL with its password hidden, for messages. */
function redacted(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return url
  }
}

function isRedisUrl(store: ServerOptions['store']): store is RedisUrl {
  return typeof store === 'string' && /^rediss?:\/\//.test(store)
}

async function openBackend(store: Exclude<ServerOptions['store'], RedisUrl>, dataDir: string, log: Logger): Promise<StoreBackend> {
  if (store === 'memory') return createMemoryStore()
  if (store === undefined || store === 'sqlite') {
    const { createSqliteStore } = await import('../store/sqlite.js')
    const file = join(dataDir, 'parlance.db')
    return createSqliteStore({
      file,
      onCheckpointError: (message) => log.warn({ message }, 'SQLite WAL checkpoint'),
      onMigration: (message) => log.info({ file }, message),
    })
  }
  return store
}

/** The cluster's signing key: generated by the first node into Redis, read by the others. */
async function sharedSecret(c: NonNullable<EndpointDeps['cluster']>): Promise<Buffer> {
  const key = c.keys.secret
  await c.redis.set(key, randomBytes(32).toString('base64url'), 'NX')
  const value = await c.redis.get(key)
  if (!value) throw new Error(`cannot read the cluster's signing key ${key} from Redis`)
  return Buffer.from(value, 'base64url')
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
  const names = options.agents.map((a) => a.name)
  const twice = names.find((n, i) => names.indexOf(n) !== i)
  if (twice !== undefined) throw new TypeError(`two agents are named "${twice}"; each agent needs its own name (defineAgent({ name }))`)
  if (options.onBusy !== undefined && !ON_BUSY.includes(options.onBusy)) {
    throw new TypeError(`onBusy must be one of ${ON_BUSY.join(', ')}; got "${String(options.onBusy)}"`)
  }
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits }
  const originSettings: OriginSettings = { origins: options.origins, allowedHosts: options.allowedHosts }
  // Strict until the server listens and knows its address (no request can arrive before that anyway).
  const gate = new OriginGate(originPolicy(originSettings, true), options.trustProxy === true)
  const log = options.logger === false ? pino({ enabled: false }) : (options.logger ?? pino({ level: process.env.LOG_LEVEL ?? 'info' }))
  let backend: StoreBackend
  let cluster: ClusterPort | undefined
  let clusterDeps: EndpointDeps['cluster']
  if (isRedisUrl(options.store)) {
    const [{ createRedisStore }, { createRedisCluster }] = await Promise.all([import('../store/redis/store.js'), import('../cluster/redis-cluster.js')])
    const c = options.cluster ?? {}
    const prefix = c.prefix ?? process.env.PARLANCE_REDIS_PREFIX ?? 'parlance:'
    const nodeId = c.nodeId ?? process.env.PARLANCE_NODE_ID ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`
    const redisStore = createRedisStore({ url: options.store, prefix, nodeId, leaseMs: c.leaseMs, maxEventsPerSession: c.maxEventsPerSession })
    // Fail at start, naming the server, rather than at the first command with ioredis's retry-limit message.
    let lastError = ''
    redisStore.redis.on('error', (err: Error) => (lastError = err.message))
    if (!(await redisStore.ping())) {
      await redisStore.close()
      throw new Error(`cannot reach Redis at ${redacted(options.store)}: ${lastError || 'no answer within 1 s'}`)
    }
    backend = redisStore
    cluster = await createRedisCluster({ redis: redisStore.redis, prefix, nodeId, leaseMs: c.leaseMs })
    clusterDeps = { nodeId, redis: redisStore.redis, prefix, keys: redisKeys(prefix) }
  } else {
    backend = await openBackend(options.store, options.dataDir ?? './.parlance', log)
  }
  // eslint-disable-next-line prefer-const -- assigned below, read by the metrics callback created first
  let sessions: SessionManager | undefined
  const metrics = createMetrics(() => sessions?.activeRunCount ?? 0)
  const store = new EventStore(backend, {
    highWaterEvents: limits.maxPendingEvents,
    totalHighWaterEvents: limits.maxPendingEventsTotal,
    commitWindowMs: limits.commitWindowMs,
    stallMs: limits.storeStallMs,
    onCommit: (_n, ms) => metrics.storeCommit.observe(ms / 1000),
    onError: (err, attempt) => log.error({ err, attempt }, 'store commit failed; retrying'),
    onListenerError: (err) => log.error({ err }, 'delivering committed events failed'),
  })
  sessions = new SessionManager({
    store,
    agents: new Map(options.agents.map((a) => [a.name, a])),
    defaultAgent: options.agents[0]!.name,
    limits,
    cluster,
    ...(options.onBusy ? { onBusy: options.onBusy } : {}),
    hooks: {
      committed: (n, events) => countCommitted(metrics, n, events),
      runStarted: (s) => log.info({ sessionId: s.id, runId: s.activeRunId, agent: s.agentName }, 'run started'),
      runEnded: (s, runId, outcome) =>
        log[outcome === 'finished' || outcome === 'interrupted' || outcome === 'cancelled' ? 'info' : 'warn'](
          { sessionId: s.id, runId, outcome },
          'run ended',
        ),
    },
  })
  const manager = sessions
  const clientAddress = (req: IncomingMessage): string => {
    if (options.trustProxy) {
      const forwarded = req.headers['x-forwarded-for']
      const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim()
      if (first) return first
    }
    return req.socket.remoteAddress ?? ''
  }
  const ws = new WsTransport({
    hardMaxPayloadBytes: limits.hardMaxPayloadBytes,
    maxOutboundBufferBytes: limits.maxOutboundBufferBytes,
    heartbeatIntervalMs: options.heartbeatIntervalMs,
    clientAddress,
  })

  // Cluster: one key for every node (kept in Redis), so an export signed by one node is accepted by another.
  const secret = clusterDeps && !(options.secret ?? process.env.PARLANCE_SECRET) ? await sharedSecret(clusterDeps) : loadSecret(options)
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
  const deps: EndpointDeps & InspectorDeps = {
    allowWebhookHosts: options.allowWebhookHosts ?? [],
    integrations: options.integrations ?? {},
    sessions: manager,
    limits,
    metrics,
    log,
    ws,
    http,
    secret,
    inspectorDir: options.inspectorDir,
    ...(clusterDeps ? { cluster: clusterDeps } : {}),
    authenticate,
    authOn: auth !== null,
    // Rate limits key on the principal; with auth off everyone is `anonymous`, so they key on the client's
    // address instead — else one busy user would throttle all the others.
    admission: (principal, address) => rateLimiter.forConnection(auth === null ? `addr:${address}` : principal),
    clientAddress,
    principal(req) {
      const p = principals.get(req)
      if (p !== undefined) return p
      if (auth === null) return ANONYMOUS
      // An endpoint served a request that bypassed the gate: fail closed, loudly.
      throw new ParlanceError('unauthorized', 'request was not authenticated')
    },
  }
  const endpoints: Endpoint[] = [...withDialects(options.dialects).map((d) => d.endpoint(deps)), sessionsEndpoint(deps), ...(options.inspector === false ? [] : [inspectorEndpoint(deps)])]
  const protectMetrics = auth !== null && options.auth?.protectMetrics !== false
  const ownUpgrades = endpoints.flatMap((e) => e.ownUpgradePaths ?? [])

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (req.method === 'GET' && url.pathname === '/healthz') {
      const reachable = await backend.ping().catch(() => false)
      // A store that answers but keeps refusing commits is not healthy either: events wait, nothing is delivered.
      const failing = store.failing
      const storeOk = reachable && failing === null
      return sendJson(res, storeOk ? 200 : 503, {
        status: storeOk ? 'ok' : 'degraded',
        store: { kind: backend.kind, ok: storeOk, ...(failing ? { commitsFailing: { attempts: failing.attempts, since: new Date(failing.since).toISOString(), error: failing.error } } : {}) },
        ...(cluster ? { node: { id: cluster.nodeId, leaseMs: cluster.leaseMs } } : {}),
      })
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

  // Last, so it stands in front of every listener: the router above and transports that attached themselves.
  gate.install(http)
  http.on('listening', () => {
    const addr = http.address()
    const loopback = addr !== null && typeof addr === 'object' && isLoopbackHostname(addr.family === 'IPv6' ? `[${addr.address}]` : addr.address)
    gate.use(originPolicy(originSettings, loopback))
  })

  let closed = false
  return {
    http,
    sessions: manager,
    metrics,
    limits,
    get originPolicy() {
      return gate.current.describe()
    },
    async listen(port = 8000, host = '127.0.0.1') {
      const refused = protectedModeError(host, auth !== null, options.allowUnauthenticated === true)
      if (refused) throw refused // before anything is bound
      for (const e of endpoints) if (e.ready) await e.ready()
      return new Promise((resolve, reject) => {
        http.once('error', reject)
        http.listen({ port, host, backlog: options.listenBacklog ?? 4096 }, () => {
          http.off('error', reject)
          const addr = http.address() as AddressInfo
          const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address
          resolve(`http://${h}:${addr.port}`)
          // What the previous process left unfinished: interrupted runs closed, queued messages run (single node).
          manager.resumeUnfinished().then(
            (n) => n > 0 && log.info({ sessions: n }, 'resumed sessions left unfinished by the previous process'),
            (err: unknown) => log.warn({ err }, 'could not resume the sessions left unfinished'),
          )
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
      await cluster?.close()
      await backend.close()
    },
  }
}
