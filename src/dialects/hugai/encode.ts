import { rpcError, rpcNotification, rpcRequest, rpcResult, type RpcId } from '../../core/index.js'

export type { RpcId }
/** A success response. */
export const result = rpcResult
/** An error response. */
export const error = rpcError
/** A notification (no id: never answered). */
export const notification = rpcNotification
/** A request the hub sends to a peer (an `agent/request` to a registered agent, a client tool call). */
export const request = rpcRequest
/** The seed's `event` message (§3.5) as a notification. */
export const event = (name: string, data: Record<string, unknown>) => rpcNotification('event', { event: name, data })
