// Long answers over A2A (issue 50): a 4,000-chunk answer arrives whole and in order through the official
// @a2a-js/sdk client, by SendMessage (blocking and returnImmediately), SendStreamingMessage, SubscribeToTask from
// the middle of the run, and GetTask. Each update costs the same however long the task has grown
// (src/dialects/a2a/running-task.ts); the timing side is measured by `npm run bench -- long-answer`.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { connectA2a } from '../src/client/index.js'
import { defineAgent } from '../src/index.js'
import { startServer } from './harness.js'
import { a2aMessage, asTask } from './support/a2a.js'
import { waitFor } from './support/wait.js'

const N = 4_000
/** What the demo agent answers to `count N`: "1 2 … N ", one number per chunk. */
const counted = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1} `).join('')

const send = (c: Client, m: Message, returnImmediately = false) =>
  c.sendMessage({
    tenant: '',
    message: m,
    configuration: returnImmediately
      ? { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately }
      : undefined,
    metadata: undefined,
  })
const getTask = (c: Client, id: string) => c.getTask({ tenant: '', id, historyLength: undefined })

/** A task's response artifacts: [artifact id, its text, its part count]. */
const responses = (t: Task) =>
  t.artifacts
    .filter((a) => a.name === 'response')
    .map((a) => [a.artifactId, a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(''), a.parts.length] as const)

/** Reads a stream of updates: the text appended chunk by chunk, in order, and how many chunks held text. */
async function read(updates: AsyncIterable<StreamResponse>, onTask?: (t: Task) => void) {
  let text = ''
  let chunks = 0
  let last: TaskState | undefined
  for await (const ev of updates) {
    const p = ev.payload
    if (p?.$case === 'task') onTask?.(p.value)
    else if (p?.$case === 'statusUpdate') last = p.value.status?.state
    else if (p?.$case === 'artifactUpdate')
      for (const part of p.value.artifact?.parts ?? [])
        if (part.content?.$case === 'text' && part.content.value) {
          text += part.content.value
          chunks++
        }
  }
  return { text, chunks, last }
}

test('a 4,000-chunk answer by blocking SendMessage is one whole text artifact, the same as GetTask reads back', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url, agent: 'demo' })
  const task = asTask(await send(c, a2aMessage(`count ${N}`)))
  assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED)
  const sent = responses(task)
  assert.equal(sent.length, 1)
  assert.equal(sent[0]![1], counted(N), 'every chunk, in order')
  assert.equal(sent[0]![2], 1, "the appended chunks are one text part, as the log's task has it")
  assert.deepEqual(responses(await getTask(c, task.id)), sent)
  assert.equal(task.history[0]?.parts[0]?.content?.$case === 'text' && task.history[0].parts[0].content.value, `count ${N}`)
})

test('a 4,000-chunk answer by SendStreamingMessage arrives chunk by chunk, whole and in order', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url, agent: 'demo' })
  let id = ''
  const got = await read(
    c.sendMessageStream({ tenant: '', message: a2aMessage(`count ${N}`), configuration: undefined, metadata: undefined }),
    (task) => (id ||= task.id),
  )
  assert.equal(got.last, TaskState.TASK_STATE_COMPLETED)
  assert.equal(got.chunks, N)
  assert.equal(got.text, counted(N))
  assert.equal(responses(await getTask(c, id))[0]?.[1], counted(N))
})

test('SubscribeToTask in the middle of a 4,000-chunk answer: the snapshot and the updates after it make the whole text', async (t) => {
  // Counts to N, holding after 300 chunks until the subscriber has its snapshot, so it joins mid-answer.
  let release = () => {}
  const subscribed = new Promise<void>((r) => (release = r))
  const halting = defineAgent({
    name: 'halting',
    async run(ctx) {
      await ctx.say(
        (async function* () {
          for (let i = 1; i <= N; i++) {
            if (i === 301) await subscribed
            yield `${i} `
          }
        })(),
      )
    },
  })
  const s = await startServer({ agents: [halting] })
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url, agent: 'halting' })
  const watcher = await connectA2a({ url: s.url, agent: 'halting' })
  const updates = c.sendMessageStream({ tenant: '', message: a2aMessage('count'), configuration: undefined, metadata: undefined })
  const it = updates[Symbol.asyncIterator]()
  let id = ''
  for (let seen = 0; seen < 300;) {
    const p = (await it.next()).value?.payload
    if (p?.$case === 'task') id = p.value.id
    if (p?.$case === 'artifactUpdate') seen++
  }
  const sender = (async () => {
    for (let r = await it.next(); !r.done; r = await it.next());
  })()
  let snapshot = ''
  const after = await read(watcher.resubscribeTask({ tenant: '', id }), (task) => {
    snapshot = responses(task)[0]?.[1] ?? ''
    release()
  })
  await sender
  assert.equal(after.last, TaskState.TASK_STATE_COMPLETED)
  assert.equal(snapshot, counted(300), 'the snapshot holds the text so far')
  assert.equal(after.chunks, N - 300)
  assert.equal(snapshot + after.text, counted(N))
})

test('SendMessage with returnImmediately answers at once; the 4,000-chunk answer goes on and GetTask reads it whole', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url, agent: 'demo' })
  const first = asTask(await send(c, a2aMessage(`count ${N}`), true))
  assert.notEqual(first.status?.state, TaskState.TASK_STATE_FAILED)
  const done = await waitFor(
    async () => {
      const now = await getTask(c, first.id)
      return now.status?.state === TaskState.TASK_STATE_COMPLETED ? now : undefined
    },
    { what: 'the task completed', timeoutMs: 60_000, intervalMs: 100 },
  )
  assert.equal(responses(done)[0]?.[1], counted(N))
})
