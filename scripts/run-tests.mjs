// Runs every *.test.ts under src/ and test/ with node's test runner (TypeScript through tsx).
// Usage: node scripts/run-tests.mjs [filter-substring…]
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

function find(dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'fixtures') out.push(...find(p))
    } else if (entry.name.endsWith('.test.ts')) out.push(p)
  }
  return out
}

const filters = process.argv.slice(2)
const files = ['src', 'test']
  .flatMap(find)
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort()
if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=180000', ...files],
  { stdio: 'inherit' },
)
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)))
