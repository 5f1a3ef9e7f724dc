import { JSONRPC_ERRORS, type ErrorCode, type ParlanceError, type RpcErrorObject } from '../../core/index.js'

/** JSON-RPC 2.0 standard error codes, and the hub's application codes (-32000…-32099): every number HugAI sends. */
export const RPC = {
  ...JSONRPC_ERRORS,
  notInitialized: -32001,
  notFound: -32002,
  forbidden: -32004,
  timeout: -32005,
  targetDisconnected: -32006,
  rateLimited: -32007,
  unavailable: -32008,
  conflict: -32009,
  needsConnection: -32010,
  executionFailed: -32011,
  cancelled: -32012,
  busy: -32013,
} as const

/** The JSON-RPC code of each canonical error (adding a canonical code fails type-checking here). */
export const RPC_CODE: Record<ErrorCode, number> = {
  invalid_json: RPC.parseError,
  invalid_message: RPC.invalidParams,
  unknown_type: RPC.methodNotFound,
  message_too_long: RPC.invalidParams,
  frame_too_large: RPC.invalidRequest,
  forbidden_key: RPC.invalidParams,
  too_deep: RPC.invalidParams,
  unauthorized: RPC.forbidden,
  forbidden: RPC.forbidden,
  not_found: RPC.notFound,
  rate_limited: RPC.rateLimited,
  conflict: RPC.conflict,
  busy: RPC.busy,
  interrupted: RPC.cancelled,
  cancelled: RPC.cancelled,
  timeout: RPC.timeout,
  tool_error: RPC.executionFailed,
  execution_error: RPC.executionFailed,
  unavailable: RPC.unavailable,
  internal: RPC.internalError,
}

export type { RpcErrorObject }

/** A canonical error as a JSON-RPC error object (`data.code` keeps the canonical code). */
export function fromParlance(e: ParlanceError): RpcErrorObject {
  return { code: RPC_CODE[e.code], message: e.message, data: { code: e.code, ...(e.details ?? {}) } }
}
