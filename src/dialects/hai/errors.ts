import type { ErrorCode } from '../../core/index.js'

/**
 * HAI `error_code` for every canonical code. The seed names `invalid_message`,
 * `message_too_long` and `unknown_type`; the rest keep their canonical name.
 */
export const HAI_ERROR_CODES: Record<ErrorCode, string> = {
  invalid_json: 'invalid_json',
  invalid_message: 'invalid_message',
  unknown_type: 'unknown_type',
  message_too_long: 'message_too_long',
  frame_too_large: 'frame_too_large',
  forbidden_key: 'invalid_message',
  too_deep: 'invalid_message',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  not_found: 'not_found',
  rate_limited: 'rate_limited',
  conflict: 'conflict',
  busy: 'busy',
  interrupted: 'interrupted',
  cancelled: 'cancelled',
  timeout: 'timeout',
  tool_error: 'tool_error',
  execution_error: 'execution_error',
  unavailable: 'unavailable',
  internal: 'internal_error',
}
