import { classify, parse } from './decode.js'
import { error, event, notification, request, result } from './encode.js'
import { fromParlance } from './errors.js'

/** The HugAI v2 (JSON-RPC 2.0) codec: pure functions, no I/O. */
export const hugai = { parse, classify, result, error, notification, request, event, fromParlance }
export { MAX_BATCH } from './decode.js'
export type { Inbound, Parsed } from './decode.js'
export type { RpcId } from './encode.js'
export { RPC, RPC_CODE } from './errors.js'
export type { RpcErrorObject } from './errors.js'
export { EXTENSION_METHODS, METHODS } from './schema.js'
export type { Method } from './schema.js'
