import type { EndpointFactory } from './endpoint.js'

/**
 * What a dialect carries: the one description of it, listed by `GET /` (`dialects`) and the inspector API
 * (`GET /inspector/api/info`), which the inspector page shows beside each dialect.
 */
export interface Capabilities {
  /** How it is carried: 'WebSocket', 'Socket.IO', 'HTTP + SSE', 'JSON-RPC over WebSocket and HTTP'. */
  readonly transport: string
  /** Text streamed chunk by chunk (else whole messages). */
  readonly streaming: boolean
  /** Human approvals asked and answered in the dialect. */
  readonly approvals: boolean
  /** Tools the client runs. */
  readonly clientTools: boolean
  /** Shared JSON state (snapshots and patches). */
  readonly state: boolean
  /** How a client resumes a stream after a drop; false when it cannot. */
  readonly resume: string | false
  /** The client can stop the active run. */
  readonly cancel: boolean
}

/**
 * One protocol Parlance serves: its name, how it mounts on the server (`mount(deps)` returns its `Endpoint`: the
 * paths it serves and its request and upgrade handlers), and what it carries. The built-in ones are listed in `src/dialects/registry.ts`; `createServer({ dialects })` adds
 * more without editing Parlance (see docs/ADDING-A-DIALECT.md).
 */
export interface Dialect {
  /** Used in metrics labels, logs and `GET /`'s endpoint list. */
  readonly name: string
  /** Called once per server: the dialect's routes and upgrades, given the server's shared dependencies. */
  readonly mount: EndpointFactory
  /** What it carries; listed by `GET /` and shown by the inspector. Optional for a custom dialect. */
  readonly capabilities?: Capabilities
}

/** The capabilities of `dialects`, by dialect name (those that declare them), as `GET /` and the inspector API list them. */
export function capabilitiesOf(dialects: readonly Dialect[]): Readonly<Record<string, Capabilities>> {
  const out: Record<string, Capabilities> = {}
  for (const d of dialects) if (d.capabilities) out[d.name] = d.capabilities
  return out
}
