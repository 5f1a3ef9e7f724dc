/**
 * The one table of error codes. Every dialect maps each code to its own wire
 * shape through a `Record<ErrorCode, …>`, so adding a code fails type-checking
 * until every dialect answers it.
 */
export const ERROR_CODES = [
  'invalid_json',
  'invalid_message',
  'unknown_type',
  'message_too_long',
  'frame_too_large',
  'forbidden_key',
  'too_deep',
  'unauthorized',
  'forbidden',
  'not_found',
  'rate_limited',
  'conflict',
  'busy',
  'interrupted',
  'cancelled',
  'timeout',
  'tool_error',
  'execution_error',
  'unavailable',
  'internal',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

/** Error with a stable machine-readable code; only `code`, `message` and `details` cross the wire. */
export class ParlanceError extends Error {
  override readonly name = 'ParlanceError'
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** Normalizes anything thrown into a ParlanceError (the one boundary per layer). */
export function toParlanceError(err: unknown, fallback: ErrorCode = 'internal'): ParlanceError {
  if (err instanceof ParlanceError) return err
  if (err instanceof Error && err.name === 'AbortError') {
    return new ParlanceError('cancelled', 'the run was cancelled', undefined, { cause: err })
  }
  const message = err instanceof Error ? err.message : String(err)
  return new ParlanceError(fallback, message || 'internal error', undefined, { cause: err })
}
