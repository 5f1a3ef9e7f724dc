import { checkJsonShape, parseJson, ParlanceError, stringOf, type DecodeLimits, type Decoded } from '../../core/index.js'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { TSchema, Static } from '@sinclair/typebox'
import { ChatCompletionRequest, ResponseRequest } from './wire.js'

/** `/messages/1/content` → `messages[1].content`, the way OpenAI names a `param`. */
const param = (path: string) =>
  path
    .replace(/^\//, '')
    .replace(/\/(\d+)/g, '[$1]')
    .replace(/\//g, '.')

/** A field the schema lets through but Parlance cannot serve: its path and why. */
type Refusal = { field: string; message: string } | null

const TEXT_PARTS = new Set(['text', 'input_text', 'output_text'])

/** The first content part that is not text, in `content` at `field`. */
function nonText(content: unknown, field: string): Refusal {
  if (!Array.isArray(content)) return null
  const kind = (p: unknown) => (typeof p === 'object' && p !== null ? String((p as { type?: unknown }).type) : p === null ? 'null' : typeof p)
  const i = content.findIndex((p: unknown) => !TEXT_PARTS.has(kind(p)))
  return i < 0 ? null : { field: `${field}[${i}]`, message: `only text content is supported, not "${kind(content[i])}" parts` }
}

function chatRefusal(body: ChatCompletionRequest): Refusal {
  for (const [i, m] of body.messages.entries()) {
    const r = nonText(m.content, `messages[${i}].content`)
    if (r) return r
  }
  return null
}

function responseRefusal(body: ResponseRequest): Refusal {
  if (Array.isArray(body.input)) {
    for (const [i, item] of body.input.entries()) {
      const r = 'content' in item ? nonText(item.content, `input[${i}].content`) : null
      if (r) return r
    }
  }
  const t = (body.tools ?? []).findIndex((x) => x.type !== 'function' || !x.name)
  if (t >= 0) {
    return {
      field: `tools[${t}]`,
      message: `only function tools (run by the client) are supported, not "${body.tools![t]!.type}" (the agent has its own tools)`,
    }
  }
  return null
}

function decoder<T extends TSchema>(schema: T, refuse: (v: Static<T>) => Refusal) {
  const checker = TypeCompiler.Compile(schema)
  /** Pure; never throws; an error names the field at fault (`details.field`, OpenAI's `param`). */
  return (body: string, limits: Pick<DecodeLimits, 'maxJsonDepth'>): Decoded<Static<T>> => {
    const parsed = parseJson(body)
    if (!parsed.ok) return parsed
    const v = parsed.value
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      return { ok: false, error: new ParlanceError('invalid_message', 'the body must be a JSON object', {}) }
    const shape = checkJsonShape(v, limits.maxJsonDepth)
    if (shape) return { ok: false, error: new ParlanceError(shape.code, shape.message, { field: param(stringOf(shape.details?.path)) }) }
    if (checker.Check(v)) {
      const r = refuse(v)
      return r ? { ok: false, error: new ParlanceError('invalid_message', `${r.field}: ${r.message}`, { field: r.field }) } : { ok: true, value: v }
    }
    // The first error, or, when it is a union's, the deepest error inside that union names the field best.
    let first: { path: string; message: string } | undefined
    for (const e of checker.Errors(v)) {
      if (!first) first = e
      else if (e.path.startsWith(first.path) && e.path.length > first.path.length) first = e
    }
    const field = param(first?.path ?? '')
    return {
      ok: false,
      error: new ParlanceError('invalid_message', `${field || 'body'}: ${first?.message.toLowerCase() ?? 'is invalid'}`, { field }),
    }
  }
}

/** Decodes a `POST /v1/chat/completions` body. */
export const decodeChatCompletion = decoder(ChatCompletionRequest, chatRefusal)
/** Decodes a `POST /v1/responses` body. */
export const decodeResponseRequest = decoder(ResponseRequest, responseRefusal)
