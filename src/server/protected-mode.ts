import { isLoopbackHost } from './loopback.js'

export { isLoopbackHost }

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
