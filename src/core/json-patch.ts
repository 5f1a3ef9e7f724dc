import type { Json, PatchOp } from './events.js'
import { ParlanceError } from './errors.js'

// RFC 6902 JSON Patch applied in place, all or nothing, at the cost of the patch rather than the document:
// each operation walks its path and touches only the values it names, an undo log takes a refused patch back,
// and the document's JSON size is kept by difference (the values added less those removed). Hand-written
// because the libraries either clone the whole document to apply a patch atomically (fast-json-patch with
// `mutateDocument: false`, and its validation of every `move` and `copy`), or mutate it in place with no way
// back when a later operation of the patch fails (fast-json-patch, rfc6902), or copy every object on the path
// (immer), which for a state keeping its items in one object is the whole state again.

/** What applying a patch did: the new root (a patch may replace it) and the document's JSON size after it. */
export interface Patched {
  doc: Json
  /** The document's JSON size (UTF-8 bytes), estimated from the size before it and the values touched. */
  bytes: number
  /** About the patch's own JSON size (paths, and the values it carried or copied). */
  patchBytes: number
  /** Takes the patch back: every operation undone in reverse order; returns the root as it was. */
  undo(): Json
}

type Container = Record<string, unknown> | unknown[]

/** One undo step: how to put `parent` back as it was. */
type Undo =
  | { kind: 'set'; parent: Record<string, unknown>; key: string; had: boolean; old: unknown }
  | { kind: 'arraySet'; parent: unknown[]; index: number; old: unknown }
  | { kind: 'insert'; parent: unknown[]; index: number }
  | { kind: 'splice'; parent: unknown[]; index: number; old: unknown }

const OPS: ReadonlySet<string> = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test'])

/** UTF-8 byte length of `value` as JSON (0 for a value JSON cannot hold). */
export function jsonBytes(value: unknown): number {
  const s = JSON.stringify(value)
  return s === undefined ? 0 : Buffer.byteLength(s)
}

/** A copy of `value` the document can own (JSON in, JSON out), with its JSON size (UTF-8 bytes). */
export function ownedCopy(value: unknown): { value: unknown; bytes: number } {
  if (value === null || typeof value === 'boolean') return { value, bytes: value === null ? 4 : value ? 4 : 5 }
  const s = JSON.stringify(value)
  if (s === undefined) return { value: null, bytes: 4 }
  // Strings and numbers are immutable: no copy; objects and arrays are parsed back, so the document never
  // shares an object with the event that carried it (a later patch would change the stored event).
  return { value: typeof value === 'object' ? JSON.parse(s) : value, bytes: Buffer.byteLength(s) }
}

/** JSON size of an object member `"key":` plus its comma (an estimate: the last member has none). */
function memberBytes(key: string): number {
  return Buffer.byteLength(JSON.stringify(key)) + 2
}

function fail(i: number, op: PatchOp, why: string): never {
  throw new ParlanceError('invalid_message', `invalid JSON Patch: operation ${i} (${String(op?.op)} ${String(op?.path)}): ${why}`, {
    field: `patch[${i}]`,
  })
}

/** The reference tokens of a JSON Pointer (RFC 6901); throws on a pointer that does not start with '/'. */
function tokens(pointer: unknown, i: number, op: PatchOp): string[] {
  if (typeof pointer !== 'string') fail(i, op, 'the path (or from) is not a string')
  if (pointer === '') return []
  if (pointer[0] !== '/') fail(i, op, `"${pointer}" does not start with "/"`)
  const parts = pointer.slice(1).split('/')
  for (let k = 0; k < parts.length; k++) {
    const t = parts[k]!
    if (t.includes('~')) {
      if (/~[^01]|~$/.test(t)) fail(i, op, `"${pointer}" has a "~" not followed by 0 or 1`)
      parts[k] = t.replace(/~1/g, '/').replace(/~0/g, '~')
    }
    if (parts[k] === '__proto__') fail(i, op, 'the key "__proto__" is not allowed')
  }
  return parts
}

const INDEX = /^(0|[1-9][0-9]*)$/

/** The container holding the last token of `path` (walked from `doc`), or a failure naming the step that is missing. */
function parentOf(doc: unknown, path: readonly string[], i: number, op: PatchOp): Container {
  let at: unknown = doc
  for (let k = 0; k < path.length - 1; k++) {
    const t = path[k]!
    if (Array.isArray(at)) {
      if (!INDEX.test(t) || Number(t) >= at.length) fail(i, op, `no element ${t} in the array at /${path.slice(0, k).join('/')}`)
      at = at[Number(t)]
    } else if (at !== null && typeof at === 'object') {
      if (!Object.hasOwn(at, t)) fail(i, op, `no member "${t}" at /${path.slice(0, k).join('/')}`)
      at = (at as Record<string, unknown>)[t]
    } else fail(i, op, `/${path.slice(0, k).join('/')} is not an object or array`)
  }
  if (at === null || typeof at !== 'object') fail(i, op, `/${path.slice(0, -1).join('/')} is not an object or array`)
  return at as Container
}

/** The value at `path` (which must exist). */
function valueAt(doc: unknown, path: readonly string[], i: number, op: PatchOp): unknown {
  if (path.length === 0) return doc
  const parent = parentOf(doc, path, i, op)
  const key = path[path.length - 1]!
  if (Array.isArray(parent)) {
    if (!INDEX.test(key) || Number(key) >= parent.length) fail(i, op, `no element ${key} in the array`)
    return parent[Number(key)]
  }
  if (!Object.hasOwn(parent, key)) fail(i, op, `no member "${key}"`)
  return parent[key]
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let k = 0; k < a.length; k++) if (!deepEqual(a[k], b[k])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  for (const k of ka) if (!Object.hasOwn(b, k) || !deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false
  return true
}

/**
 * Applies `patch` to `doc` in place: all of it, or (on a bad operation) none of it, with an `invalid_message`
 * ParlanceError naming the operation. `bytes` is the document's JSON size before the patch (for the size after).
 * Added values are copied in, so the document shares nothing with the patch. The caller may still take the
 * whole patch back with `undo` (a limit the new size passes).
 */
export function patchInPlace(doc: Json, patch: readonly PatchOp[], bytes: number): Patched {
  if (!Array.isArray(patch)) throw new ParlanceError('invalid_message', 'invalid JSON Patch: not an array of operations')
  const log: Undo[] = []
  const original = doc
  let root: unknown = doc
  let size = bytes
  let patchBytes = 0
  const undo = (): Json => {
    for (let k = log.length - 1; k >= 0; k--) {
      const u = log[k]!
      if (u.kind === 'set') {
        if (u.had) u.parent[u.key] = u.old
        else delete u.parent[u.key]
      } else if (u.kind === 'arraySet') u.parent[u.index] = u.old
      else if (u.kind === 'insert') u.parent.splice(u.index, 1)
      else u.parent.splice(u.index, 0, u.old)
    }
    log.length = 0
    root = original
    return original
  }

  /** Puts `value` (already owned) at `path`; returns the JSON size it adds, removed values subtracted. */
  const put = (path: readonly string[], value: unknown, valueBytes: number, replace: boolean, i: number, op: PatchOp): number => {
    if (path.length === 0) {
      const before = size
      root = value
      return valueBytes - before
    }
    const parent = parentOf(root, path, i, op)
    const key = path[path.length - 1]!
    if (Array.isArray(parent)) {
      if (replace) {
        if (!INDEX.test(key) || Number(key) >= parent.length) fail(i, op, `no element ${key} in the array to replace`)
        const index = Number(key)
        const old = parent[index]
        log.push({ kind: 'arraySet', parent, index, old })
        parent[index] = value
        return valueBytes - jsonBytes(old)
      }
      const index = key === '-' ? parent.length : INDEX.test(key) ? Number(key) : -1
      if (index < 0 || index > parent.length) fail(i, op, `index ${key} is out of the array's bounds (0…${parent.length} or "-")`)
      parent.splice(index, 0, value)
      log.push({ kind: 'insert', parent, index })
      return valueBytes + 1
    }
    const had = Object.hasOwn(parent, key)
    if (replace && !had) fail(i, op, `no member "${key}" to replace`)
    const old = parent[key]
    log.push({ kind: 'set', parent, key, had, old })
    parent[key] = value
    return had ? valueBytes - jsonBytes(old) : valueBytes + memberBytes(key)
  }

  /** Removes the value at `path` (which must exist); returns it and the JSON size it took. */
  const take = (path: readonly string[], i: number, op: PatchOp): { value: unknown; valueBytes: number; bytes: number } => {
    if (path.length === 0) fail(i, op, 'the whole document cannot be removed')
    const parent = parentOf(root, path, i, op)
    const key = path[path.length - 1]!
    if (Array.isArray(parent)) {
      if (!INDEX.test(key) || Number(key) >= parent.length) fail(i, op, `no element ${key} in the array to remove`)
      const index = Number(key)
      const old = parent.splice(index, 1)[0]
      log.push({ kind: 'splice', parent, index, old })
      const b = jsonBytes(old)
      return { value: old, valueBytes: b, bytes: b + 1 }
    }
    if (!Object.hasOwn(parent, key)) fail(i, op, `no member "${key}" to remove`)
    const old = parent[key]
    log.push({ kind: 'set', parent, key, had: true, old })
    delete parent[key]
    const b = jsonBytes(old)
    return { value: old, valueBytes: b, bytes: b + memberBytes(key) }
  }

  try {
    for (let i = 0; i < patch.length; i++) {
      const op: PatchOp = (patch as readonly PatchOp[])[i]!
      if ((op as unknown) === null || typeof op !== 'object' || Array.isArray(op)) fail(i, op, 'not an object')
      if (!OPS.has(op.op)) fail(i, op, `"op" must be one of add, remove, replace, move, copy, test`)
      const path = tokens(op.path, i, op)
      patchBytes += op.path.length + (typeof op.from === 'string' ? op.from.length + 30 : 20)
      switch (op.op) {
        case 'add':
        case 'replace': {
          if (op.value === undefined) fail(i, op, 'no "value"')
          const v = ownedCopy(op.value)
          patchBytes += v.bytes
          size += put(path, v.value, v.bytes, op.op === 'replace', i, op)
          break
        }
        case 'remove':
          size -= take(path, i, op).bytes
          break
        case 'move': {
          const from = tokens(op.from, i, op)
          if (from.length < path.length && from.every((t, k) => t === path[k]))
            fail(i, op, '"from" is a proper prefix of "path" (a value cannot move into itself)')
          if (from.length === path.length && from.every((t, k) => t === path[k])) {
            valueAt(root, from, i, op)
            break
          }
          const moved = take(from, i, op)
          size -= moved.bytes
          size += put(path, moved.value, moved.valueBytes, false, i, op)
          break
        }
        case 'copy': {
          const from = tokens(op.from, i, op)
          const v = ownedCopy(valueAt(root, from, i, op))
          patchBytes += v.bytes
          size += put(path, v.value, v.bytes, false, i, op)
          break
        }
        case 'test':
          if (op.value === undefined) fail(i, op, 'no "value"')
          if (!deepEqual(valueAt(root, path, i, op), op.value)) fail(i, op, 'the test failed (the value differs)')
          break
      }
    }
  } catch (err) {
    undo()
    throw err
  }
  return { doc: root as Json, bytes: Math.max(0, size), patchBytes, undo }
}
