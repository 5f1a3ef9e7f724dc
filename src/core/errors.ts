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

/**
 * The codes a bridged agent's failure keeps as the run's own when the remote reports one (A2A, AG-UI bridges):
 * what the remote's caller can act on. Anything else — the remote's own interrupted or cancelled included, which
 * describe its session, not ours — becomes `execution_error`.
 */
export const BRIDGED_ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'tool_error',
  'timeout',
  'unavailable',
  'not_found',
  'forbidden',
  'unauthorized',
  'rate_limited',
  'invalid_message',
])

/** `code` when it is one a bridged failure keeps (`BRIDGED_ERROR_CODES`), else `execution_error`. */
export function bridgedErrorCode(code: string | undefined): ErrorCode {
  return code !== undefined && BRIDGED_ERROR_CODES.has(code) ? (code as ErrorCode) : 'execution_error'
}

/**
 * Parlance's JSON-RPC codes for canonical errors the protocol itself has no number for, shared by the JSON-RPC
 * dialects that do not define their own (A2A, MCP; HugAI has its hub's). They sit in JSON-RPC's
 * implementation-defined range (-32000…-32099) clear of A2A's -32001…-32009 and of the MCP SDK's -32000, -32001
 * and -32042. `rateLimited` is tRPC's TOO_MANY_REQUESTS.
 */
export const PARLANCE_RPC_CODES = {
  rateLimited: -32029,
  unauthorized: -32030,
  forbidden: -32031,
  conflict: -32032,
  busy: -32033,
  cancelled: -32034,
  timeout: -32035,
  executionFailed: -32036,
  unavailable: -32037,
} as const

/** A canonical code on a JSON-RPC-over-HTTP dialect: the JSON-RPC `code`, and the HTTP status when answered outside the protocol handler. */
export interface RpcWireError {
  readonly code: number
  readonly status: number
}

/**
 * Error with a stable machine-readable code; only `code`, `message` and `details` cross the wire. When one ends an
 * agent's run, clients get only its code and `the agent failed (ref …)` unless it is `expose`d (a message written
 * for the user) or the server runs with `exposeErrors` (src/session/failure.ts).
 */
export class ParlanceError extends Error {
  override readonly name = 'ParlanceError'
  /** Its message is written for the user: a run it ends shows it to clients as it is. */
  readonly expose: boolean
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown; expose?: boolean },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.expose = options?.expose === true
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
