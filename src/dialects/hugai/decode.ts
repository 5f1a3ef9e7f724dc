import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { checkJsonShape, classifyRpc, parseRpc, type MethodCheck, type RpcInbound, type RpcParsed, stringOf } from '../../core/index.js'
import { RPC } from './errors.js'
import { METHODS, OPTIONAL_PARAMS, params as PARAMS, TIME_FIELDS, type Method } from './wire.js'

/** Most messages one batch may hold (a larger batch is one -32600). */
export const MAX_BATCH = 1000

/** One inbound message, classified. */
export type Inbound = RpcInbound<Method>
/** A parsed body: one message or a batch. */
export type Parsed = RpcParsed<Method>

/** Compiled params schemas, by method. */
const checkers = Object.fromEntries(Object.entries(PARAMS).map(([k, v]) => [k, TypeCompiler.Compile(v)])) as unknown as Record<
  Method,
  TypeCheck<TSchema>
>
const METHOD_SET = new Set<string>(METHODS)

/** `/a/0/b` → `params.a.0.b` */
const field = (path: string) => `params${path.replace(/\//g, '.')}`

/** A readable reason for the first schema error, listing the allowed values of an enum. */
function reason(schema: TSchema, message: string): string {
  const options = (schema.anyOf as TSchema[] | undefined)?.map((s) => s.const as unknown)
  if (options?.length && options.every((o) => typeof o === 'string')) return `must be one of ${options.join(', ')}`
  return message.charAt(0).toLowerCase() + message.slice(1)
}

/** Validates a HugAI method and its params (schema, forbidden keys and depth, ISO 8601 time fields). */
function checkMethod(name: string, params: unknown, maxDepth: number): MethodCheck<Method> {
  const fail = (code: number, message: string, data: Record<string, unknown>): MethodCheck<Method> => ({ ok: false, error: { code, message, data } })
  if (!METHOD_SET.has(name)) {
    const short = name.slice(0, 64)
    return fail(RPC.methodNotFound, `Method not found: ${short}`, { method: short })
  }
  const method = name as Method
  const shape = checkJsonShape(params, maxDepth)
  if (shape) return fail(RPC.invalidParams, `Invalid params: ${shape.message}`, { field: field(stringOf(shape.details?.path)), reason: shape.code })
  const checker = checkers[method]
  const value = params === undefined && OPTIONAL_PARAMS.has(method) ? {} : params
  if (!checker.Check(value)) {
    const first = checker.Errors(value).First()
    const f = field(first?.path ?? '')
    const why = first ? reason(first.schema, first.message) : 'is invalid'
    return fail(RPC.invalidParams, `Invalid params: ${f} ${why}`, { field: f })
  }
  for (const key of TIME_FIELDS[method] ?? []) {
    const t = (params as Record<string, unknown> | undefined)?.[key]
    if (typeof t === 'string' && Number.isNaN(Date.parse(t)))
      return fail(RPC.invalidParams, `Invalid params: params.${key} is not a valid ISO 8601 date-time`, { field: `params.${key}` })
  }
  return { ok: true, method, params }
}

/**
 * Parses a JSON-RPC body (one message or a batch). Checks, in order: size (`maxBytes`, when given), JSON,
 * batch shape, then each message (see `classify`). Pure; never throws.
 */
export function parse(text: string, maxDepth: number, maxBytes?: number): Parsed {
  return parseRpc(text, {
    maxBatch: MAX_BATCH,
    ...(maxBytes !== undefined ? { maxBytes } : {}),
    method: (name, params) => checkMethod(name, params, maxDepth),
  })
}

/** Classifies one message of a body and validates its params against the method's schema. */
export function classify(v: unknown, maxDepth: number): Inbound {
  return classifyRpc(v, { method: (name, params) => checkMethod(name, params, maxDepth) })
}
