import type { EndpointFactory } from './endpoint.js'

/** What a dialect carries, for the README's feature table and the inspector. */
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
 * One protocol Parlance serves: its name, the factory of its mount on the server (routes, upgrades), and what
 * it carries. The built-in ones are listed in `src/dialects/registry.ts`; `createServer({ dialects })` adds
 * more without editing Parlance (see docs/ADDING-A-DIALECT.md).
 */
export interface Dialect {
  /** Used in metrics labels, logs and `GET /`'s endpoint list. */
  readonly name: string
  readonly endpoint: EndpointFactory
  readonly capabilities?: Capabilities
}
