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
 * The bearer token of a request: `Authorization: Bearer …`, else the `access_token` query parameter (browsers
 * cannot set headers on WebSocket or EventSource requests). Socket.IO clients send `auth: { token }`; the
 * Socket.IO transport passes that in instead.
 */
export function bearerToken(req: IncomingMessage, url?: URL): string | null {
  const h = req.headers.authorization
  if (h) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h)
    return m ? m[1]! : null
  }
  const q = (url ?? new URL(req.url ?? '/', 'http://localhost')).searchParams.get('access_token')
  return q || null
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
