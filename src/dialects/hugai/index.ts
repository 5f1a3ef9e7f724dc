import { classify, error, fromParlance, notification, parse, request, result } from './rpc.js'

/** The HugAI v2 (JSON-RPC 2.0) codec: pure functions. */
export const hugai = { parse, classify, result, error, notification, request, fromParlance }
export { RPC, RPC_CODE } from './rpc.js'
export type { Inbound, Parsed, RpcErrorObject, RpcId } from './rpc.js'
export { METHODS } from './schema.js'
export type { Method } from './schema.js'
