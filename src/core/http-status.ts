import type { ErrorCode } from './errors.js'

/** HTTP status of each error code, for HTTP dialects answering before their event stream starts (AG-UI, AI SDK). */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_json: 400,
  invalid_message: 400,
  unknown_type: 400,
  message_too_long: 400,
  frame_too_large: 413,
  forbidden_key: 400,
  too_deep: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  rate_limited: 429,
  conflict: 409,
  busy: 409,
  interrupted: 409,
  cancelled: 409,
  timeout: 504,
  tool_error: 500,
  execution_error: 500,
  unavailable: 503,
  internal: 500,
}
