/**
 * JSON-RPC 2.0, the envelope: ids, error objects, the standard codes, the message builders, and a pure parser
 * of one message or a batch that leaves each method's params to the dialect. Shared by every JSON-RPC dialect
 * (HugAI parses with it; A2A and MCP, whose SDKs parse their own bodies, check the envelope with
 * `rpcEnvelopeError` first); the serving loops are in src/binding/jsonrpc.ts.
 */
import { checkJsonShape } from './guard.js'

/** A JSON-RPC id: string, number or null (null only when the request's id could not be read). */
export type RpcId = string | number | null

/** A JSON-RPC error object. */
export interface RpcErrorObject {
  code: number
  message: string
  data?: unknown
}

/** The standard error codes of JSON-RPC 2.0 (applications use -32000…-32099). */
export const JSONRPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const

/** A success response. */
export const rpcResult = (id: RpcId, value: unknown) => ({ jsonrpc: '2.0' as const, id, result: value === undefined ? null : value })
/** An error response. */
export const rpcError = (id: RpcId, e: RpcErrorObject) => ({ jsonrpc: '2.0' as const, id, error: e })
/** A notification (no id: never answered). */
export const rpcNotification = (method: string, params: unknown) => ({ jsonrpc: '2.0' as const, method, params })
/** A request sent to the other side. */
export const rpcRequest = (id: RpcId, method: string, params: unknown) => ({ jsonrpc: '2.0' as const, id, method, params })

/** One inbound message, classified. */
export type RpcInbound<M extends string = string> =
  | { kind: 'request'; id: RpcId; method: M; params: unknown }
  | { kind: 'notification'; method: M; params: unknown }
  /** The other side's answer to a request sent to it. */
  | { kind: 'response'; id: RpcId; result?: unknown; error?: RpcErrorObject }
  /** Invalid: answer `error` with `id` (null when the id itself could not be read), unless it was a notification. */
  | { kind: 'invalid'; id: RpcId; error: RpcErrorObject; notification: boolean }

/** A parsed body: one message or a batch. An empty or oversized batch is one invalid item, not a batch. */
export type RpcParsed<M extends string = string> = { batch: false; items: [RpcInbound<M>] } | { batch: true; items: Array<RpcInbound<M>> }

/** What the dialect says of one method call's params: valid (the method's name as the dialect types it), or the error. */
export type MethodCheck<M extends string> = { ok: true; method: M; params: unknown } | { ok: false; error: RpcErrorObject }

/** How a body is parsed. */
export interface RpcParseOptions<M extends string> {
  /** Largest body (UTF-8 bytes): a larger one is one Invalid Request. */
  maxBytes?: number
  /** Most messages one batch may hold. */
  maxBatch: number
  /** Validates a method and its params (unknown method → -32601, bad params → -32602); never throws. */
  method(name: string, params: unknown): MethodCheck<M>
}

/** Longest string id accepted: every response (and, on A2A and MCP, every event of a stream) echoes the id. */
export const MAX_RPC_ID_CHARS = 256

/**
 * A usable id: a string of at most `MAX_RPC_ID_CHARS`, an integer a JSON number holds exactly (JSON-RPC says ids
 * SHOULD NOT have fractions; A2A and MCP allow strings and integers only, and an id past 2^53 comes back changed),
 * or null (unless `nullId` is false: MCP forbids it).
 */
const validId = (id: unknown, nullId = true): id is RpcId =>
  (id === null && nullId) || (typeof id === 'string' && id.length <= MAX_RPC_ID_CHARS) || Number.isSafeInteger(id)
const ID_RULE = `"id" must be a string of at most ${MAX_RPC_ID_CHARS} characters, an integer of at most 2^53 - 1`
const one = <M extends string>(item: RpcInbound<M>): RpcParsed<M> => ({ batch: false, items: [item] })

/** An invalid item. */
export function rpcInvalid(id: RpcId, code: number, message: string, data?: Record<string, unknown>, notification = false): RpcInbound<never> {
  return { kind: 'invalid', id, notification, error: data === undefined ? { code, message } : { code, message, data } }
}

/** UTF-8 size of `text` over `maxBytes`, computed only when its length leaves it in doubt. */
function tooLarge(text: string, maxBytes: number): boolean {
  if (text.length > maxBytes) return true
  return text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes
}

/**
 * Parses a JSON-RPC body (one message or a batch). Checks, in order: size, JSON, batch shape, then each message
 * (envelope, then the dialect's `method` check). Pure; never throws.
 */
export function parseRpc<M extends string>(text: string, o: RpcParseOptions<M>): RpcParsed<M> {
  const E = JSONRPC_ERRORS
  if (o.maxBytes !== undefined && tooLarge(text, o.maxBytes)) {
    return one(rpcInvalid(null, E.invalidRequest, `Invalid Request: message exceeds ${o.maxBytes} bytes`, { field: 'message', maxBytes: o.maxBytes }))
  }
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch (err) {
    return one(rpcInvalid(null, E.parseError, `Parse error: ${(err as Error).message}`))
  }
  if (!Array.isArray(v)) return one(classifyRpc(v, o))
  if (v.length === 0) return one(rpcInvalid(null, E.invalidRequest, 'Invalid Request: empty batch', { field: 'batch' }))
  if (v.length > o.maxBatch)
    return one(
      rpcInvalid(null, E.invalidRequest, `Invalid Request: a batch holds at most ${o.maxBatch} messages`, { field: 'batch', maxBatch: o.maxBatch }),
    )
  return { batch: true, items: v.map((x) => classifyRpc(x, o)) }
}

/** Classifies one message: a response, an invalid message, or a request / notification whose params the dialect accepted. */
export function classifyRpc<M extends string>(v: unknown, o: Pick<RpcParseOptions<M>, 'method'>): RpcInbound<M> {
  const E = JSONRPC_ERRORS
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return rpcInvalid(null, E.invalidRequest, 'Invalid Request: a message must be an object')
  const m = v as Record<string, unknown>
  const hasId = Object.hasOwn(m, 'id')
  if (hasId && !validId(m.id)) return rpcInvalid(null, E.invalidRequest, `Invalid Request: ${ID_RULE} or null`, { field: 'id' })
  const id: RpcId = hasId ? (m.id as RpcId) : null
  if (m.jsonrpc !== '2.0') return rpcInvalid(id, E.invalidRequest, 'Invalid Request: "jsonrpc" must be "2.0"', { field: 'jsonrpc' })
  if (m.method === undefined && hasId && (Object.hasOwn(m, 'result') || Object.hasOwn(m, 'error'))) {
    const e = m.error as RpcErrorObject | undefined
    return { kind: 'response', id, result: m.result, ...(e !== undefined && e !== null ? { error: e } : {}) }
  }
  if (typeof m.method !== 'string') return rpcInvalid(id, E.invalidRequest, 'Invalid Request: "method" must be a string', { field: 'method' })
  if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null)) {
    return rpcInvalid(id, E.invalidRequest, 'Invalid Request: "params" must be an object or an array', { field: 'params' })
  }
  const notification = !hasId
  const checked = o.method(m.method, m.params)
  if (!checked.ok) return { kind: 'invalid', id, notification, error: checked.error }
  return notification
    ? { kind: 'notification', method: checked.method, params: checked.params }
    : { kind: 'request', id, method: checked.method, params: checked.params }
}

/** What `rpcEnvelopeError` checks beside the envelope. */
export interface RpcEnvelopeOptions {
  /** Deepest nesting of the whole body (`Limits.maxJsonDepth`). */
  maxDepth: number
  /** A null id is valid (JSON-RPC allows it; MCP does not). @default true */
  nullId?: boolean
}

/**
 * The Invalid Request (-32600) a parsed body earns before a dialect's own parser (an SDK's) reads it, or null:
 * JSON nested deeper than `maxDepth` or holding a forbidden key anywhere, or a message whose id is not valid (an
 * array, an object, a boolean, a fraction, an integer past 2^53, a string over `MAX_RPC_ID_CHARS`). `id` is what
 * the error answers to: the message's id when valid, else null. A batch's messages are checked each; anything else
 * (method, params) is left to the dialect. Pure; never throws, whatever the body's depth.
 */
export function rpcEnvelopeError(body: unknown, o: RpcEnvelopeOptions): { id: RpcId; error: RpcErrorObject } | null {
  const nullId = o.nullId ?? true
  const messages: unknown[] = Array.isArray(body) ? body : [body]
  for (const m of messages) {
    if (typeof m !== 'object' || m === null || Array.isArray(m) || !Object.hasOwn(m, 'id')) continue
    const id = (m as { id: unknown }).id
    if (!validId(id, nullId))
      return {
        id: null,
        error: { code: JSONRPC_ERRORS.invalidRequest, message: `Invalid Request: ${ID_RULE}${nullId ? ' or null' : ''}`, data: { field: 'id' } },
      }
  }
  const shape = checkJsonShape(body, o.maxDepth)
  if (!shape) return null
  const first = messages[0] as { id?: unknown } | null | undefined
  const id = !Array.isArray(body) && typeof first === 'object' && first !== null && validId(first.id, nullId) ? first.id : null
  return {
    id,
    error: {
      code: JSONRPC_ERRORS.invalidRequest,
      message: `Invalid Request: ${shape.message}`,
      data: { field: 'body', reason: shape.code, ...shape.details },
    },
  }
}
