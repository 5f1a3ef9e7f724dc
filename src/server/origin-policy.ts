import { isLoopbackHost } from './loopback.js'

/**
 * Which browser pages may talk to the server, and under which host names: one decision for every dialect and
 * route (CORS, Socket.IO, WebSocket `Origin`, the DNS-rebinding `Host` check). Pure: headers in, verdict out;
 * `origin-gate.ts` applies it to requests and upgrades.
 */

/** The policy's settings (`createServer({ origins, allowedHosts })`, `--allow-origin`, `--allow-host`). */
export interface OriginSettings {
  /**
   * Origins whose pages may call the server (`https://app.example.com`, `http://localhost:3000`,
   * `https://*.example.com` for any subdomain), or '*' for any page at all. Same-origin requests are always
   * allowed. Default: any loopback origin when the server listens on loopback, else same-origin only.
   */
  readonly origins?: readonly string[] | '*'
  /**
   * Host names accepted in `Host` besides loopback names (`parlance.internal`, `.example.com` for a domain and
   * its subdomains). The check runs when the server listens on loopback (where DNS rebinding is the threat) or
   * when any name is given here.
   */
  readonly allowedHosts?: readonly string[]
}

/** Why a request is refused: always 403. */
export interface Refusal {
  readonly message: string
  /** What was refused (`origin https://a.example`, `host evil.example`): the server logs each once. */
  readonly key: string
}

/** What a request's headers say, as the policy reads them. */
export interface RequestOrigin {
  /** The `Host` header. */
  readonly host: string | undefined
  /** The `Origin` header (browsers send it on cross-origin requests, WebSocket handshakes and same-origin POSTs). */
  readonly origin: string | undefined
  /** The host the browser used, when a trusted proxy says (`X-Forwarded-Host`); for the same-origin comparison only. */
  readonly forwardedHost?: string | undefined
}

/** The verdict on one request: refused, or allowed with the `Access-Control-Allow-Origin` value to send (if any). */
export type Verdict = { readonly ok: false; readonly refusal: Refusal } | { readonly ok: true; readonly allowOrigin: string | null }

/** A compiled policy. */
export interface OriginPolicy {
  check(req: RequestOrigin): Verdict
  /** Whether pages may send credentials (cookies): for listed or default origins, never for '*'. */
  readonly credentials: boolean
  /** What the policy allows, in words (the startup banner and errors). */
  describe(): string
}

interface OriginPattern {
  readonly scheme: string
  /** Exact `host[:port]`, or the suffix after `*.` with `wildcard`. */
  readonly host: string
  readonly wildcard: boolean
}

/**
 * Parses a configured origin. Throws a TypeError naming it when it is not `scheme://host[:port]` (a path, query
 * or trailing slash beyond the origin is a common mistake: browsers never send one).
 */
export function parseOriginPattern(spec: string): OriginPattern {
  const m = /^(https?):\/\/(\*\.)?([^/?#\s]+?)\/?$/i.exec(spec.trim())
  const fail = (): never => {
    throw new TypeError(
      `invalid origin "${spec}": an origin is scheme://host[:port], e.g. https://app.example.com or http://localhost:3000 (or https://*.example.com)`,
    )
  }
  if (!m) return fail()
  let url: URL
  try {
    url = new URL(`${m[1]!.toLowerCase()}://${m[3]!}`)
  } catch {
    return fail()
  }
  if (url.pathname !== '/' || url.username || url.password) return fail()
  return { scheme: url.protocol, host: url.host, wildcard: m[2] !== undefined }
}

/** Parses an `Origin` header; null for `null`, opaque or malformed origins. */
function parseOrigin(origin: string): URL | null {
  if (origin === 'null') return null
  try {
    const url = new URL(origin)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null
  } catch {
    return null
  }
}

/** A `Host` header as `{hostname, host}` in the URL's normal form (lower case, default port dropped); null when malformed. */
function parseHost(host: string, scheme = 'http:'): { hostname: string; host: string } | null {
  if (!host || /[/?#@\s]/.test(host)) return null
  try {
    const url = new URL(`${scheme}//${host}`)
    return { hostname: url.hostname, host: url.host }
  } catch {
    return null
  }
}

/** Whether a host name (as a URL or a Host header spells it) is a loopback name. */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '')
  // Browsers send every *.localhost name to loopback themselves (RFC 6761), whatever DNS would say.
  return h.endsWith('.localhost') || isLoopbackHost(h)
}

function matches(p: OriginPattern, url: URL): boolean {
  if (p.scheme !== url.protocol) return false
  if (!p.wildcard) return p.host === url.host
  return url.host.endsWith(`.${p.host}`)
}

function hostAllowed(hostname: string, allowed: readonly string[]): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '')
  return allowed.some((a) => {
    const name = a.toLowerCase()
    return name.startsWith('.') ? h === name.slice(1) || h.endsWith(name) : h === name
  })
}

/**
 * Compiles a policy. `loopback` says whether the server listens on a loopback address: it turns on the `Host`
 * check and makes loopback pages the default origins.
 */
export function originPolicy(settings: OriginSettings, loopback: boolean): OriginPolicy {
  const any = settings.origins === '*'
  const listed = Array.isArray(settings.origins) ? (settings.origins as readonly string[]).map(parseOriginPattern) : null
  if (settings.origins !== undefined && !any && !Array.isArray(settings.origins)) throw new TypeError("origins must be an array of origins or '*'")
  const allowedHosts = (settings.allowedHosts ?? []).map((h) => h.trim()).filter(Boolean)
  for (const h of allowedHosts)
    if (/[/:\s@]/.test(h.replace(/^\[.*\]$/, '')))
      throw new TypeError(`invalid host name "${h}" for allowedHosts: give a name without scheme or port, e.g. parlance.internal or .example.com`)
  const checkHost = loopback || allowedHosts.length > 0

  const originAllowed = (url: URL, req: RequestOrigin): boolean => {
    if (any) return true
    // Same origin: the page was served by this server under the host the browser used.
    const seen = req.forwardedHost ?? req.host
    if (seen !== undefined && parseHost(seen, url.protocol)?.host === url.host) return true
    if (listed) return listed.some((p) => matches(p, url))
    return loopback && isLoopbackHostname(url.hostname)
  }

  return {
    credentials: !any,
    check(req) {
      if (checkHost && req.host !== undefined) {
        const parsed = parseHost(req.host)
        if (parsed === null) return { ok: false, refusal: { message: `malformed Host header "${req.host}"`, key: `host ${req.host}` } }
        if (!(isLoopbackHostname(parsed.hostname) || hostAllowed(parsed.hostname, allowedHosts))) {
          const why = loopback
            ? 'this server listens on loopback and answers loopback host names only (DNS-rebinding protection)'
            : 'it is not an allowed host'
          return {
            ok: false,
            refusal: {
              message: `Host "${req.host}" refused: ${why}; to serve it, start the server with --allow-host ${parsed.hostname} (createServer({ allowedHosts }))`,
              key: `host ${parsed.hostname}`,
            },
          }
        }
      }
      if (req.origin === undefined) return { ok: true, allowOrigin: null }
      const url = parseOrigin(req.origin)
      if (url === null || !originAllowed(url, req)) {
        return {
          ok: false,
          refusal: {
            message: `origin ${req.origin} is not allowed to call this server; to allow its pages, start the server with --allow-origin ${url?.origin ?? req.origin} (createServer({ origins }))`,
            key: `origin ${url?.origin ?? req.origin}`,
          },
        }
      }
      return { ok: true, allowOrigin: any ? '*' : url.origin }
    },
    describe() {
      const o = any
        ? 'any origin'
        : listed
          ? `${settings.origins!.length ? (settings.origins as readonly string[]).join(', ') : 'no other origin'} and same-origin pages`
          : loopback
            ? 'loopback pages (http://localhost:*, http://127.0.0.1:*) and same-origin pages'
            : 'same-origin pages only'
      const h = checkHost ? `; Host: loopback names${allowedHosts.length ? `, ${allowedHosts.join(', ')}` : ''}` : ''
      return `origins: ${o}${h}`
    },
  }
}
