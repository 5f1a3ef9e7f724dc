// Lets @modelcontextprotocol/conformance (built for Node 22, which added fs.globSync) run on Node 20:
// `node --import ./test/support/node20-fs-glob.mjs …/conformance/dist/index.js server …`. Its `import { globSync }
// from "fs"` resolves to a module that re-exports node:fs plus a globSync; the server scenarios never call it.
import { register } from 'node:module'

const shim = `export * from 'node:fs'
export { default } from 'node:fs'
export function globSync() {
  throw new Error('fs.globSync needs Node 22: this conformance feature is not available on Node 20')
}`
const hooks = `
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('@modelcontextprotocol/conformance')) {
    return { url: 'data:text/javascript,' + encodeURIComponent(${JSON.stringify(shim)}), shortCircuit: true }
  }
  return next(specifier, context)
}`
if (!('globSync' in (await import('node:fs')))) register(`data:text/javascript,${encodeURIComponent(hooks)}`)
