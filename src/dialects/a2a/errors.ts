import {
  JSONRPC_ERRORS,
  PARLANCE_RPC_CODES as P,
  type ErrorCode,
  type ParlanceError,
  type RpcErrorObject,
  type RpcWireError,
} from '../../core/index.js'

/**
 * The JSON-RPC codes A2A itself defines that Parlance sends (A2A 1.0, "JSON-RPC error codes"): `taskNotFound`
 * also answers an unknown agent (A2A's only not-found code). The SDK's request handler sends the rest itself.
 */
export const A2A_RPC = { ...JSONRPC_ERRORS, taskNotFound: -32001 } as const

const E = A2A_RPC

/**
 * A2A's wire form of every canonical code: JSON-RPC's and A2A's numbers where they exist, Parlance's shared
 * application codes otherwise (`PARLANCE_RPC_CODES`; a rate limit is -32029 with HTTP 429). Errors about the
 * request itself answer HTTP 200, as the SDK answers them; the rest keep their HTTP meaning.
 */
export const A2A_ERRORS: Readonly<Record<ErrorCode, RpcWireError>> = {
  invalid_json: { code: E.parseError, status: 200 },
  invalid_message: { code: E.invalidParams, status: 200 },
  unknown_type: { code: E.methodNotFound, status: 200 },
  message_too_long: { code: E.invalidParams, status: 200 },
  frame_too_large: { code: E.invalidRequest, status: 413 },
  forbidden_key: { code: E.invalidParams, status: 200 },
  too_deep: { code: E.invalidParams, status: 200 },
  unauthorized: { code: P.unauthorized, status: 401 },
  forbidden: { code: P.forbidden, status: 403 },
  not_found: { code: E.taskNotFound, status: 404 },
  rate_limited: { code: P.rateLimited, status: 429 },
  conflict: { code: P.conflict, status: 409 },
  busy: { code: P.busy, status: 409 },
  interrupted: { code: P.cancelled, status: 409 },
  cancelled: { code: P.cancelled, status: 409 },
  timeout: { code: P.timeout, status: 504 },
  tool_error: { code: P.executionFailed, status: 500 },
  execution_error: { code: P.executionFailed, status: 500 },
  unavailable: { code: P.unavailable, status: 503 },
  internal: { code: E.internalError, status: 500 },
}

/** A canonical error as an A2A JSON-RPC error object (`data.code`: the canonical code, beside its details). */
export function a2aRpcError(e: Pick<ParlanceError, 'code' | 'message' | 'details'>): RpcErrorObject {
  return { code: A2A_ERRORS[e.code].code, message: e.message, data: { ...(e.details ?? {}), code: e.code } }
}
