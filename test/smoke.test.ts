import assert from 'node:assert/strict'
import { test } from 'node:test'
import { textOf } from '../src/client/index.js'
import { startServer } from './harness.js'

test('echo streams over HAI and ends with status completed', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello')
  const msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'Echo: hello')
})
