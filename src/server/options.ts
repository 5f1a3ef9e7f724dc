import type { Server } from 'node:http'
import type { Logger } from 'pino'
import type { Limits, OnBusy } from '../core/index.js'
import type { AgentDefinition, ToolDefinition } from '../agent-api/index.js'
import type { SessionManager } from '../session/index.js'
import type { StoreBackend } from '../store/index.js'
import type { AuthOptions } from './auth.js'
import type { Dialect } from '../binding/index.js'
import type { Metrics } from '../binding/metrics.js'
import type { OriginSettings } from './origin-policy.js'

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
  /**
   * Send an agent's failure to clients as it was thrown (development). Otherwise a run that fails tells clients
   * only its code and `the agent failed (ref …)`; the log line `run failed` and the inspector carry the message,
   * stack and cause under that ref. A `ParlanceError` thrown with `{ expose: true }` is always sent as it is.
   * @default false
   */
  exposeErrors?: boolean
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
  /**
   * Drains, then closes (what `parlance serve` does on SIGTERM): `/healthz` answers 503 `draining` at once, no new run
   * starts here (refused as `unavailable` with a retry hint; in a cluster the sessions' leases move to live nodes),
   * active runs go on streaming to their clients for up to `timeoutMs` (default 30 s), then what is left is
   * interrupted and everything closes as `close()` does. Resolves true when every run finished in time.
   */
  drain(opts?: { timeoutMs?: number }): Promise<boolean>
  /** Stops accepting, interrupts active runs (recorded in the store), flushes and closes everything. */
  close(): Promise<void>
}
