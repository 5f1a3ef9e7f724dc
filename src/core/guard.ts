import { ParlanceError } from './errors.js'

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * The shared structural guard every codec runs before its schema: rejects the
 * keys `__proto__`, `constructor` and `prototype` at any depth and nesting
 * deeper than `maxDepth`. Returns null when the value is clean.
 */
export function checkJsonShape(value: unknown, maxDepth: number): ParlanceError | null {
  // The hot path builds no strings: paths are worked out only once something is wrong.
  return clean(value, 0, maxDepth) ? null : walk(value, 0, maxDepth, '')
}

function clean(value: unknown, depth: number, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return true
  if (depth >= maxDepth) return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!clean(value[i], depth + 1, maxDepth)) return false
    return true
  }
  for (const key in value) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') return false
    if (!clean((value as Record<string, unknown>)[key], depth + 1, maxDepth)) return false
  }
  return true
}

/** The slow path: finds the offending key or depth and names its path. */
function walk(value: unknown, depth: number, maxDepth: number, path: string): ParlanceError | null {
  if (value === null || typeof value !== 'object') return null
  if (depth >= maxDepth) {
    return new ParlanceError('too_deep', `JSON nesting deeper than ${maxDepth} at ${path || '/'}`, { path, maxDepth })
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const err = walk(value[i], depth + 1, maxDepth, `${path}/${i}`)
      if (err) return err
    }
    return null
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN.has(key)) {
      return new ParlanceError('forbidden_key', `forbidden key "${key}" at ${path || '/'}`, { path: `${path}/${key}`, key })
    }
    const err = walk((value as Record<string, unknown>)[key], depth + 1, maxDepth, `${path}/${key}`)
    if (err) return err
  }
  return null
}

/**
 * JSON.parse that sees `"__proto__"` keys as data (JSON.parse already does) and
 * reports failures as a ParlanceError instead of throwing. `what` names the text in the error: a socket's
 * `frame`, or an HTTP request's `body`.
 */
export function parseJson(text: string, what: 'frame' | 'body' = 'frame'): { ok: true; value: unknown } | { ok: false; error: ParlanceError } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (err) {
    return { ok: false, error: new ParlanceError('invalid_json', `${what} is not valid JSON: ${(err as Error).message}`) }
  }
}

/**
 * A value from parsed JSON as text: a string as is, null/undefined as `fallback`, anything else as JSON (so an
 * object never turns into "[object Object]").
 */
export function stringOf(v: unknown, fallback = ''): string {
  if (typeof v === 'string') return v
  if (v === undefined || v === null) return fallback
  return typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? String(v) : (JSON.stringify(v) ?? fallback)
}

/**
 * The user-message limit every dialect shares (`limits.maxUserMessageChars`): characters are code points (an emoji
 * is one), counted only when the UTF-16 length alone exceeds the limit. Returns the `message_too_long` error, or
 * null when the message fits. `Session.handle` runs it on every `user.message` before anything is recorded, so no
 * dialect can skip it; the socket codecs also run it while decoding, to name their field.
 */
export function checkMessageLength(content: string, maxChars: number, field = 'content'): ParlanceError | null {
  if (content.length <= maxChars) return null
  let chars = 0
  for (let i = 0; i < content.length; i++, chars++) {
    const c = content.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < content.length) {
      const d = content.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
  }
  if (chars <= maxChars) return null
  return new ParlanceError('message_too_long', `${field} has ${chars} characters; the limit is ${maxChars}`, {
    field,
    length: chars,
    limit: maxChars,
  })
}
