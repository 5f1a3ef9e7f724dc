// Parlance for the suite: the checkout's own sources, compiled by run.sh (test/support/compile.mjs, the same
// esbuild pass the main suite uses) into a directory named by PARLANCE_BUILD. Parlance's own dependencies
// resolve from the repo's node_modules; the clients under test from compat/node_modules.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { register } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const build = process.env.PARLANCE_BUILD
if (!build) throw new Error('PARLANCE_BUILD is not set: run the suite with compat/run.sh')

/** Imports a module of the checkout (`src/index.ts`, `test/support/fake-openai.ts`) from the compiled tree. */
export const load = (file) => import(join(build, file.replace(/\.ts$/, '.js')))

const { createServer, demoAgent } = await load('src/index.ts')
export { demoAgent }

/**
 * A Parlance server with `agents` (default: the demo agent) on 127.0.0.1:0, memory store; `url` and `close()`.
 * `options` go to createServer (e.g. `origins`).
 */
export async function startParlance(options = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'parlance-compat-'))
  const server = await createServer({ agents: [demoAgent], store: 'memory', logger: false, heartbeatIntervalMs: 0, dataDir, ...options })
  const url = await server.listen(0, '127.0.0.1')
  return {
    url,
    server,
    async close() {
      await server.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Makes the compiled tree's imports of the packages in `map` resolve to compat's packages named by its values. */
export function redirect(map) {
  register('./redirect-hooks.mjs', import.meta.url, {
    data: { map, build: pathToFileURL(build).href, from: pathToFileURL(join(import.meta.dirname, '..', 'package.json')).href },
  })
}
