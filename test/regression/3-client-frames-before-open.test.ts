import assert from 'node:assert/strict'
import { test } from 'node:test'
import { textOf } from '../../src/client/index.js'
import { startServer } from '../harness.js'

// HaiClient set its onmessage handler after awaiting 'open'; frames the server sent right after
// the upgrade (a replay on attach) arrived in the same tick and were lost.
test('issue 3: frames sent immediately after the upgrade reach the client', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const a = await s.hai()
  a.say('count 3')
  await a.untilCompleted()
  const b = await s.hai({ sessionId: a.sessionId, resumeAfter: 0 })
  assert.equal(textOf(await b.untilCompleted()), '1 2 3 ')
})
