import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Redis } from 'ioredis'
import type { RedisKeys } from '../store/redis/keys.js'
import type { Duplex } from 'node:stream'
import type { Logger } from 'pino'
import type { Limits, Principal } from '../core/index.js'
import type { SessionManager } from '../session/index.js'
import type { WsTransport } from '../transports/ws.js'
import type { Metrics } from './metrics.js'
import type { Admit } from './rate-limit.js'
import type { InFlight } from './inflight.js'

/**
 * What every dialect endpoint gets from the server. One object, so adding a
 * cross-cutting concern (auth, rate limits, a node id) is one field here and
 * every dialect inherits it.
 */
export interface EndpointDeps {
  readonly sessions: SessionManager
  readonly limits: Limits
  readonly metrics: Metrics
  readonly log: Logger
  /** The shared WebSocket transport (one `ws` server, `noServer` mode). */
  readonly ws: WsTransport
  /** Inbound socket frames being carried out, server-wide: a closing server answers them before closing sockets. */
  readonly inflight?: InFlight
  /** The node:http server, for transports that attach themselves (Socket.IO). */
  readonly http: Server
  /**
   * Who a request acts for. Every endpoint calls this once per request or
   * connection and passes the principal on to `sessions.open`, which enforces
   * ownership.
   */
  principal(req: IncomingMessage): Principal
  /** Whether requests carry credentials (auth is on); with it off every principal is `anonymous`. */
  readonly authOn: boolean
  /**
   * Authenticates a request that did not pass the server's own gate (a Socket.IO handshake, which engine.io
   * handles itself): the principal, or null to refuse. Records it, so `principal(req)` answers afterwards.
   */
  authenticate(req: IncomingMessage, token: string | null): Promise<Principal | null>
  /**
   * A rate-limit check for one new connection (or one HTTP request) of `principal`: call the returned function
   * per inbound frame; a non-null result is the `rate_limited` error to answer, and the frame is dropped.
   */
  admission(principal: Principal, address: string): Admit
  /** The client address of a request (X-Forwarded-For's first entry behind a trusted proxy, else the socket's). */
  clientAddress(req: IncomingMessage): string
  /**
   * Key for signing what leaves the server and must come back unaltered (MyAgent state exports, resume
   * tokens). From `ServerOptions.secret` or PARLANCE_SECRET; otherwise random per process, so signatures
   * do not survive a restart (documented).
   */
  readonly secret: Buffer
  /** Internal hosts A2A push-notification webhooks may reach (`ServerOptions.allowWebhookHosts`). */
  readonly allowWebhookHosts?: readonly string[]
  /** Named tool sets HugAI's `tool/integration` reaches by name (`ServerOptions.integrations`). */
  readonly integrations?: Readonly<Record<string, NonNullable<ReturnType<SessionManager['agent']>>['tools']>>
  /**
   * Cluster mode (a Redis store): this node's id, and the store's Redis connection and key prefix, for
   * transports that keep cross-node state of their own (the Socket.IO Redis streams adapter).
   */
  readonly cluster?: { readonly nodeId: string; readonly redis: Redis; readonly prefix: string; readonly keys: RedisKeys }
}

/**
 * One dialect's mount on the HTTP server. The server offers each request and
 * upgrade to the endpoints in order; the first that claims it (returns true)
 * owns it. Handlers must not throw: errors are answered in the dialect's own
 * shape.
 */
export interface Endpoint {
  /** Dialect name, as used in metrics labels. */
  readonly dialect: string
  /** Paths listed by `GET /` (name → path). */
  readonly paths: Readonly<Record<string, string>>
  /** Claims an HTTP request; work may continue asynchronously after returning true. */
  request?(req: IncomingMessage, res: ServerResponse, url: URL): boolean
  /** Claims a WebSocket upgrade. Return true also for upgrades a self-attached transport handles (so the server leaves them alone). */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): boolean
  /**
   * Path prefixes whose upgrades a self-attached transport completes and authenticates itself (Socket.IO);
   * the server's auth gate leaves them alone.
   */
  readonly ownUpgradePaths?: readonly string[]
  /** Answers a refused request (bad or missing credentials) in the dialect's own shape; default: 401 JSON. */
  unauthorized?(req: IncomingMessage, res: ServerResponse, url: URL, message: string): boolean
  /** Resolves once the endpoint can serve (e.g. subscribed to the other nodes); `listen` waits for it. */
  ready?(): Promise<void>
  /** Releases what the endpoint holds (timers, its own servers). Sessions are shut down by the server. */
  close?(): Promise<void> | void
}

/** Builds an endpoint; called once per server. */
export type EndpointFactory = (deps: EndpointDeps) => Endpoint
