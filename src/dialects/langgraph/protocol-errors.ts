import { HTTP_STATUS, type ErrorCode, type ParlanceError } from '../../core/index.js'
import type { ErrorResponse, ProtocolErrorCode } from './protocol-wire.js'

const code = (c: ErrorCode): ProtocolErrorCode => {
  if (c === 'unknown_type') return 'unknown_command'
  if (c === 'unauthorized' || c === 'forbidden') return 'permission_denied'
  if (['invalid_json', 'invalid_message', 'message_too_long', 'frame_too_large', 'forbidden_key', 'too_deep'].includes(c)) return 'invalid_argument'
  if (c === 'not_found' || c === 'conflict' || c === 'busy' || c === 'interrupted' || c === 'cancelled') return 'invalid_argument'
  return 'unknown_error'
}

/**
 * The streaming protocol's form of every error code: the `error` of an ErrorResponse, and the HTTP status it is
 * answered with (the API's own statuses, so a client that reads only the status, or retries on it, acts right).
 */
export const PROTOCOL_ERRORS: Readonly<Record<ErrorCode, { readonly status: number; readonly error: ProtocolErrorCode }>> = Object.fromEntries(
  (Object.keys(HTTP_STATUS) as ErrorCode[]).map((c) => [c, { status: HTTP_STATUS[c], error: code(c) }]),
) as Record<ErrorCode, { status: number; error: ProtocolErrorCode }>

const PROTOCOL_CODES: ReadonlySet<string> = new Set<ProtocolErrorCode>([
  'invalid_argument',
  'unknown_command',
  'unknown_error',
  'no_such_run',
  'no_such_subscription',
  'no_such_namespace',
  'no_such_interrupt',
  'no_such_checkpoint',
  'permission_denied',
  'not_supported',
])

/**
 * The ErrorResponse of an error: its code from the table, made exact where the error says more — the decoder's
 * `details.protocolError` (`not_supported`), a checkpoint not found (`no_such_checkpoint`), a resume with nothing
 * pending (`no_such_interrupt`).
 */
export function errorResponse(e: ParlanceError, id: number | null): ErrorResponse {
  const named = e.details?.protocolError
  const field = e.details?.field
  const error: ProtocolErrorCode =
    typeof named === 'string' && PROTOCOL_CODES.has(named)
      ? (named as ProtocolErrorCode)
      : e.code === 'not_found' && field === 'checkpoint'
        ? 'no_such_checkpoint'
        : e.code === 'conflict' && field === 'command.resume'
          ? 'no_such_interrupt'
          : PROTOCOL_ERRORS[e.code].error
  return { type: 'error', id, error, message: e.message }
}
