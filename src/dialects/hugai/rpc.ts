import { checkJsonShape, type ErrorCode, type ParlanceError } from '../../core/index.js'
import { checkers, METHODS, type Method } from './schema.js'

/** JSON-RPC 2.0 standard error codes, and Parlance's application codes (-32000…-32099). */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  notInitialized: -32001,
  notFound: -32002,
  approvalNotPending: -32003,
  forbidden: -32004,
  timeout: -32005,
  targetDisconnected: -32006,
  rateLimited: -32007,
  unavailable: -32008,
  conflict: -32009,
  needsConnection: -32010,
  executionFailed: -32011,
} as const

/** The application code of each canonical error. */
export const RPC_CODE: Record<ErrorCode, number> = {
  invalid_json: RPC.parseError,
  invalid_message: RPC.invalidParams,
  unknown_type: RPC.methodNotFound,
  message_too_long: RPC.invalidParams,
  frame_too_large: RPC.invalidRequest,
  forbidden_key: RPC.invalidParams,
  too_deep: RPC.invalidParams,
  unauthorized: RPC.forbidden,
  forbidden: RPC.forbidden,
  not_found: RPC.notFound,
  rate_limited: RPC.rateLimited,
  conflict: RPC.conflict,
  interrupted: RPC.executionFailed,
  cancelled: RPC.executionFailed,
  timeout: RPC.timeout,
  tool_error: RPC.executionFailed,
  execution_error: RPC.executionFailed,
  unavailable: RPC.unavailable,
  internal: RPC.internalError,
}

export type RpcId = string | number | null

export interface RpcErrorObject {
  code: number
  message: string
  data?: unknown
}

/** One inbound message, classified. */
export type Inbound =
  | { kind: 'request'; id: RpcId; method: Method; params: unknown }
  | { kind: 'notification'; method: Method; params: unknown }
  | { kind: 'response'; id: RpcId; result?: unknown; error?: RpcErrorObject }
  /** Invalid: answer `error` with `id` (null when the id itself could not be read), unless it was a notification. */
  | { kind: 'invalid'; id: RpcId; error: RpcErrorObject; notification: boolean }

/** A parsed body: one message or a batch (an empty batch is itself invalid). */
export type Parsed = { batch: false; items: [Inbound] } | { batch: true; items: Inbound[] }

const validId = (id: unknown): id is RpcId => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))

/** Parses a JSON-RPC body. Pure; never throws. */
export function parse(text: string, maxDepth: number): Parsed {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch (err) {
    return { batch: false, items: [{ kind: 'invalid', id: null, notification: false, error: { code: RPC.parseError, message: `Parse error: ${(err as Error).message}` } }] }
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return { batch: false, items: [{ kind: 'invalid', id: null, notification: false, error: { code: RPC.invalidRequest, message: 'Invalid Request: empty batch' } }] }
    return { batch: true, items: v.map((x) => classify(x, maxDepth)) }
  }
  return { batch: false, items: [classify(v, maxDepth)] }
}

function invalid(id: RpcId, message: string, data?: unknown, code: number = RPC.invalidRequest, notification = false): Inbound {
  return { kind: 'invalid', id, notification, error: data === undefined ? { code, message } : { code, message, data } }
}

/** Classifies one message and validates its params against the method's schema. */
export function classify(v: unknown, maxDepth: number): Inbound {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return invalid(null, 'Invalid Request: a message must be an object')
  const m = v as Record<string, unknown>
  const hasId = Object.hasOwn(m, 'id')
  const id: RpcId = hasId && validId(m.id) ? m.id : null
  if (m.jsonrpc !== '2.0') return invalid(id, 'Invalid Request: "jsonrpc" must be "2.0"', { field: 'jsonrpc' })
  if (hasId && !validId(m.id)) return invalid(null, 'Invalid Request: "id" must be a string, a number or null', { field: 'id' })
  if (m.method === undefined && hasId && (Object.hasOwn(m, 'result') || Object.hasOwn(m, 'error'))) {
    return { kind: 'response', id, result: m.result, error: m.error as RpcErrorObject | undefined }
  }
  if (typeof m.method !== 'string') return invalid(id, 'Invalid Request: "method" must be a string', { field: 'method' })
  if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null)) return invalid(id, 'Invalid Request: "params" must be an object or an array', { field: 'params' })
  const notification = !hasId
  if (!(METHODS as string[]).includes(m.method)) return invalid(id, `Method not found: ${m.method.slice(0, 64)}`, { method: m.method.slice(0, 64) }, RPC.methodNotFound, notification)
  const method = m.method as Method
  const shape = checkJsonShape(m.params, maxDepth)
  if (shape) return invalid(id, `Invalid params: ${shape.message}`, { field: `params${String(shape.details?.path ?? '').replace(/\//g, '.')}` }, RPC.invalidParams, notification)
  const checker = checkers[method]
  if (!checker.Check(m.params)) {
    const first = checker.Errors(m.params).First()
    const field = `params${(first?.path ?? '').replace(/\//g, '.')}`
    return invalid(id, `Invalid params: ${field} ${first?.message.toLowerCase() ?? 'is invalid'}`, { field }, RPC.invalidParams, notification)
  }
  return notification ? { kind: 'notification', method, params: m.params } : { kind: 'request', id, method, params: m.params }
}

export const result = (id: RpcId, value: unknown) => ({ jsonrpc: '2.0' as const, id, result: value })
export const error = (id: RpcId, e: RpcErrorObject) => ({ jsonrpc: '2.0' as const, id, error: e })
export const notification = (method: string, params: unknown) => ({ jsonrpc: '2.0' as const, method, params })
export const request = (id: RpcId, method: string, params: unknown) => ({ jsonrpc: '2.0' as const, id, method, params })

/** A canonical error as a JSON-RPC error object (`data.code` keeps the canonical code). */
export function fromParlance(e: ParlanceError): RpcErrorObject {
  return { code: RPC_CODE[e.code], message: e.message, data: { code: e.code, ...(e.details ?? {}) } }
}
