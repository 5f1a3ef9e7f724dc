import type { ErrorCode } from '../../core/index.js'

/**
 * HUMA error `code` for every canonical code. Every validation failure is the
 * seed's `INVALID_EVENT`; the rest are the canonical code in upper case.
 */
export const HUMA_ERROR_CODES: Record<ErrorCode, string> = {
  invalid_json: 'INVALID_EVENT',
  invalid_message: 'INVALID_EVENT',
  unknown_type: 'INVALID_EVENT',
  message_too_long: 'INVALID_EVENT',
  frame_too_large: 'INVALID_EVENT',
  forbidden_key: 'INVALID_EVENT',
  too_deep: 'INVALID_EVENT',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  rate_limited: 'RATE_LIMITED',
  conflict: 'CONFLICT',
  busy: 'BUSY',
  interrupted: 'INTERRUPTED',
  cancelled: 'CANCELLED',
  timeout: 'TIMEOUT',
  tool_error: 'TOOL_ERROR',
  execution_error: 'EXECUTION_ERROR',
  unavailable: 'UNAVAILABLE',
  internal: 'INTERNAL_ERROR',
}
