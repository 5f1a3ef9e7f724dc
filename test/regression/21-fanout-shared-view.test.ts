// Issue 21: the fan-out cache encoded once per codec key but skipped the encoder of every other subscriber
// with that key, while the HAI encoder kept the run's agent in a per-socket view it updated inside `encode`.
// Two sockets on one session, a run of another agent spanning several ticks: the socket that did not encode
// the run.started batch kept the old agent_id for the whole run.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defineAgent, demoAgent } from '../../src/index.js'
import { HaiClient } from '../../src/client/index.js'
import { startServer } from '../harness.js'

/** Streams five chunks, one per timer tick, so the run spans several commits. */
const other = defineAgent({
  name: 'other',
  async run(ctx) {
    await ctx.say(
      (async function* () {
        for (let i = 1; i <= 5; i++) {
          // eslint-disable-next-line no-restricted-syntax -- the agent under test is paced by the timer (not a wait)
          await new Promise((r) => setTimeout(r, 5))
          yield `${i} `
        }
      })(),
    )
  },
})

test('every HAI socket of a session names the agent of the run, whichever socket encoded the batch', async (t) => {
  const s = await startServer({ agents: [demoAgent, other] })
  t.after(() => s.close())
  const sessionId = `fanout-${Date.now()}`
  const a = await HaiClient.connect({ url: s.url, sessionId, resumeAfter: -1 })
  const b = await HaiClient.connect({ url: s.url, sessionId, resumeAfter: -1 })
  t.after(() => {
    a.close()
    b.close()
  })
  a.say('hello', { agent: 'other' })
  const [fromA, fromB] = await Promise.all([a.untilCompleted(), b.untilCompleted()])
  for (const [name, frames] of [
    ['A', fromA],
    ['B', fromB],
  ] as const) {
    const chunks = frames.filter((m) => m.type === 'assistant_message_chunk')
    assert.ok(chunks.length >= 6, `socket ${name} got the streamed run (${chunks.length} chunks)`)
    assert.deepEqual([...new Set(frames.map((m) => m.agent_id))], ['other'], `socket ${name}: agent_id of every frame`)
  }
  assert.deepEqual(fromB, fromA, 'both sockets received the same frames')
})
