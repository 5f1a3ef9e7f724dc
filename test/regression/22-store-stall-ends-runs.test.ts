// Issue 22, finding 2 (last part): a store whose commits kept failing was retried forever while the run went
// on producing and its clients heard nothing. After `storeStallMs` of failures the runs whose events wait stop
// with `unavailable`, their clients are told at once in their dialect (HAI error frame, AG-UI RUN_ERROR that
// ends the stream), new runs are refused with the reason, and once the store recovers the retried events —
// the run's end included — are stored and delivered, nothing lost.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { textOf } from '../../src/dialects/hai/client.js'
import { agentFor } from '../agui-support.js'
import { FlakyBackend } from '../support/delegating-backend.js'
import { startServer } from '../harness.js'

test('commits failing for storeStallMs stop the waiting run, tell its HAI client now, refuse new runs, and deliver the stored end after recovery', async (t) => {
  const backend = new FlakyBackend()
  const s = await startServer({ store: backend, limits: { storeStallMs: 300 } })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('count 2')
  assert.equal(textOf(await c.untilCompleted()), '1 2 ')

  backend.broken = true
  c.say('slow')
  const told = await c.next((m) => m.type === 'error' && m.error_code === 'unavailable', 15_000)
  assert.match(told.type === 'error' ? told.message : '', /the store has failed to commit for \d+\.\d s \(disk I\/O error\): the run was stopped/)

  c.say('count 3')
  const refused = await c.next((m) => m.type === 'error', 10_000)
  assert.equal(refused.type === 'error' && refused.error_code, 'unavailable')
  assert.match(refused.type === 'error' ? refused.message : '', /no run starts until it recovers/)

  backend.broken = false
  // The run's end, retried with the rest, arrives once stored.
  await c.next((m) => m.type === 'error' && m.error_code === 'unavailable' && /the run was stopped/.test(m.message), 15_000)
  await c.next((m) => m.type === 'status' && m.status === 'completed')
  c.say('count 3')
  const after = await c.untilCompleted(15_000)
  assert.equal(textOf(after), '1 2 3 ')
})

test('an AG-UI stream whose run stalls on the store ends with RUN_ERROR unavailable instead of hanging', async (t) => {
  const backend = new FlakyBackend()
  const s = await startServer({ store: backend, limits: { storeStallMs: 300 } })
  t.after(() => s.close())
  const agent = agentFor(s.url, randomUUID())
  agent.addMessage({ id: randomUUID(), role: 'user', content: 'slow' })
  const events: Array<{ type: string; code?: string; message?: string }> = []
  // A RUN_ERROR ends the client's run without rejecting it: any rejection (a cut stream) fails the test.
  await agent.runAgent(
    {},
    {
      onEvent({ event }) {
        const e: { type: string; code?: string; message?: string } = event
        events.push(e)
        if (e.type === 'TEXT_MESSAGE_CONTENT') backend.broken = true
      },
    },
  )
  const end = events[events.length - 1]!
  assert.equal(end.type, 'RUN_ERROR', JSON.stringify(events.map((e) => e.type)))
  assert.equal(end.code, 'unavailable')
  assert.match(end.message ?? '', /the store has failed to commit/)
  backend.broken = false
})
