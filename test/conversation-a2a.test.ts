// Conversation control (issue 19) over A2A, with the official `@a2a-js/sdk` client: a message into a context
// (= Parlance session) whose task is still working, under reject, enqueue and rollback (`metadata.onBusy`).
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { connectA2a } from '../src/client/index.js'
import type { ServerOptions } from '../src/index.js'
import { gatedAgent } from './conversation-support.js'
import { startServer } from './harness.js'

const gated = () => gatedAgent()

async function setup(t: { after(fn: () => Promise<void>): void }, opts: Partial<ServerOptions> = {}) {
  const g = gated()
  const s = await startServer({ agents: [g.agent], ...opts })
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url, agent: 'gated' })
  return { g, s, c, contextId: `a2a-${randomUUID()}` }
}

const message = (text: string, contextId: string, metadata?: Record<string, unknown>): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata,
  extensions: [],
  referenceTaskIds: [],
})
const send = async (c: Client, m: Message): Promise<Task> => {
  const r = await c.sendMessage({ tenant: '', message: m, configuration: undefined, metadata: undefined })
  assert.ok(r && typeof r === 'object' && 'status' in r, `a task, not ${JSON.stringify(r)}`)
  return r
}
const stream = (c: Client, m: Message) => c.sendMessageStream({ tenant: '', message: m, configuration: undefined, metadata: undefined })
const text = (t: Task) =>
  t.artifacts
    .flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')))
    .join('')
    .trim()
const statusData = (t: Task) => {
  const d = t.status?.message?.parts.find((p) => p.content?.$case === 'data')?.content
  return (d?.$case === 'data' ? d.value : null) as Record<string, unknown> | null
}

test('metadata.onBusy outside the four is a JSON-RPC invalid-params error naming the field', async (t) => {
  const { c, contextId } = await setup(t)
  // The SDK client raises the A2A error of JSON-RPC -32602 (INVALID_PARAMS): RequestMalformedError.
  await assert.rejects(send(c, message('x', contextId, { onBusy: 'later' })), (err: Error) => {
    assert.equal(err.name, 'RequestMalformedError')
    assert.match(err.message, /params\.message\.metadata\.onBusy must be one of interrupt, enqueue, reject, rollback/)
    return true
  })
})

test('reject: a message into a context whose task is working is a rejected task (busy); the working task completes once', async (t) => {
  const { g, s, c, contextId } = await setup(t)
  const first = send(c, message('one', contextId))
  await g.started(1)
  const refused = await send(c, message('two', contextId, { onBusy: 'reject' }))
  assert.equal(refused.status?.state, TaskState.TASK_STATE_REJECTED)
  assert.match(JSON.stringify(refused.status?.message?.parts), /busy: a run is active/)
  assert.deepEqual(statusData(refused), { code: 'busy', activeRunId: (await s.stored(contextId))?.activeRunId })
  g.release()
  const done = await first
  assert.deepEqual([done.status?.state, text(done)], [TaskState.TASK_STATE_COMPLETED, 'answer to one'])
  assert.equal(g.seen.length, 1, 'the refused message started no run')
  assert.deepEqual(
    (await s.stored(contextId))!.messages.filter((m) => m.role === 'user').map((m) => m.content),
    ['one'],
  )
})

test('enqueue: the second task stays submitted (queued) until its run starts, then streams and completes', async (t) => {
  const { g, c, contextId } = await setup(t)
  const first = send(c, message('one', contextId))
  await g.started(1)
  const events = stream(c, message('two', contextId, { onBusy: 'enqueue' }))
  const states: string[] = []
  let answer = ''
  let released = false
  for await (const ev of events) {
    const p = ev.payload
    if (p?.$case === 'task') states.push(`task:${TaskState[p.value.status!.state]}`)
    if (p?.$case === 'artifactUpdate')
      for (const part of p.value.artifact?.parts ?? []) if (part.content?.$case === 'text') answer += part.content.value
    if (p?.$case !== 'statusUpdate') continue
    states.push(TaskState[p.value.status!.state])
    if (p.value.status!.state === TaskState.TASK_STATE_SUBMITTED && !released) {
      // Queued: the first task still works and the second has no run yet.
      assert.equal(g.seen.length, 1)
      released = true
      g.release()
      assert.equal(text(await first), 'answer to one')
      await g.started(2)
      g.release()
    }
  }
  assert.deepEqual(states, ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'])
  assert.equal(answer.trim(), 'answer to two')
  assert.deepEqual(g.seen[1], ['u:one', 'a:answer to one', 'u:two'])
})

test('rollback: the working task fails interrupted and the next run does not see its turn', async (t) => {
  const { g, c, contextId } = await setup(t)
  const first = send(c, message('one', contextId))
  await g.started(1)
  g.release()
  await first
  const second = send(c, message('two', contextId))
  await g.started(2)
  const third = send(c, message('three', contextId, { onBusy: 'rollback' }))
  const dropped = await second
  assert.equal(dropped.status?.state, TaskState.TASK_STATE_FAILED)
  assert.match(JSON.stringify(dropped.status?.message?.parts), /interrupted/)
  await g.started(3)
  assert.deepEqual(g.seen[2], ['u:one', 'a:answer to one', 'u:three'], 'run three does not see turn two')
  g.release()
  assert.equal(text(await third), 'answer to three')
})

test('tasks/cancel of a queued task withdraws its message: the task is canceled and the agent never gets it', async (t) => {
  const { g, c, s, contextId } = await setup(t)
  const first = send(c, message('one', contextId))
  await g.started(1)
  let taskId = ''
  const states: string[] = []
  for await (const ev of stream(c, message('two', contextId, { onBusy: 'enqueue' }))) {
    const p = ev.payload
    if (p?.$case === 'task') taskId = p.value.id
    if (p?.$case !== 'statusUpdate') continue
    states.push(TaskState[p.value.status!.state])
    if (p.value.status!.state === TaskState.TASK_STATE_SUBMITTED) await c.cancelTask({ tenant: '', id: taskId, metadata: undefined })
  }
  assert.deepEqual(states, ['TASK_STATE_SUBMITTED', 'TASK_STATE_CANCELED'])
  g.release()
  assert.equal(text(await first), 'answer to one')
  const log = await s.log(contextId)
  assert.ok(
    log.some((e) => e.type === 'message.withdrawn'),
    'the withdrawal is in the log',
  )
  assert.equal(g.seen.length, 1, 'the withdrawn message never ran')
  assert.deepEqual(
    log.filter((e) => e.type === 'message.user').map((e) => (e as { content: string }).content),
    ['one'],
  )
})
