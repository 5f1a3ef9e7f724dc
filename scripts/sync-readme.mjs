// Copies the `#region readme` of examples/hello-agent.ts into README.md between
// the hello-agent markers, so the README snippet is the file a test executes.
// Usage: node scripts/sync-readme.mjs [--check]
import { readFileSync, writeFileSync } from 'node:fs'

export function snippet() {
  const src = readFileSync(new URL('../examples/hello-agent.ts', import.meta.url), 'utf8')
  const m = /\/\/ #region readme\n([\s\S]*?)\/\/ #endregion/.exec(src)
  if (!m) throw new Error('examples/hello-agent.ts has no #region readme')
  return m[1]
}

export function synced(readme) {
  return readme.replace(/(<!-- hello-agent:start -->\n```ts\n)[\s\S]*?(```\n<!-- hello-agent:end -->)/, (_, a, b) => `${a}${snippet()}${b}`)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = new URL('../README.md', import.meta.url)
  const readme = readFileSync(path, 'utf8')
  const next = synced(readme)
  if (process.argv.includes('--check')) {
    if (next !== readme) {
      console.error('README.md is out of sync with examples/hello-agent.ts: run node scripts/sync-readme.mjs')
      process.exit(1)
    }
  } else writeFileSync(path, next)
}
