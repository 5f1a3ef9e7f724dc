import type { TSchema } from '@sinclair/typebox'
import { checkJsonShape } from '../../core/index.js'
import type { RpcId } from './encode.js'
import { RPC, type RpcErrorObject } from './errors.js'
import { checkers, METHODS, OPTIONAL_PARAMS, TIME_FIELDS, type Method } from './schema.js'

/** Most messages one batch may hold (a larger batch is one -32600). */
export const MAX_BATCH = 1000

/** One inbound message, classified. */
export type Inbound =
  | { kind: 'request'; id: RpcId; method: Method; params: unknown }
  | { kind: 'notification'; method: Method; params: unknown }
  /** A peer's answer to a request the hub sent it. */
  | { kind: 'response'; id: RpcId; result?: unknown; error?: RpcErrorObject }
  /** Invalid: answer `error` with `id` (null when the id itself could not be read), unless it was a notification. */
  | { kind: 'invalid'; id: RpcId; error: RpcErrorObject; notification: boolean }

/** A parsed body: one message or a batch. An empty or oversized batch is one invalid item, not a batch. */
export type Parsed = { batch: false; items: [Inbound] } | { batch: true; items: Inbound[] }

const METHOD_SET = new Set<string>(METHODS)
const validId = (id: unknown): id is RpcId => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))
const one = (item: Inbound): Parsed => ({ batch: false, items: [item] })

function invalid(id: RpcId, code: number, message: string, data?: Record<string, unknown>, notification = false): Inbound {
  return { kind: 'invalid', id, notification, error: data === undefined ? { code, message } : { code, message, data } }
}

/** UTF-8 size of `text`, computed only when its length leaves it in doubt. */
function tooLarge(text: string, maxBytes: number): boolean {
  if (text.length > maxBytes) return true
  return text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes
}

/**
 * Parses a JSON-RPC body (one message or a batch). Checks, in order: size (`maxBytes`, when given), JSON,
 * batch shape, then each message (see `classify`). Pure; never throws.
 */
export function parse(text: string, maxDepth: number, maxBytes?: number): Parsed {
  if (maxBytes !== undefined && tooLarge(text, maxBytes)) {
    return one(invalid(null, RPC.invalidRequest, `Invalid Request: message exceeds ${maxBytes} bytes`, { field: 'message', maxBytes }))
  }
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch (err) {
    return one(invalid(null, RPC.parseError, `Parse error: ${(err as Error).message}`))
  }
  if (!Array.isArray(v)) return one(classify(v, maxDepth))
  if (v.length === 0) return one(invalid(null, RPC.invalidRequest, 'Invalid Request: empty batch', { field: 'batch' }))
  if (v.length > MAX_BATCH) return one(invalid(null, RPC.invalidRequest, `Invalid Request: a batch holds at most ${MAX_BATCH} messages`, { field: 'batch', maxBatch: MAX_BATCH }))
  return { batch: true, items: v.map((x) => classify(x, maxDepth)) }
}

/** `/a/0/b` → `params.a.0.b` */
const field = (path: string) => `params${path.replace(/\//g, '.')}`

/** A readable reason for the first schema error, listing the allowed values of an enum. */
function reason(schema: TSchema, message: string): string {
  const options = (schema.anyOf as TSchema[] | undefined)?.map((s) => s.const as unknown)
  if (options?.length && options.every((o) => typeof o === 'string')) return `must be one of ${options.join(', ')}`
  return message.charAt(0).toLowerCase() + message.slice(1)
}

/** Classifies one message of a body and validates its params against the method's schema. */
export function classify(v: unknown, maxDepth: number): Inbound {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return invalid(null, RPC.invalidRequest, 'Invalid Request: a message must be an object')
  const m = v as Record<string, unknown>
  const hasId = Object.hasOwn(m, 'id')
  if (hasId && !validId(m.id)) return invalid(null, RPC.invalidRequest, 'Invalid Request: "id" must be a string, a number or null', { field: 'id' })
  const id: RpcId = hasId ? (m.id as RpcId) : null
  if (m.jsonrpc !== '2.0') return invalid(id, RPC.invalidRequest, 'Invalid Request: "jsonrpc" must be "2.0"', { field: 'jsonrpc' })
  if (m.method === undefined && hasId && (Object.hasOwn(m, 'result') || Object.hasOwn(m, 'error'))) {
    const e = m.error as RpcErrorObject | undefined
    return { kind: 'response', id, result: m.result, ...(e !== undefined && e !== null ? { error: e } : {}) }
  }
  if (typeof m.method !== 'string') return invalid(id, RPC.invalidRequest, 'Invalid Request: "method" must be a string', { field: 'method' })
  if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null)) {
    return invalid(id, RPC.invalidRequest, 'Invalid Request: "params" must be an object or an array', { field: 'params' })
  }
  const notification = !hasId
  if (!METHOD_SET.has(m.method)) {
    const name = m.method.slice(0, 64)
    return invalid(id, RPC.methodNotFound, `Method not found: ${name}`, { method: name }, notification)
  }
  const method = m.method as Method
  const shape = checkJsonShape(m.params, maxDepth)
  if (shape) return invalid(id, RPC.invalidParams, `Invalid params: ${shape.message}`, { field: field(String(shape.details?.path ?? '')), reason: shape.code }, notification)
  const checker = checkers[method]
  const value = m.params === undefined && OPTIONAL_PARAMS.has(method) ? {} : m.params
  if (!checker.Check(value)) {
    const first = checker.Errors(value).First()
    const f = field(first?.path ?? '')
    const why = first ? reason(first.schema, first.message) : 'is invalid'
    return invalid(id, RPC.invalidParams, `Invalid params: ${f} ${why}`, { field: f }, notification)
  }
  for (const key of TIME_FIELDS[method] ?? []) {
    const t = (m.params as Record<string, unknown> | undefined)?.[key]
    if (typeof t === 'string' && Number.isNaN(Date.parse(t))) {
      return invalid(id, RPC.invalidParams, `Invalid params: params.${key} is not a valid ISO 8601 date-time`, { field: `params.${key}` }, notification)
    }
  }
  return notification ? { kind: 'notification', method, params: m.params } : { kind: 'request', id, method, params: m.params }
}
