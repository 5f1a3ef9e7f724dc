// Issue 20, findings 2 and 3 (MyAgent): the seed's response chain ends with agent.final_answer, but a plan's
// solver.completed came after it; and user.cancel was answered with error.execution (error_type cancelled),
// an error the seed does not define for a stop the user asked for. Now solver.completed precedes the final
// answer, and a user's cancel ends the turn with agent.final_answer (the text so far, or an empty answer
// marked cancelled), with no error event.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MyAgentClient, type MyAgentServerEvent } from '../../src/client/index.js'
import { startServer } from '../harness.js'

const answer = (e: MyAgentServerEvent) => e.event === 'agent.final_answer'

test('plan: solver.completed comes before agent.final_answer, which ends the chain', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await MyAgentClient.connect({ url: s.url })
  t.after(() => c.close())
  await c.createSession()
  c.message('make a plan')
  await c.next(answer)
  c.message('count 1') // a later turn: anything the plan run still had to send has arrived by its answer
  await c.next(answer)
  const names = c.received.map((e) => e.event)
  const solver = names.indexOf('solver.completed')
  const final = names.indexOf('agent.final_answer')
  assert.ok(solver !== -1 && solver < final, `solver.completed then agent.final_answer: ${names.join(', ')}`)
})

test('user.cancel while nothing is streamed (an approval waits) ends the turn with an empty final answer marked cancelled, not an error', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await MyAgentClient.connect({ url: s.url })
  t.after(() => c.close())
  await c.createSession()
  c.message('delete it')
  await c.next('agent.user_confirm')
  const from = c.received.length
  c.cancel('stop')
  const final = await c.next(answer)
  assert.deepEqual(final.content, { answer: '', answer_type: 'text' })
  assert.equal(final.metadata.cancelled, true)
  c.message('count 1')
  await c.next(answer)
  const after = c.received.slice(from).map((e) => e.event)
  assert.ok(!after.some((n) => n.startsWith('error.')), after.join(', '))
})
