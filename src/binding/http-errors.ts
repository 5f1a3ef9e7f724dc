import type { ServerResponse } from 'node:http'
import { HTTP_STATUS, ParlanceError, toParlanceError, type ErrorCode } from '../core/index.js'
import type { EndpointDeps } from './endpoint.js'
import { BodyError, sendJson } from './http-util.js'

/**
 * Runs an HTTP dialect's handler and answers what it throws before its stream started as JSON (`shape`, by default
 * `{error: {code, message, field?, details?}}`) with the dialect's status for its code (counted per dialect); once the
 * stream has started, the response just ends (the dialect reports run errors in-band).
 */
export async function answerErrors(
  deps: Pick<EndpointDeps, 'log' | 'metrics'>,
  dialect: string,
  res: ServerResponse,
  work: () => Promise<void>,
  status: Readonly<Record<ErrorCode, number>> = HTTP_STATUS,
  shape: (e: ParlanceError) => unknown = parlanceShape,
): Promise<void> {
  try {
    await work()
  } catch (err) {
    const e =
      err instanceof BodyError ? new ParlanceError(err.status === 413 ? 'frame_too_large' : 'invalid_message', err.message) : toParlanceError(err)
    const code = err instanceof BodyError ? err.status : status[e.code]
    if (e.code === 'internal') deps.log.error({ err: e.cause ?? e, dialect }, 'HTTP request failed')
    deps.metrics.inboundErrors.inc({ dialect, code: e.code })
    if (res.headersSent) return void res.end()
    // A refusal that says when to come back (rate limited, a draining server) says it in HTTP's words too.
    const retryMs = e.details?.retryAfterMs
    sendJson(res, code, shape(e), typeof retryMs === 'number' ? { 'retry-after': String(Math.max(1, Math.ceil(retryMs / 1000))) } : {})
  }
}

/** Parlance's own error body: `{error: {code, message, field?, details?}}`. */
const parlanceShape = (e: ParlanceError) => ({
  error: {
    code: e.code,
    message: e.message,
    ...(e.details?.field !== undefined ? { field: e.details.field } : {}),
    ...(e.details ? { details: e.details } : {}),
  },
})

/** The HTTP status column of a dialect's error table (`{ status, … }` per code). */
export function httpStatuses(table: Readonly<Record<ErrorCode, { readonly status: number }>>): Record<ErrorCode, number> {
  return Object.fromEntries(Object.entries(table).map(([code, v]) => [code, v.status])) as Record<ErrorCode, number>
}
