import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { basename, join, relative, sep } from 'node:path'
import { test } from 'node:test'

// STYLE.md §1 and ARCHITECTURE.md "Layout: the dialect as the unit": dependencies point one way.

const root = new URL('../src', import.meta.url).pathname

// Each layer may import only these layers (besides itself).
const ALLOWED: Record<string, string[]> = {
  core: [],
  telemetry: [], // OpenTelemetry spans through @opentelemetry/api: used by session, binding and agents
  'agent-api': ['core'],
  store: ['core'],
  transports: ['core'],
  session: ['core', 'agent-api', 'store', 'telemetry'],
  cluster: ['core', 'store', 'session'],
  binding: ['core', 'session', 'transports', 'store', 'telemetry'],
  dialects: ['core', 'agent-api', 'binding', 'session', 'transports', 'client', 'telemetry'], // narrowed per file role below
  client: ['dialects'], // the shared client helpers, and `client/index.ts` re-exporting each dialect's client
  agents: ['core', 'agent-api', 'dialects', 'client', 'telemetry'], // a bridge agent speaks a dialect as a client, with its codec
  server: ['core', 'agent-api', 'store', 'session', 'cluster', 'dialects', 'transports', 'binding', 'client', 'telemetry'],
  cli: ['core', 'agent-api', 'agents', 'server', 'client', 'dialects'],
}

/**
 * Inside a dialect folder, by file role: the wire types and the pure codec import only core (and each other);
 * the client imports only its wire and the shared client helpers; the binding (and what it splits into) may
 * also import the shared binding runners, session and transports. Anything else in the folder is a binding
 * helper. Role names: `wire`, `codec`, `decode`, `encode`, `errors`, `client`, `capabilities`, `index`; a part split
 * out of one keeps its role as a prefix (`encode-system.ts` is an encoder).
 */
const PURE = new Set(['wire', 'codec', 'decode', 'encode', 'errors'])
const roleOf = (name: string): string => name.split('-')[0]!
function roleAllows(file: string, target: string, targetFile: string): boolean {
  const role = roleOf(basename(file, '.ts'))
  if (PURE.has(role)) return target === 'core'
  if (role === 'client') return target === 'client' && !targetFile.startsWith(`client${sep}index`)
  if (role === 'capabilities') return target === 'binding'
  return ALLOWED.dialects!.includes(target)
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  )
}

function imports(file: string): Array<{ spec: string; target: string[] }> {
  return [...readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)].map((m) => ({
    spec: m[1]!,
    target: relative(root, join(file, '..', m[1]!)).split(sep),
  }))
}

test('source layers import only the layers below them, and dialect files only what their role allows', () => {
  const violations: string[] = []
  for (const file of files(root)) {
    const rel = relative(root, file).split(sep)
    if (rel.length === 1) continue // src/index.ts, src/dialect-kit.ts: the public API
    const layer = rel[0]!
    const allowed = ALLOWED[layer]
    assert.ok(allowed, `unknown layer ${layer} (add it to ALLOWED)`)
    for (const { spec, target } of imports(file)) {
      const to = target[0]!
      if (to === layer && !(layer === 'dialects' && rel.length > 2)) continue
      const inDialect = layer === 'dialects' && rel.length > 2
      if (inDialect && to === 'dialects' && target[1] === rel[1]) {
        // Within the folder: pure files import only pure files.
        const role = roleOf(basename(file, '.ts'))
        if (PURE.has(role) && !PURE.has(roleOf(basename(target.at(-1)!, '.js'))))
          violations.push(`${relative(root, file)} imports ${spec} (a ${role} file imports only core and the folder's pure files)`)
        continue
      }
      const ok = inDialect ? roleAllows(file, to, target.join(sep)) : allowed.includes(to)
      if (!ok) violations.push(`${relative(root, file)} imports ${spec} (${inDialect ? `${basename(file)} in a dialect` : layer} → ${to})`)
    }
  }
  assert.deepEqual(violations, [])
})

test('dialect folders do not import each other; only the registry names them all', () => {
  const dir = join(root, 'dialects')
  const violations: string[] = []
  for (const file of files(dir)) {
    const own = relative(dir, file).split(sep)
    if (own.length === 1) continue // registry.ts
    for (const { spec, target } of imports(file)) {
      if (target[0] === 'dialects' && target[1] !== own[0]) violations.push(`${relative(root, file)} imports another dialect: ${spec}`)
    }
  }
  assert.deepEqual(violations, [])
})

test('every dialect folder has the one-folder shape', () => {
  const dir = join(root, 'dialects')
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
  for (const d of folders) {
    const present = new Set(readdirSync(join(dir, d)))
    for (const f of ['wire.ts', 'binding.ts', 'client.ts', 'capabilities.ts', 'index.ts']) assert.ok(present.has(f), `src/dialects/${d}/${f}`)
    // A Codec of its own, or (MCP, A2A: the protocol's SDK decodes and encodes the wire) a pure mapping to the SDK's shapes.
    assert.ok(present.has('codec.ts') !== present.has('mapping.ts'), `src/dialects/${d}: codec.ts or mapping.ts, one of them`)
  }
})

test('no source file over 400 lines', () => {
  const long = files(root)
    .map((f) => ({ f: relative(root, f), n: readFileSync(f, 'utf8').split('\n').length }))
    .filter((x) => x.n > 400)
  assert.deepEqual(long, [])
})
