import { randomBytes } from 'node:crypto'
import { toParlanceError, type EventBody } from '../core/index.js'

type RunErrorBody = Extract<EventBody, { type: 'run.error' }>

/** A new reference for one failure: short enough to read out to an operator, unique enough to find in the log. */
export function failureRef(): string {
  return randomBytes(5).toString('hex')
}

/**
 * The run error recording what an agent threw: the one place a failure is masked, so every dialect sends the same.
 * Clients get the error's code and `the agent failed (ref …)` (details: `{ ref }`), unless `expose` (the server's
 * `exposeErrors`), the error is a `ParlanceError` marked `expose` (a message written for the user), or it is the
 * run's own end (`cancelled`, `interrupted`: Parlance's words, nothing of the agent's). A bridged agent's failure
 * keeps its code (`BRIDGED_ERROR_CODES`) and is masked like any other: the remote's message may carry its internals.
 * `internal` keeps the failure as thrown, with `ref`, for the log and the inspector; no dialect encodes it.
 */
export function runFailure(err: unknown, ref: string, expose: boolean): RunErrorBody {
  const e = toParlanceError(err, 'execution_error')
  const internal = { ref, message: e.message, ...(e.details ? { details: e.details } : {}), ...stackOf(err) }
  if (expose || e.expose || e.code === 'cancelled' || e.code === 'interrupted') {
    return { type: 'run.error', code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}), internal }
  }
  return { type: 'run.error', code: e.code, message: `the agent failed (ref ${ref})`, details: { ref }, internal }
}

/** The thrown value's stack followed by its causes' (as pino prints them), if it has one. */
function stackOf(err: unknown): { stack?: string } {
  let stack = ''
  let e: unknown = err
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    stack += (depth > 0 ? '\ncaused by: ' : '') + (e.stack ?? `${e.name}: ${e.message}`)
    e = e.cause
  }
  return stack ? { stack } : {}
}
