import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { OriginPolicy, Refusal, RequestOrigin, Verdict } from './origin-policy.js'

/** Methods the server's routes take, answered to every allowed preflight. */
const METHODS = 'GET, POST, PATCH, DELETE, OPTIONS'
/**
 * Response headers browser clients read: MCP's session and protocol version, the AI SDK's stream marker, where a
 * LangGraph run lives (`content-location`: useStream keeps its run id to rejoin after a reload; `location`: the
 * stream the SDK reconnects to), auth challenges and rate-limit hints. Others (content-type) are readable anyway.
 */
const EXPOSED = 'mcp-session-id, mcp-protocol-version, x-vercel-ai-ui-message-stream, www-authenticate, retry-after, content-location, location'
/** How long a browser may cache a preflight's answer (s). */
const PREFLIGHT_MAX_AGE = '600'
/** Request headers a preflight may ask for: HTTP field names, comma-separated (anything else is not reflected). */
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9a-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9a-z-]+)*$/i

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/**
 * The keys seen, each reported once, in bounded memory: past `capacity` the oldest is forgotten (a flood of
 * made-up origins cannot grow it; a forgotten one is reported again if it comes back).
 */
export class OnceSet {
  private readonly seen = new Set<string>()
  constructor(private readonly capacity: number) {}

  /** True the first time `key` is seen (since it was last forgotten). */
  first(key: string): boolean {
    if (this.seen.has(key)) return false
    if (this.seen.size >= this.capacity) this.seen.delete(this.seen.values().next().value as string)
    this.seen.add(key)
    return true
  }
}

/** Distinct refusals remembered (so logged once each). */
const REFUSALS_REMEMBERED = 1024

/**
 * Applies an `OriginPolicy` in front of every request and upgrade of a node:http server: refused requests get
 * 403 before any endpoint (or Socket.IO's engine) sees them; preflights are answered here; allowed cross-origin
 * requests go on with their CORS headers already set. One place, so a dialect cannot forget it.
 */
export class OriginGate {
  private readonly told = new OnceSet(REFUSALS_REMEMBERED)

  /** `onRefused`: told of each distinct refusal (its `key`) once, to log it: the browser only says "Failed to fetch". */
  constructor(
    private policy: OriginPolicy,
    private readonly trustProxy: boolean,
    private readonly onRefused?: (refusal: Refusal) => void,
  ) {}

  /** Swaps the policy (the server learns whether it listens on loopback only once it listens). */
  use(policy: OriginPolicy): void {
    this.policy = policy
  }

  get current(): OriginPolicy {
    return this.policy
  }

  private verdict(req: IncomingMessage): Verdict {
    const r: RequestOrigin = {
      host: req.headers.host,
      origin: first(req.headers.origin),
      ...(this.trustProxy ? { forwardedHost: first(req.headers['x-forwarded-host'])?.split(',')[0]?.trim() || undefined } : {}),
    }
    const v = this.policy.check(r)
    if (!v.ok && this.onRefused && this.told.first(v.refusal.key)) this.onRefused(v.refusal)
    return v
  }

  /** True when the gate answered the request itself (refused, or a preflight); otherwise CORS headers are set. */
  request(req: IncomingMessage, res: ServerResponse): boolean {
    const v = this.verdict(req)
    if (!v.ok) {
      const body = JSON.stringify({ error: { code: 'forbidden', message: v.refusal.message } })
      res.writeHead(403, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), vary: 'Origin' })
      res.end(body)
      return true
    }
    if (v.allowOrigin === null) return false
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined
    res.setHeader('access-control-allow-origin', v.allowOrigin)
    if (this.policy.credentials) res.setHeader('access-control-allow-credentials', 'true')
    if (!preflight) {
      res.setHeader('vary', 'Origin')
      res.setHeader('access-control-expose-headers', EXPOSED)
      return false
    }
    const headers: Record<string, string> = {
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      'access-control-allow-methods': METHODS,
      'access-control-max-age': PREFLIGHT_MAX_AGE,
      'content-length': '0',
    }
    // The origin is trusted, so the header list is not a boundary: echo what the client asks (an auth hook may
    // read a header of its own), as long as it is a list of field names.
    const asked = first(req.headers['access-control-request-headers'])?.trim()
    if (asked && HEADER_LIST.test(asked)) headers['access-control-allow-headers'] = asked
    // Chrome's Private Network Access: a page may reach a loopback server only if the server says so.
    if (req.headers['access-control-request-private-network'] === 'true') headers['access-control-allow-private-network'] = 'true'
    res.writeHead(204, headers)
    res.end()
    return true
  }

  /** True when the upgrade was refused (403 before the WebSocket handshake). */
  upgrade(req: IncomingMessage, socket: Duplex): boolean {
    const v = this.verdict(req)
    if (v.ok) return false
    const body = v.refusal.message
    socket.end(
      `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
    return true
  }

  /**
   * Puts the gate in front of every 'request' and 'upgrade' listener the server has now (the server's router and
   * whatever transports attached themselves, like Socket.IO's engine), so none of them sees a refused request.
   */
  install(http: Server): void {
    const requests = http.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>
    const upgrades = http.listeners('upgrade') as Array<(req: IncomingMessage, socket: Duplex, head: Buffer) => void>
    http.removeAllListeners('request')
    http.removeAllListeners('upgrade')
    http.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.request(req, res)) return
      for (const l of requests) l.call(http, req, res)
    })
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (this.upgrade(req, socket)) return
      for (const l of upgrades) l.call(http, req, socket, head)
    })
  }
}
