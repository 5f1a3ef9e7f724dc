import { isIP } from 'node:net'

/**
 * Is `host` an address only this machine can reach? `localhost`, 127.0.0.0/8, ::1 and IPv4-mapped 127.x are;
 * every other address is not, and neither is a wildcard ('0.0.0.0', '::', '') or another name (it may resolve
 * to anything).
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1')
  if (h === 'localhost') return true
  if (isIP(h) === 4) return h.startsWith('127.')
  if (isIP(h) !== 6) return false
  // The URL parser writes IPv6 in its shortest form: ::1, and ::ffff:7fXX:XXXX for IPv4-mapped 127.x.
  let v6: string
  try {
    v6 = new URL(`http://[${h}]/`).hostname.slice(1, -1)
  } catch {
    return false // a zone id (fe80::1%eth0): link-local, not loopback
  }
  return v6 === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(v6)
}

/** `listen()` refused a non-loopback address because auth is off and nobody opted in to that. */
export class ProtectedModeError extends Error {
  override readonly name = 'ProtectedModeError'
  readonly code = 'EPROTECTED'
}

/**
 * Protected mode (Redis calls it that): a server without auth that anyone on the network can reach lets them read
 * every conversation through the inspector API and drive every agent, so listening on a non-loopback address with
 * auth off is refused unless the caller opted in. Checked before the socket is bound.
 */
export function protectedModeError(host: string, authOn: boolean, allowUnauthenticated: boolean): ProtectedModeError | null {
  if (authOn || allowUnauthenticated || isLoopbackHost(host)) return null
  return new ProtectedModeError(
    `refusing to listen on ${host || 'every address'} without authentication: anyone who can reach it could read every ` +
      'conversation (the inspector API lists all sessions) and drive every agent. ' +
      'Require a token (parlance serve --token T, or PARLANCE_TOKEN; in code createServer({ auth: { token } }) or ' +
      'auth.authenticate for JWT and the like), listen on 127.0.0.1 behind your own proxy, or, if something in front ' +
      'already authenticates, opt in explicitly with --no-auth (createServer({ allowUnauthenticated: true })).',
  )
}
