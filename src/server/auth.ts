import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { ANONYMOUS, type Principal } from '../core/index.js'

/**
 * Decides who a request is. Return a principal (any stable string: a user id, a tenant) or null to refuse.
 * `token` is the bearer credential the client presented, wherever its dialect carries it (see `bearerToken`).
 */
export type Authenticate = (req: IncomingMessage, token: string | null) => Principal | null | Promise<Principal | null>

/** Authentication settings of `createServer`. */
export interface AuthOptions {
  /** A static bearer token (`--token` / PARLANCE_TOKEN); every holder acts as principal `token`. */
  token?: string
  /** Pluggable check (JWT, sessions, API keys); takes precedence over `token`. */
  authenticate?: Authenticate
  /** Require auth on `GET /metrics` too. @default true when auth is on */
  protectMetrics?: boolean
}

/** Principal of every static-token holder. */
export const TOKEN_PRINCIPAL: Principal = 'token'

/**
 * The WebSocket subprotocol a browser offers to authenticate (it cannot set headers on a WebSocket): it offers
 * `parlance.bearer` and `parlance.bearer.<token as base64url>`, and the server selects `parlance.bearer`, so the
 * token is never echoed back (browsers fail a handshake that offered protocols and got none). The scheme is
 * Kubernetes' `base64url.bearer.authorization.k8s.io.<token>`, under Parlance's name.
 */
export const BEARER_PROTOCOL = 'parlance.bearer'
const BEARER_PREFIX = `${BEARER_PROTOCOL}.`

/** The token a WebSocket upgrade carries in its offered subprotocols, if any. */
function protocolToken(req: IncomingMessage): string | null {
  const offered = req.headers['sec-websocket-protocol']
  if (!offered) return null
  for (const p of offered.split(',')) {
    const name = p.trim()
    if (name.startsWith(BEARER_PREFIX) && name.length > BEARER_PREFIX.length) {
      const token = Buffer.from(name.slice(BEARER_PREFIX.length), 'base64url').toString('utf8')
      return token || null
    }
  }
  return null
}

/** Where a request's bearer token came from: the query is accepted for compatibility only (see `bearerToken`). */
export type TokenSource = 'header' | 'protocol' | 'query'

/**
 * The bearer token of a request and where it came from: `Authorization: Bearer …`, else `x-api-key` (what the
 * LangGraph SDK and Agent Chat UI send their API key in), else the `parlance.bearer.*`
 * WebSocket subprotocol (`BEARER_PROTOCOL`), else the `access_token` query parameter — kept because an
 * EventSource cannot send either of the others, but a URL ends up in access logs and browser history, so the
 * server warns when one is used. Socket.IO clients send `auth: { token }`; the Socket.IO transport passes that in.
 */
export function bearerCredential(req: IncomingMessage, url?: URL): { token: string; source: TokenSource } | null {
  const h = req.headers.authorization
  if (h) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h)
    return m ? { token: m[1]!, source: 'header' } : null
  }
  const key = req.headers['x-api-key']
  if (typeof key === 'string' && key !== '') return { token: key, source: 'header' }
  const p = protocolToken(req)
  if (p !== null) return { token: p, source: 'protocol' }
  const q = (url ?? new URL(req.url ?? '/', 'http://localhost')).searchParams.get('access_token')
  return q ? { token: q, source: 'query' } : null
}

/** The bearer token of a request, wherever it came from (see `bearerCredential`). */
export function bearerToken(req: IncomingMessage, url?: URL): string | null {
  return bearerCredential(req, url)?.token ?? null
}

/**
 * The subprotocol the server answers an upgrade with (`ws`'s `handleProtocols`): `parlance.bearer` when offered,
 * else the first offered one that carries no token, else none. Never a `parlance.bearer.<token>`: the answer is
 * visible to anything on the path, and the token must not travel back.
 */
export function selectProtocol(offered: ReadonlySet<string>): string | false {
  if (offered.has(BEARER_PROTOCOL)) return BEARER_PROTOCOL
  for (const p of offered) if (!p.startsWith(BEARER_PREFIX)) return p
  return false
}

/** Compares secrets in constant time (hashing first, so lengths leak nothing either). */
function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest()
  const hb = createHash('sha256').update(b).digest()
  return timingSafeEqual(ha, hb)
}

/** The resolved authenticator: `null` when auth is off (everyone is ANONYMOUS). */
export function makeAuthenticator(opts: AuthOptions): Authenticate | null {
  if (opts.authenticate) return opts.authenticate
  const expected = opts.token
  if (!expected) return null
  return (_req, token) => (token !== null && sameSecret(token, expected) ? TOKEN_PRINCIPAL : null)
}

/** Runs `auth` (or, when off, answers ANONYMOUS); a throwing hook counts as a refusal. */
export async function principalOf(auth: Authenticate | null, req: IncomingMessage, token: string | null): Promise<Principal | null> {
  if (!auth) return ANONYMOUS
  try {
    const p = await auth(req, token)
    return typeof p === 'string' && p.length > 0 ? p : null
  } catch {
    return null
  }
}
