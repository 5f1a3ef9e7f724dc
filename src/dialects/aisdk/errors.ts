import { HTTP_STATUS, type ErrorCode } from '../../core/index.js'

/**
 * The AI SDK's wire form of every error code: the HTTP status of an error answered before the stream starts, and
 * the code that opens an `error` chunk's `errorText` (`"<code>: <message>"`; the SDK has no code field).
 */
export const AISDK_ERRORS: Readonly<Record<ErrorCode, { readonly status: number; readonly code: string }>> = Object.fromEntries(
  (Object.keys(HTTP_STATUS) as ErrorCode[]).map((c) => [c, { status: HTTP_STATUS[c], code: c }]),
) as Record<ErrorCode, { status: number; code: string }>
