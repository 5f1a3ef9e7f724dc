/** One RFC 6902 operation, as the dialects carry it. */
export interface PatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test'
  path: string
  value?: unknown
  from?: string
}

type Container = Record<string, unknown> | unknown[]

function tokens(pointer: string): string[] {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) throw new Error(`bad JSON pointer "${pointer}"`)
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
}

function parentOf(doc: unknown, pointer: string): { parent: Container; key: string } {
  const t = tokens(pointer)
  const key = t.pop()
  if (key === undefined) throw new Error('the root has no parent')
  let cur: unknown = doc
  for (const k of t) {
    if (typeof cur !== 'object' || cur === null) throw new Error(`path ${pointer} does not exist`)
    cur = (cur as Record<string, unknown>)[k]
  }
  if (typeof cur !== 'object' || cur === null) throw new Error(`path ${pointer} does not exist`)
  return { parent: cur as Container, key }
}

function get(doc: unknown, pointer: string): unknown {
  let cur = doc
  for (const k of tokens(pointer)) cur = (cur as Record<string, unknown> | undefined)?.[k]
  return cur
}

/**
 * Applies RFC 6902 operations to a copy of `doc` and returns it with the paths they touched (for highlighting).
 * Throws on a path that does not exist or a failed `test`.
 */
export function applyPatch(doc: unknown, ops: readonly PatchOp[]): { doc: unknown; changed: string[] } {
  let root: unknown = structuredClone(doc)
  const changed: string[] = []
  const put = (path: string, value: unknown, insert: boolean) => {
    if (path === '') return void (root = value)
    const { parent, key } = parentOf(root, path)
    if (Array.isArray(parent)) {
      const i = key === '-' ? parent.length : Number(key)
      if (insert) parent.splice(i, 0, value)
      else parent[i] = value
    } else parent[key] = value
  }
  const remove = (path: string) => {
    const { parent, key } = parentOf(root, path)
    if (Array.isArray(parent)) parent.splice(Number(key), 1)
    else delete parent[key]
  }
  for (const op of ops) {
    switch (op.op) {
      case 'add':
        put(op.path, structuredClone(op.value), true)
        break
      case 'replace':
        put(op.path, structuredClone(op.value), false)
        break
      case 'remove':
        remove(op.path)
        break
      case 'move': {
        const v = get(root, op.from ?? '')
        remove(op.from ?? '')
        put(op.path, v, true)
        break
      }
      case 'copy':
        put(op.path, structuredClone(get(root, op.from ?? '')), true)
        break
      case 'test':
        if (JSON.stringify(get(root, op.path)) !== JSON.stringify(op.value)) throw new Error(`test failed at ${op.path}`)
        continue
    }
    changed.push(op.path)
  }
  return { doc: root, changed }
}
