import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { HaiClient, textOf } from '../src/client/index.js'
// @ts-expect-error plain .mjs helper without types
import { synced } from '../scripts/sync-readme.mjs'
import { startExample } from './support/run-example.js'

test('README snippet is examples/hello-agent.ts', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  assert.equal((synced as (s: string) => string)(readme), readme, 'run npm run sync-readme')
})

test('README opens with the install+start and test commands', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
  assert.match(firstBlock, /^npm install && npm start\b/m)
  assert.match(firstBlock, /^npm test\b/m)
})

test('examples/hello-agent.ts runs and answers over HAI', async (t) => {
  const url = await startExample(t, 'hello-agent.ts')
  const c = await HaiClient.connect({ url })
  t.after(() => c.close())
  c.say('hi there')
  const msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'You said HI THERE!')
  assert.ok(msgs.some((m) => m.type === 'tool_call_end' && m.tool_name === 'shout' && m.result === 'HI THERE'))
})
