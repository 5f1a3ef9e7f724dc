import type { RpcErrorObject } from '../errors.js'
import type { GovernanceLevel } from './peer.js'
import type { RemoteInfo } from './registry.js'

/** What a node sends of a peer when it runs a call on another node: enough to act as it there. */
export interface PeerSnapshot {
  id: string
  principal: string
  agentId?: string
  governanceLevel: GovernanceLevel
  approver: boolean
  /** Whether the peer can receive pushes (a WebSocket); an HTTP peer cannot. */
  push: boolean
}

/** A hub method run on another node, as the origin peer. */
export interface LinkCall {
  peer: PeerSnapshot
  method: 'agent/request' | 'task/cancel' | 'governance/approval'
  params: Record<string, unknown>
}

/** A remote node's answer to a call: its result, or its error (an RPC error object or a Parlance error). */
export type LinkAnswer =
  { result: unknown } | { rpc: RpcErrorObject } | { error: { code: string; message: string; details?: Record<string, unknown> } }

/** A registered agent on another node. */
export interface RemoteAgent {
  agentId: string
  node: string
  info: RemoteInfo
}

/** A decision taken before its checkpoint was raised (see Governance), as kept for any node to apply. */
export interface EarlyDecision {
  decision: string
  feedback: string | undefined
  approver: string
  /** Who decided: the principal, and whether it was an approver connection (strict governance needs one). */
  principal: string
  byApprover: boolean
  at: number
}

/** The handlers a node installs for what other nodes send it. */
export interface LinkHandlers {
  /** Runs a call from node `from` as its peer `call.peer` (the hub acts for it through a stand-in). */
  call(from: string, call: LinkCall): Promise<unknown>
  /** A message another node sends to this node's peer `peerId` (progress of a call it made there). */
  push(peerId: string, msg: object): void
  /** The origin's peer `peerId` on node `from` disconnected: its stand-ins here disconnect too. */
  gone(from: string, peerId: string): void
  /** Node `node` stopped (its channel has no subscriber): every stand-in of its peers disconnects. */
  nodeDown(node: string): void
  /** A notification for the approver connections of `principal` on this node, but those in `skip` (`node/peerId`). */
  approvers(principal: string, msg: object, skip: string[]): void
}

/**
 * How one hub reaches the hubs of the other nodes of a cluster (src/dialects/hugai/hub/redis-link.ts), so an
 * agent registered on node A is listed and reachable from node B, a task or checkpoint is found from any node,
 * a decision taken early on one node applies on another, and approvers everywhere hear of checkpoints. A single
 * node has no link (`null`): the hub keeps all of it in memory, as before.
 */
export interface HubLink {
  readonly nodeId: string
  install(handlers: LinkHandlers): Promise<void>
  /** Records `agentId` as registered here; answers the node that holds it instead, when a live one does. */
  claimAgent(agentId: string, info: RemoteInfo): Promise<string | null>
  /** Forgets `agentId` (only if this node holds it). */
  releaseAgent(agentId: string): void
  /** Agents registered on the other live nodes. */
  remoteAgents(): Promise<RemoteAgent[]>
  /** The live node (other than this one) holding `agentId`, if any. */
  findAgent(agentId: string): Promise<RemoteAgent | null>
  /** Records where a task runs (this node) until `forgetTask`; resolves once others can find it (never rejects). */
  placeTask(taskId: string): Promise<void>
  forgetTask(taskId: string): void
  /** The live node (other than this one) running `taskId`, if any. */
  locateTask(taskId: string): Promise<string | null>
  /** Records an open checkpoint raised here, under its id and name; resolves once others can find it (never rejects). */
  placeCheckpoint(id: string, name: string, owner: string): Promise<void>
  forgetCheckpoint(id: string): void
  /** The live node (other than this one) with the open checkpoint named `named` (its id, or its name for `owner`). */
  locateCheckpoint(named: string, owner: string): Promise<string | null>
  /** Keeps an early decision under `key` (a checkpoint id or name) for any node to take. */
  keepEarly(key: string, d: EarlyDecision, max: number): Promise<void>
  /** Takes (removes and returns) the early decision under `key`, if one is there: each is applied once. */
  takeEarly(key: string): Promise<EarlyDecision | null>
  /** Puts an early decision back (it was taken but did not apply: another principal, or strict without an approver). */
  returnEarly(key: string, d: EarlyDecision): Promise<void>
  /** Runs `call` on `node`; resolves with its result or rejects with its error; rejects if the node stops meanwhile. */
  call(node: string, call: LinkCall): Promise<unknown>
  /** Sends `msg` to peer `peerId` of node `node`. */
  push(node: string, peerId: string, msg: object): void
  /** Tells every other node that peer `peerId` of this node disconnected. */
  gone(peerId: string): void
  /**
   * Sends `msg` to the approver connections of `principal` on every other node, except the peers in `skip`
   * (`node/peerId` of stand-ins already told directly).
   */
  approvers(principal: string, msg: object, skip: string[]): void
  close(): Promise<void>
}
