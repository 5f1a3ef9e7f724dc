import { HTTP_STATUS, type ErrorCode } from '../../core/index.js'
import type { LangGraphError } from './wire.js'

/** Codes the Agent Server answers as a request that failed validation: 422, as its FastAPI validation does. */
const UNPROCESSABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['invalid_message', 'unknown_type', 'message_too_long', 'forbidden_key', 'too_deep'])

/**
 * The Agent Server's form of every error code: the HTTP status of an error answered before a stream starts (body
 * `{"detail": …}`), and the `error` name of a streamed `event: error` (Parlance's code).
 */
export const LANGGRAPH_ERRORS: Readonly<Record<ErrorCode, { readonly status: number; readonly error: string }>> = Object.fromEntries(
  (Object.keys(HTTP_STATUS) as ErrorCode[]).map((c) => [c, { status: UNPROCESSABLE.has(c) ? 422 : HTTP_STATUS[c], error: c }]),
) as Record<ErrorCode, { status: number; error: string }>

/** The HTTP error body. */
export const errorBody = (message: string): LangGraphError => ({ detail: message })

/** A streamed error: `event: error` with `{error, message}` (what the SDK's StreamError reads). */
export function errorEvent(code: ErrorCode, message: string): string {
  return `event: error\ndata: ${JSON.stringify({ error: LANGGRAPH_ERRORS[code].error, message })}\n\n`
}
