// A LangGraph run with no input from a checkpoint answers that checkpoint's last human message again (Agent Chat
// UI's Regenerate: `submit(undefined, {checkpoint})`), with `@langchain/langgraph-sdk`'s real `Client`.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Client, type Checkpoint } from '@langchain/langgraph-sdk'
import { startServer, type TestServer } from './harness.js'

let s: TestServer
let client: Client

before(async () => {
  s = await startServer()
  client = new Client({ apiUrl: `${s.url}/langgraph`, apiKey: null, callerOptions: { maxRetries: 0 } })
})
after(() => s.close())

type Msg = { type: string; id: string; content: string }
type State = { values: { messages?: Msg[] }; parent_checkpoint: Checkpoint | null }

async function lastValues(stream: AsyncIterable<{ event: string; data: unknown }>): Promise<Msg[]> {
  let messages: Msg[] = []
  for await (const p of stream) if (p.event === 'values') messages = (p.data as { messages: Msg[] }).messages
  return messages
}
const brief = (messages: Msg[]) => messages.map((m) => `${m.type}: ${m.content}`)
/** The checkpoint before the one that first held message `id` (useStream's firstSeenState.parent_checkpoint). */
const checkpointBefore = (history: State[], id: string) =>
  [...history].reverse().find((h) => h.values.messages?.some((m) => m.id === id))!.parent_checkpoint!

test('regenerate from the checkpoint before an answer: the turn is answered again and later turns are superseded', async () => {
  const t = await client.threads.create()
  await lastValues(client.runs.stream(t.thread_id, 'demo', { input: { messages: [{ type: 'human', content: 'one' }] } }))
  const two = await lastValues(client.runs.stream(t.thread_id, 'demo', { input: { messages: [{ type: 'human', content: 'two' }] } }))
  const history = (await client.threads.getHistory(t.thread_id, { limit: 20 })) as unknown as State[]
  const firstAnswer = two[1]!
  const again = await lastValues(client.runs.stream(t.thread_id, 'demo', { checkpoint: checkpointBefore(history, firstAnswer.id) }))
  assert.deepEqual(brief(again), ['human: one', 'ai: Echo: one'])
  assert.notEqual(again[1]!.id, firstAnswer.id)
  assert.deepEqual(brief(((await client.threads.getState(t.thread_id)).values as { messages: Msg[] }).messages), brief(again))
})

test('no input and no checkpoint is still refused; a checkpoint with no human message before it is not found', async () => {
  const t = await client.threads.create()
  await assert.rejects(lastValues(client.runs.stream(t.thread_id, 'demo', {})), /422.*input/s)
  await lastValues(client.runs.stream(t.thread_id, 'demo', { input: { messages: [{ type: 'human', content: 'hi' }] } }))
  await assert.rejects(lastValues(client.runs.stream(t.thread_id, 'demo', { checkpointId: 'ckpt_000000000000' })), /404/)
})
