import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { test } from 'node:test'

// STYLE.md §1: dependencies point one way. Each layer may import only these layers (besides itself).
const ALLOWED: Record<string, string[]> = {
  core: [],
  agent: ['core'],
  store: ['core'],
  dialects: ['core'],
  transports: ['core'],
  session: ['core', 'agent', 'store'],
  cluster: ['core', 'store', 'session'],
  client: [],
  agents: ['core', 'agent', 'dialects'], // a bridge agent speaks a dialect as a client, with its codec
  server: ['core', 'agent', 'store', 'session', 'cluster', 'dialects', 'transports', 'client'],
  cli: ['core', 'agent', 'agents', 'server', 'client'],
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  )
}

test('source layers import only the layers below them', () => {
  const root = new URL('../src', import.meta.url).pathname
  const violations: string[] = []
  for (const file of files(root)) {
    const rel = relative(root, file).split(sep)
    if (rel.length === 1) continue // src/index.ts wires the public API
    const layer = rel[0]!
    const allowed = ALLOWED[layer]
    assert.ok(allowed, `unknown layer ${layer} (add it to ALLOWED)`)
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/from '(\.[^']+)'/g)) {
      const target = relative(root, join(file, '..', m[1]!)).split(sep)[0]!
      if (target !== layer && !allowed.includes(target)) violations.push(`${relative(root, file)} imports ${m[1]} (${layer} → ${target})`)
    }
  }
  assert.deepEqual(violations, [])
})

test('dialect folders do not import each other', () => {
  const root = new URL('../src/dialects', import.meta.url).pathname
  for (const file of files(root)) {
    const own = relative(root, file).split(sep)[0]
    for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const target = relative(root, join(file, '..', m[1]!)).split(sep)[0]
      assert.ok(target === own || target === '..', `${file} imports another dialect: ${m[1]}`)
    }
  }
})
