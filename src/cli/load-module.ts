import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * Loads a user's agent module whatever its project: ESM (`"type": "module"`, `.mjs`, `.mts`) through `import()`,
 * CommonJS (npm's default `"type": "commonjs"`, `.cjs`, `.cts`) through `require`, TypeScript through tsx in
 * the matching mode. A `.ts` agent in a CommonJS project was imported as ESM and died with "Cannot require() ES
 * Module … in a cycle"; loaded as the CommonJS module it is, its `import … from 'parlance-gateway'` becomes a
 * require of the package, which Node ≥ 20.19 answers with the ES module itself (require(esm)).
 */
export async function loadModule(file: string, spec: string): Promise<Record<string, unknown>> {
  const ts = /\.[cm]?ts$/.test(file)
  if (formatOf(file) === 'module') {
    if (ts) await registerTsx(spec, 'esm')
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>
  }
  if (ts) await registerTsx(spec, 'cjs')
  const exported = createRequire(file)(file) as unknown
  // `module.exports = agent` as well as `exports.default` / `exports.agent` (what `export default` compiles to).
  return typeof exported === 'object' && exported !== null ? { default: exported, ...(exported as Record<string, unknown>) } : { default: exported }
}

/** 'module' or 'commonjs', as Node decides for this file: its extension, else the nearest package.json's "type". */
export function formatOf(file: string): 'module' | 'commonjs' {
  if (/\.m[jt]s$/.test(file)) return 'module'
  if (/\.c[jt]s$/.test(file)) return 'commonjs'
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json')
    if (existsSync(pkg)) {
      try {
        return (JSON.parse(readFileSync(pkg, 'utf8')) as { type?: unknown }).type === 'module' ? 'module' : 'commonjs'
      } catch {
        return 'commonjs' // Node reads an unreadable package.json's scope as CommonJS too (and says so itself)
      }
    }
    if (dirname(dir) === dir) return 'commonjs'
  }
}

/** Registers tsx's loader for TypeScript (ESM or CommonJS mode) when the project has tsx; otherwise says how to run a .ts agent. */
async function registerTsx(spec: string, mode: 'esm' | 'cjs'): Promise<void> {
  try {
    const api = (mode === 'esm' ? await import('tsx/esm/api') : await import('tsx/cjs/api')) as { register(): unknown }
    api.register()
  } catch {
    throw new Error(`--agent ${spec}: a TypeScript agent needs tsx (npm install --save-dev tsx), or build it to JavaScript and pass the .js file`)
  }
}

/**
 * What a module that failed to load threw, with the file and line: its stack without Node's own frames (the
 * loader's). A JavaScript syntax error's stack names no file when `import()` compiled it, so `node --check` (what
 * Node prints for it when run directly: file, line, the line itself and a caret) goes first.
 */
export function loadErrorText(err: unknown, file: string): string {
  if (!(err instanceof Error) || !err.stack) return String(err)
  const stack = err.stack
    .split('\n')
    .filter((line) => !/^\s+at (?:async )?(?:.*\()?node:/.test(line))
    .join('\n')
  if (!(err instanceof SyntaxError) || stack.includes(file) || !/\.[cm]?js$/.test(file)) return stack
  const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10_000 })
  const where = check.stderr.split(/\n\n/)[0]?.trim()
  return where && where.includes(file) ? `${where}\n\n${stack}` : stack
}
