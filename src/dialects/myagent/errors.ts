import type { ErrorCode } from '../../core/index.js'

/**
 * The seed's error events and codes, by canonical code: input problems are `error.validation`
 * (ERR_VALIDATION_400), run failures `error.execution` (ERR_EXECUTION_600), timeouts `error.timeout`
 * (ERR_TIMEOUT_500); connection-level refusals the seed has no code for are `system.error` with an HTTP-like code.
 */
export const MYAGENT_ERROR: Record<ErrorCode, { event: 'error.validation' | 'error.execution' | 'error.timeout' | 'system.error'; code: string }> = {
  invalid_json: { event: 'error.validation', code: 'ERR_VALIDATION_400' },
  invalid_message: { event: 'error.validation', code: 'ERR_VALIDATION_400' },
  unknown_type: { event: 'error.validation', code: 'ERR_VALIDATION_400' },
  message_too_long: { event: 'error.validation', code: 'ERR_VALIDATION_400' },
  frame_too_large: { event: 'error.validation', code: 'ERR_VALIDATION_400' },
  forbidden_key: { event: 'error.validation', code: 'ERR_VALIDATION_400' },
  too_deep: { event: 'error.validation', code: 'ERR_VALIDATION_400' },
  unauthorized: { event: 'system.error', code: 'ERR_UNAUTHORIZED_401' },
  forbidden: { event: 'system.error', code: 'ERR_FORBIDDEN_403' },
  not_found: { event: 'error.validation', code: 'ERR_VALIDATION_400' },
  rate_limited: { event: 'system.error', code: 'ERR_RATE_LIMITED_429' },
  conflict: { event: 'system.error', code: 'ERR_CONFLICT_409' },
  busy: { event: 'system.error', code: 'ERR_BUSY_409' },
  interrupted: { event: 'error.execution', code: 'ERR_EXECUTION_600' },
  cancelled: { event: 'error.execution', code: 'ERR_EXECUTION_600' },
  timeout: { event: 'error.timeout', code: 'ERR_TIMEOUT_500' },
  tool_error: { event: 'error.execution', code: 'ERR_EXECUTION_600' },
  execution_error: { event: 'error.execution', code: 'ERR_EXECUTION_600' },
  unavailable: { event: 'system.error', code: 'ERR_UNAVAILABLE_503' },
  internal: { event: 'system.error', code: 'ERR_INTERNAL_500' },
}
