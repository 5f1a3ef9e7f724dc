// A2A SubscribeToTask and CancelTask on a 3-node cluster (Redis: test/support/redis.ts), with the official @a2a-js/sdk
// client on each node: a task streaming on node 1 is followed live from node 2 and cancelled from node 3; a task
// waiting for input is cancelled from any node; a task answered on another node is cancelled there; a task its
// node refused is failed on every node (issue 37).
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { connectA2a } from '../src/client/index.js'
import { defineAgent, demoAgent } from '../src/index.js'
import { dropPrefix, FAST, REDIS_URL, testPrefix } from './cluster-support.js'
import { startServer, type TestServer } from './harness.js'
import { a2aMessage, asTask, taskText } from './support/a2a.js'
import { waitFor } from './support/wait.js'

const FIFTY = Array.from({ length: 50 }, (_, i) => i + 1).join(' ')

/** Asks for an approval, then streams "1 … 30" slowly: a run that goes on after input-required. */
const checked = defineAgent({
  name: 'checked',
  async run(ctx) {
    const answer = await ctx.approve({ tool: 'count_slowly', args: {}, risk: 'low', reasoning: 'It takes a while.' })
    if (!answer.approved) return void (await ctx.say('Not counting.'))
    await ctx.say(
      (async function* () {
        for (let i = 1; i <= 30; i++) {
          // eslint-disable-next-line no-restricted-syntax -- the agent under test is paced by the timer (not a wait)
          await new Promise((r) => setTimeout(r, 100))
          if (ctx.signal.aborted) return
          yield `${i} `
        }
      })(),
    )
  },
})

const prefix = testPrefix()
const nodes: TestServer[] = []
/** One demo client and one `checked` client per node. */
const demo: Client[] = []
const check: Client[] = []

before(async () => {
  for (let i = 0; i < 3; i++) {
    // Node 3 runs one agent run at a time: a second message there is refused before the log holds it.
    const limits = { ...FAST, approvalTimeoutMs: 30_000, ...(i === 2 ? { maxConcurrentRuns: 1 } : {}) }
    nodes.push(
      await startServer({ agents: [demoAgent, checked], store: REDIS_URL, cluster: { prefix, nodeId: `node-${i + 1}`, leaseMs: 1000 }, limits }),
    )
  }
  for (const n of nodes) {
    demo.push(await connectA2a({ url: n.url }))
    check.push(await connectA2a({ url: n.url, agent: 'checked' }))
  }
})
after(async () => {
  for (const n of nodes) await n.close()
  await dropPrefix(prefix)
})

/** What a stream said, as it goes: its first task, the text of its artifact updates, its states. */
interface Seen {
  task: Task | undefined
  text: string
  artifacts: number
  states: string[]
  done: boolean
}

/** Reads `events` to its end into a `Seen` (watched while it fills); rejects with the stream's error. */
function watchStream(events: AsyncGenerator<StreamResponse>): { seen: Seen; end: Promise<Seen> } {
  const seen: Seen = { task: undefined, text: '', artifacts: 0, states: [], done: false }
  const end = (async () => {
    for await (const ev of events) {
      const p = ev.payload
      if (p?.$case === 'task') seen.task ??= p.value
      if (p?.$case === 'artifactUpdate') {
        seen.artifacts++
        for (const part of p.value.artifact?.parts ?? []) if (part.content?.$case === 'text') seen.text += part.content.value
      }
      if (p?.$case === 'statusUpdate') seen.states.push(TaskState[p.value.status!.state])
    }
    seen.done = true
    return seen
  })()
  return { seen, end }
}

const stream = (c: Client, text: string, extra: Parameters<typeof a2aMessage>[1] = {}) =>
  watchStream(c.sendMessageStream({ tenant: '', message: a2aMessage(text, extra), configuration: undefined, metadata: undefined }))
const resubscribe = (c: Client, id: string) => watchStream(c.resubscribeTask({ tenant: '', id }))
const getTask = (c: Client, id: string) => c.getTask({ tenant: '', id, historyLength: undefined })
const state = (t: Task) => TaskState[t.status!.state]
const statusText = (t: Task) => (t.status?.message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('')
/** The snapshot's response text, as streamed (not trimmed). */
const snapshotText = (t: Task) =>
  t.artifacts
    .filter((a) => a.name === 'response')
    .flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')))
    .join('')

test('SubscribeToTask on node 2 follows a task streaming on node 1 live to completed; the text is what GetTask on node 3 reads', async () => {
  const a = stream(demo[0]!, 'slow please')
  await waitFor(() => a.seen.task && a.seen.text.split(' ').length > 3, { what: 'the task and a few numbers on node 1' })
  const taskId = a.seen.task!.id
  const b = resubscribe(demo[1]!, taskId)
  const [onA, onB] = await Promise.all([a.end, b.end])
  assert.ok(onB.task, 'node 2 sent the task first')
  assert.equal(state(onB.task), 'TASK_STATE_WORKING')
  assert.ok(onB.artifacts > 0, 'node 2 relayed artifact updates live, not only the snapshot')
  assert.equal(onB.states.at(-1), 'TASK_STATE_COMPLETED', onB.states.join(' '))
  const whole = `${snapshotText(onB.task)}${onB.text}`.trim()
  assert.equal(whole, FIFTY, 'the snapshot and the live rest on node 2: the whole text, once')
  assert.equal(onA.text.trim(), FIFTY)
  assert.equal(onA.states.at(-1), 'TASK_STATE_COMPLETED')
  const onC = await getTask(demo[2]!, taskId)
  assert.equal(state(onC), 'TASK_STATE_COMPLETED')
  assert.equal(taskText(onC), whole)
})

test('CancelTask on node 3 stops a task streaming on node 1: canceled there, for a resubscriber on node 2, and in GetTask everywhere', async () => {
  const a = stream(demo[0]!, 'slow please')
  await waitFor(() => a.seen.task && a.seen.artifacts > 0, { what: 'the task streaming on node 1' })
  const taskId = a.seen.task!.id
  const b = resubscribe(demo[1]!, taskId)
  await waitFor(() => b.seen.artifacts > 0, { what: 'live updates at the resubscriber on node 2' })
  const cancelled = await demo[2]!.cancelTask({ tenant: '', id: taskId, metadata: undefined })
  assert.equal(state(cancelled), 'TASK_STATE_CANCELED')
  const [onA, onB] = await Promise.all([a.end, b.end])
  assert.equal(onA.states.at(-1), 'TASK_STATE_CANCELED', onA.states.join(' '))
  assert.equal(onB.states.at(-1), 'TASK_STATE_CANCELED', onB.states.join(' '))
  assert.notEqual(onA.text.trim(), FIFTY, 'the run stopped before its end')
  for (const c of demo) assert.equal(state(await getTask(c, taskId)), 'TASK_STATE_CANCELED')
  // Cancelled is final: a second cancel answers the task as it is, a resubscription is refused.
  assert.equal(state(await demo[1]!.cancelTask({ tenant: '', id: taskId, metadata: undefined })), 'TASK_STATE_CANCELED')
  await assert.rejects(resubscribe(demo[1]!, taskId).end, /terminal state/)
})

test('CancelTask of a task waiting for input, from another node and from its own: canceled, read so on every node', async () => {
  for (const [started, cancelledOn] of [
    [0, 1],
    [0, 0],
  ] as const) {
    const asked = asTask(
      await demo[started]!.sendMessage({ tenant: '', message: a2aMessage('delete my notes'), configuration: undefined, metadata: undefined }),
    )
    assert.equal(state(asked), 'TASK_STATE_INPUT_REQUIRED')
    const cancelled = await demo[cancelledOn]!.cancelTask({ tenant: '', id: asked.id, metadata: undefined })
    assert.equal(state(cancelled), 'TASK_STATE_CANCELED', `started on node ${started + 1}, cancelled on node ${cancelledOn + 1}`)
    for (const c of demo) assert.equal(state(await getTask(c, asked.id)), 'TASK_STATE_CANCELED')
  }
  // The context goes on: its next task runs.
  const next = asTask(await demo[2]!.sendMessage({ tenant: '', message: a2aMessage('count 3'), configuration: undefined, metadata: undefined }))
  assert.equal(taskText(next), '1 2 3')
})

test('a task answered on node 2 (its run goes on there) is cancelled on node 2 and followed from node 3 to canceled', async () => {
  const asked = asTask(
    await check[0]!.sendMessage({ tenant: '', message: a2aMessage('count for me'), configuration: undefined, metadata: undefined }),
  )
  assert.equal(state(asked), 'TASK_STATE_INPUT_REQUIRED')
  const answer = a2aMessage('', {
    contextId: asked.contextId,
    taskId: asked.id,
    parts: [{ content: { $case: 'data', value: { approved: true } }, metadata: undefined, filename: '', mediaType: 'application/json' }],
  })
  const b = watchStream(check[1]!.sendMessageStream({ tenant: '', message: answer, configuration: undefined, metadata: undefined }))
  await waitFor(() => b.seen.artifacts > 0, { what: 'the continued run streaming on node 2' })
  const c = resubscribe(check[2]!, asked.id)
  await waitFor(() => c.seen.task, { what: 'the task at the resubscriber on node 3' })
  const cancelled = await check[1]!.cancelTask({ tenant: '', id: asked.id, metadata: undefined })
  assert.equal(state(cancelled), 'TASK_STATE_CANCELED')
  const [onB, onC] = await Promise.all([b.end, c.end])
  assert.equal(onB.states.at(-1), 'TASK_STATE_CANCELED', onB.states.join(' '))
  assert.equal(onC.states.at(-1), 'TASK_STATE_CANCELED', onC.states.join(' '))
  for (const client of check) assert.equal(state(await getTask(client, asked.id)), 'TASK_STATE_CANCELED')
})

test('a message its node refuses (the run cap) is a failed task on every node: GetTask says why, SubscribeToTask is refused as for any ended task', async () => {
  const busy = stream(demo[2]!, 'slow please')
  await waitFor(() => busy.seen.task && busy.seen.artifacts > 0, { what: "a run taking node 3's only slot" })
  const refused = asTask(await demo[2]!.sendMessage({ tenant: '', message: a2aMessage('count 2'), configuration: undefined, metadata: undefined }))
  assert.equal(state(refused), 'TASK_STATE_FAILED')
  const why = statusText(refused)
  assert.match(why, /^unavailable: the server is running its limit of 1 agent runs/)
  for (const c of demo) {
    const t = await getTask(c, refused.id)
    assert.deepEqual([state(t), statusText(t)], ['TASK_STATE_FAILED', why], 'the same failed task on every node')
  }
  await assert.rejects(resubscribe(demo[0]!, refused.id).end, /terminal state/)
  assert.equal(state(await demo[0]!.cancelTask({ tenant: '', id: busy.seen.task!.id, metadata: undefined })), 'TASK_STATE_CANCELED')
  assert.equal((await busy.end).states.at(-1), 'TASK_STATE_CANCELED')
})
