// @ag-ui/client's HttpAgent in Node, the 0.0.59 CopilotKit pins and 1.0: a run, an approval interrupt answered
// in a new run and in a request that reuses the interrupted run's runId (CopilotKit's habit), a refusal, shared
// state. Events are collected in onEvent and checked after runAgent settles (the client swallows what a
// subscriber throws).
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { HttpAgent } from '@ag-ui/client'
import { HttpAgent as HttpAgent0059 } from 'ag-ui-client-0059'
import { CLIENTS } from '../lib/clients.mjs'
import { startParlance } from '../lib/parlance.mjs'

let parlance
before(async () => (parlance = await startParlance()))
after(() => parlance?.close())

async function run(agent, text, params = {}) {
  if (text !== null) agent.addMessage({ id: randomUUID(), role: 'user', content: text })
  const events = []
  let failure
  await agent
    .runAgent(params, { onEvent: ({ event }) => void events.push(event), onRunFailed: ({ error }) => void (failure = error.message) })
    .catch((err) => void (failure ??= err.message))
  assert.equal(failure, undefined, `the run failed: ${failure}`)
  assert.equal(events.at(-1)?.type, 'RUN_FINISHED', events.map((e) => e.type).join(' '))
  return events
}
const textOf = (events) =>
  events
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => e.delta)
    .join('')
const interruptOf = (events) => {
  const outcome = events.at(-1).outcome
  assert.equal(outcome?.type, 'interrupt', JSON.stringify(events.at(-1)))
  return outcome.interrupts[0]
}

for (const [client, Agent] of [
  [CLIENTS.agui0059, HttpAgent0059],
  [CLIENTS.agui1, HttpAgent],
]) {
  describe(client.title, { concurrency: true }, () => {
    const agent = () => new Agent({ url: `${parlance.url}/agui`, threadId: randomUUID() })

    test('a run streams the reply', async () => {
      assert.equal(textOf(await run(agent(), 'hello ag-ui')), 'Echo: hello ag-ui')
    })

    test('an approval interrupt, approved in the next run (new runId)', async () => {
      const a = agent()
      const asked = interruptOf(await run(a, 'delete the notes'))
      assert.equal(asked.reason, 'approval')
      const done = await run(a, null, { resume: [{ interruptId: asked.id, status: 'resolved', payload: { approved: true } }] })
      assert.equal(textOf(done), 'Done: deleted notes/demo.txt.')
    })

    test("an approval approved in a request that reuses the interrupted run's runId (as CopilotKit does)", async () => {
      const a = agent()
      const runId = randomUUID()
      const asked = interruptOf(await run(a, 'delete the notes', { runId }))
      const done = await run(a, null, { runId, resume: [{ interruptId: asked.id, status: 'resolved', payload: { approved: true } }] })
      assert.equal(textOf(done), 'Done: deleted notes/demo.txt.')
      assert.equal(textOf(await run(a, 'and then')), 'Echo: and then')
    })

    test('an approval refused: status cancelled, same runId', async () => {
      const a = agent()
      const runId = randomUUID()
      const asked = interruptOf(await run(a, 'delete the notes', { runId }))
      const done = await run(a, null, { runId, resume: [{ interruptId: asked.id, status: 'cancelled' }] })
      assert.equal(textOf(done), 'Not approved, so notes/demo.txt was not deleted.')
    })

    test("shared state: the agent's snapshot and delta reach agent.state", async () => {
      const a = agent()
      const events = await run(a, 'state')
      assert.deepEqual(
        events.filter((e) => e.type.startsWith('STATE_')).map((e) => e.type),
        ['STATE_SNAPSHOT', 'STATE_DELTA'],
      )
      assert.deepEqual(a.state, { counter: 1 })
    })
  })
}
