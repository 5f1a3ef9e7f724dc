import type { Principal } from '../../../core/index.js'
import type { RpcErrorObject } from '../errors.js'

/** Governance levels a connection may ask for in `initialize`. */
export type GovernanceLevel = 'autonomous' | 'supervised' | 'strict'

/** One side of the hub: a WebSocket connection (can receive requests and notifications) or one HTTP request (cannot). */
export interface Peer {
  readonly id: string
  readonly principal: Principal
  /** Sends a JSON-RPC message to the peer; absent for HTTP, which only gets responses. */
  readonly push?: (msg: object) => void
  initialized: boolean
  agentId?: string
  governanceLevel: GovernanceLevel
  /** Receives checkpoint events and may decide any checkpoint (`capabilities.approver: true`). */
  approver: boolean
  /** For the stand-in of a peer of another node (cluster): that node. Its id is then `<node>/<peer id>`. */
  readonly origin?: string
  /** Agent ids this connection registered; they leave the registry when it closes. */
  readonly registered: Set<string>
}

/** An error with a JSON-RPC code, thrown by method handlers and answered as the response's `error`. */
export class RpcFailure extends Error {
  override readonly name = 'RpcFailure'
  constructor(readonly rpc: RpcErrorObject) {
    super(rpc.message)
  }
}

/** Params of a method, already validated by the codec's schema. */
export type Params = Record<string, unknown>
