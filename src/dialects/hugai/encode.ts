import type { RpcErrorObject } from './errors.js'

/** A JSON-RPC id: string, number or null (null only when the request's id could not be read). */
export type RpcId = string | number | null

/** A success response. */
export const result = (id: RpcId, value: unknown) => ({ jsonrpc: '2.0' as const, id, result: value === undefined ? null : value })
/** An error response. */
export const error = (id: RpcId, e: RpcErrorObject) => ({ jsonrpc: '2.0' as const, id, error: e })
/** A notification (no id: never answered). */
export const notification = (method: string, params: unknown) => ({ jsonrpc: '2.0' as const, method, params })
/** A request the hub sends to a peer (an `agent/request` to a registered agent, a client tool call). */
export const request = (id: RpcId, method: string, params: unknown) => ({ jsonrpc: '2.0' as const, id, method, params })
/** The seed's `event` message (§3.5) as a notification. */
export const event = (name: string, data: Record<string, unknown>) => notification('event', { event: name, data })
