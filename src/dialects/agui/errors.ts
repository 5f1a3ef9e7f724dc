import { HTTP_STATUS, type ErrorCode } from '../../core/index.js'

/**
 * AG-UI's wire form of every error code: the HTTP status of an error answered before the event stream
 * starts, and the `code` of a RUN_ERROR (AG-UI leaves codes to the server: Parlance's canonical names).
 */
export const AGUI_ERRORS: Readonly<Record<ErrorCode, { readonly status: number; readonly code: string }>> = Object.fromEntries(
  (Object.keys(HTTP_STATUS) as ErrorCode[]).map((c) => [c, { status: HTTP_STATUS[c], code: c }]),
) as Record<ErrorCode, { status: number; code: string }>

/** HTTP status of each error code, for errors answered before the event stream starts. */
export const AGUI_HTTP_STATUS: Readonly<Record<ErrorCode, number>> = HTTP_STATUS
