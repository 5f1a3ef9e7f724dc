import { HTTP_STATUS, type ErrorCode } from '../../core/index.js'
import type { OpenAiError } from './wire.js'

/** OpenAI's error `type` for an HTTP status. */
function typeOf(status: number): string {
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 429) return 'rate_limit_error'
  return status >= 500 ? 'server_error' : 'invalid_request_error'
}

/**
 * OpenAI's form of every error code: the HTTP status, OpenAI's error `type` for it, and the code (Parlance's own,
 * which OpenAI's SDKs surface as `error.code`).
 */
export const OPENAI_ERRORS: Readonly<Record<ErrorCode, { readonly status: number; readonly type: string; readonly code: string }>> =
  Object.fromEntries(
    (Object.keys(HTTP_STATUS) as ErrorCode[]).map((c) => [c, { status: HTTP_STATUS[c], type: typeOf(HTTP_STATUS[c]), code: c }]),
  ) as Record<ErrorCode, { status: number; type: string; code: string }>

/** The error body OpenAI's clients read. `param`: the request field at fault, when known. */
export function errorBody(code: ErrorCode, message: string, param?: unknown): OpenAiError {
  const e = OPENAI_ERRORS[code]
  return { error: { message, type: e.type, param: typeof param === 'string' && param !== '' ? param : null, code: e.code } }
}
