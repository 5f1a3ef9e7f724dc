import {
  JSONRPC_ERRORS,
  PARLANCE_RPC_CODES as P,
  type ErrorCode,
  type ParlanceError,
  type RpcErrorObject,
  type RpcWireError,
} from '../../core/index.js'

/**
 * The codes the MCP SDK's streamable HTTP transport answers with itself: -32000 for a bad HTTP request (its
 * "Bad Request", "Not Acceptable", 413…), -32001 for an unknown `Mcp-Session-Id` (404).
 */
export const MCP_RPC = { ...JSONRPC_ERRORS, badRequest: -32000, sessionNotFound: -32001 } as const

const E = MCP_RPC

/**
 * MCP's wire form of every canonical code, for what Parlance answers before the SDK's transport does: the
 * transport's own numbers where it has them, Parlance's shared application codes otherwise (`PARLANCE_RPC_CODES`;
 * a rate limit is -32029 with HTTP 429). A run's own errors are tool results (`isError`), not JSON-RPC errors.
 */
export const MCP_ERRORS: Readonly<Record<ErrorCode, RpcWireError>> = {
  invalid_json: { code: E.parseError, status: 400 },
  invalid_message: { code: E.badRequest, status: 400 },
  unknown_type: { code: E.methodNotFound, status: 400 },
  message_too_long: { code: E.invalidParams, status: 400 },
  frame_too_large: { code: E.badRequest, status: 413 },
  forbidden_key: { code: E.invalidParams, status: 400 },
  too_deep: { code: E.invalidParams, status: 400 },
  unauthorized: { code: P.unauthorized, status: 401 },
  forbidden: { code: P.forbidden, status: 403 },
  not_found: { code: E.sessionNotFound, status: 404 },
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

/** A canonical error as an MCP JSON-RPC error object (`data.code`: the canonical code, beside its details). */
export function mcpRpcError(e: Pick<ParlanceError, 'code' | 'message' | 'details'>): RpcErrorObject {
  return { code: MCP_ERRORS[e.code].code, message: e.message, data: { ...(e.details ?? {}), code: e.code } }
}
