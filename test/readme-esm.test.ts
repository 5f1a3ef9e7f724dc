// The README's code samples use top-level await, which a CommonJS project (npm init's default) cannot run: the
// README must say so, with the command that makes the project an ES module, before the first such sample (issue 46).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'

test('the README says "npm pkg set type=module" before its first sample with top-level await', () => {
  const md = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const samples = [...md.matchAll(/^```(?:ts|js)\n([\s\S]*?)^```\n/gm)]
  const first = samples.find((m) => /^(?:const .*= )?await /m.test(m[1]!))
  assert.ok(first, 'a sample with top-level await')
  const said = md.indexOf('npm pkg set type=module')
  assert.ok(said >= 0 && said < first.index, 'the ES module step comes before the first top-level await')
})
