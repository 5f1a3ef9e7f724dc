// A2A tasks are their runs, read back from the session log (src/dialects/a2a/task-store.ts), with the official
// `@a2a-js/sdk` client over real sockets: a real server process killed with SIGKILL after a completed task and
// mid-task, restarted on the same data directory; a dropped stream; webhooks kept across a restart (issue 37).
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { TaskState, type Task } from '@a2a-js/sdk'
import { connectA2a } from '../src/client/index.js'
import { startServer } from './harness.js'
import { spawnServe } from './support/serve-process.js'
import { waitFor } from './support/wait.js'
import { a2aMessage, asTask, taskText } from './support/a2a.js'

const message = a2aMessage
const textOf = taskText
const state = (t: Task) => TaskState[t.status!.state]
const FIFTY = Array.from({ length: 50 }, (_, i) => i + 1).join(' ')

function dataDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-a2a-durable-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

test('kill -9 after a completed task: after a restart on the same data, GetTask, ListTasks and the webhooks are what they were', async (t) => {
  const dir = dataDir(t)
  const args = ['--store', 'sqlite', '--data', dir, '--allow-webhook-host', '127.0.0.1']
  const first = await spawnServe(t, args, 'first')
  let c = await connectA2a({ url: first.url })
  const done = asTask(await c.sendMessage({ tenant: '', message: message('count 3'), configuration: undefined, metadata: undefined }))
  assert.equal(state(done), 'TASK_STATE_COMPLETED')
  assert.equal(textOf(done), '1 2 3')
  // A second task in the same context (session), and a webhook on the first.
  const second = asTask(
    await c.sendMessage({
      tenant: '',
      message: message('state please', { contextId: done.contextId }),
      configuration: undefined,
      metadata: undefined,
    }),
  )
  const hook = {
    tenant: '',
    id: 'hook-1',
    taskId: done.id,
    url: 'http://127.0.0.1:9/hook',
    token: 'tok',
    authentication: { scheme: 'Bearer', credentials: 'secret' },
  }
  await c.createTaskPushNotificationConfig(hook)
  const before = await c.getTask({ tenant: '', id: done.id, historyLength: undefined })
  await first.kill()

  const again = await spawnServe(t, args, 'second')
  c = await connectA2a({ url: again.url })
  const after = await c.getTask({ tenant: '', id: done.id, historyLength: undefined })
  assert.deepEqual(after, before, 'the same task, field for field')
  assert.equal(state(after), 'TASK_STATE_COMPLETED')
  assert.equal(textOf(after), '1 2 3')
  assert.equal(after.contextId, done.contextId)
  assert.equal(
    after.history[0]?.parts[0]?.content?.$case === 'text' && after.history[0].parts[0].content.value,
    'count 3',
    'the user message heads the history',
  )
  const stateTask = await c.getTask({ tenant: '', id: second.id, historyLength: undefined })
  const data = stateTask.artifacts.find((a) => a.name === 'state')?.parts[0]?.content
  assert.deepEqual(data?.$case === 'data' ? data.value : null, { counter: 1 })
  // The task list answers from the store too: both tasks of the context, newest first.
  const listed = await c.listTasks({
    tenant: '',
    contextId: done.contextId,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: undefined,
    pageToken: '',
    historyLength: undefined,
    statusTimestampAfter: undefined,
    includeArtifacts: true,
  })
  assert.deepEqual(listed.tasks.map((x) => x.id).sort(), [done.id, second.id].sort())
  assert.ok(listed.tasks.every((x) => x.status?.state === TaskState.TASK_STATE_COMPLETED))
  // The webhook survived the restart, credentials and all.
  const configs = await c.listTaskPushNotificationConfig({ tenant: '', taskId: done.id, pageSize: 0, pageToken: '' })
  assert.deepEqual(
    configs.configs.map((x) => [x.id, x.url, x.token, x.authentication?.scheme, x.authentication?.credentials]),
    [['hook-1', 'http://127.0.0.1:9/hook', 'tok', 'Bearer', 'secret']],
  )
  const one = await c.getTaskPushNotificationConfig({ tenant: '', taskId: done.id, id: 'hook-1' })
  assert.equal(one.url, 'http://127.0.0.1:9/hook')
  await c.deleteTaskPushNotificationConfig({ tenant: '', taskId: done.id, id: 'hook-1' })
  assert.deepEqual((await c.listTaskPushNotificationConfig({ tenant: '', taskId: done.id, pageSize: 0, pageToken: '' })).configs, [])
  // An unknown id is still "not found".
  await assert.rejects(c.getTask({ tenant: '', id: randomUUID(), historyLength: undefined }), /not found/i)
})

test('kill -9 mid-task: after the restart the task is failed (interrupted) and keeps the text streamed before the crash', async (t) => {
  const dir = dataDir(t)
  const first = await spawnServe(t, ['--store', 'sqlite', '--data', dir], 'first')
  const c = await connectA2a({ url: first.url })
  const abort = new AbortController()
  let taskId = ''
  let seen = ''
  try {
    for await (const ev of c.sendMessageStream(
      { tenant: '', message: message('slow please'), configuration: undefined, metadata: undefined },
      { signal: abort.signal },
    )) {
      const p = ev.payload
      if (p?.$case === 'task') taskId = p.value.id
      if (p?.$case === 'artifactUpdate')
        for (const part of p.value.artifact?.parts ?? []) if (part.content?.$case === 'text') seen += part.content.value
      if (seen.split(' ').length > 5) break
    }
  } finally {
    abort.abort()
  }
  // What the client saw was committed first (write-before-send), so it is in the log the next process reads.
  const during = await c.getTask({ tenant: '', id: taskId, historyLength: undefined })
  assert.equal(state(during), 'TASK_STATE_WORKING')
  await first.kill()

  const again = await spawnServe(t, ['--store', 'sqlite', '--data', dir], 'second')
  const c2 = await connectA2a({ url: again.url })
  const after = await c2.getTask({ tenant: '', id: taskId, historyLength: undefined })
  assert.equal(state(after), 'TASK_STATE_FAILED')
  assert.match(JSON.stringify(after.status?.message?.parts), /interrupted/)
  const partial = textOf(after)
  assert.ok(partial.startsWith(seen.trim()), `the partial artifact holds what was streamed: "${partial}" vs "${seen}"`)
  assert.ok(partial.length < FIFTY.length, 'and not the whole answer')
  // A message to the failed task is refused (it is over); a new task in its context runs.
  await assert.rejects(
    c2.sendMessage({ tenant: '', message: message('more', { taskId, contextId: after.contextId }), configuration: undefined, metadata: undefined }),
    /terminal/i,
  )
  const next = asTask(
    await c2.sendMessage({ tenant: '', message: message('count 2', { contextId: after.contextId }), configuration: undefined, metadata: undefined }),
  )
  assert.equal(textOf(next), '1 2')
})

test('kill -9 with a task queued behind a working one: after the restart the first is failed (interrupted), the queued one runs and completes', async (t) => {
  const dir = dataDir(t)
  const args = ['--store', 'sqlite', '--data', dir, '--on-busy', 'enqueue']
  const first = await spawnServe(t, args, 'first')
  const c = await connectA2a({ url: first.url })
  const abort = new AbortController()
  let working: Task | undefined
  try {
    for await (const ev of c.sendMessageStream(
      { tenant: '', message: message('slow please'), configuration: undefined, metadata: undefined },
      { signal: abort.signal },
    )) {
      if (ev.payload?.$case === 'task') working = ev.payload.value
      if (ev.payload?.$case === 'artifactUpdate') break
    }
  } finally {
    abort.abort()
  }
  assert.ok(working)
  const queued = asTask(
    await c.sendMessage({
      tenant: '',
      message: message('count 2', { contextId: working.contextId }),
      configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true, taskPushNotificationConfig: undefined },
      metadata: undefined,
    }),
  )
  // Submitted until the working task ends: waits for the log to show it queued.
  const seen = await waitFor(
    async (): Promise<Task | undefined> => {
      const got = await c.getTask({ tenant: '', id: queued.id, historyLength: undefined })
      return JSON.stringify(got.status?.message?.parts ?? []).includes('queued') ? got : undefined
    },
    { what: 'the task queued in the log', timeoutMs: 10_000 },
  )
  assert.equal(state(seen), 'TASK_STATE_SUBMITTED')
  assert.match(JSON.stringify(seen.status?.message?.parts), /queued/)
  await first.kill()

  const again = await spawnServe(t, args, 'second')
  const c2 = await connectA2a({ url: again.url })
  assert.equal(state(await c2.getTask({ tenant: '', id: working.id, historyLength: undefined })), 'TASK_STATE_FAILED')
  // The restart resumes the queue (resumeUnfinished): the queued task runs now, on the new process.
  const done = await waitFor(
    async (): Promise<Task | undefined> => {
      const got = await c2.getTask({ tenant: '', id: queued.id, historyLength: undefined })
      return got.status?.state === TaskState.TASK_STATE_COMPLETED ? got : undefined
    },
    { what: 'the queued task completed after the restart', timeoutMs: 20_000 },
  )
  assert.equal(textOf(done), '1 2')
})

test('a dropped stream, SubscribeToTask to the end, then GetTask: completed with the whole text (no stale copy)', async (t) => {
  const s = await startServer({ store: 'sqlite' })
  t.after(async () => {
    await s.close()
    s.removeData()
  })
  const c = await connectA2a({ url: s.url })
  const abort = new AbortController()
  let taskId = ''
  let before = ''
  try {
    for await (const ev of c.sendMessageStream(
      { tenant: '', message: message('slow please'), configuration: undefined, metadata: undefined },
      { signal: abort.signal },
    )) {
      const p = ev.payload
      if (p?.$case === 'task') taskId = p.value.id
      if (p?.$case === 'artifactUpdate')
        for (const part of p.value.artifact?.parts ?? []) if (part.content?.$case === 'text') before += part.content.value
      if (before.split(' ').length > 3) break // the client drops the stream mid-run
    }
  } finally {
    abort.abort()
  }
  let last = ''
  for await (const ev of c.resubscribeTask({ tenant: '', id: taskId }))
    if (ev.payload?.$case === 'statusUpdate') last = TaskState[ev.payload.value.status!.state]
  assert.equal(last, 'TASK_STATE_COMPLETED')
  const got = await c.getTask({ tenant: '', id: taskId, historyLength: undefined })
  assert.equal(state(got), 'TASK_STATE_COMPLETED')
  assert.equal(textOf(got), FIFTY)
  assert.equal((await c.getTask({ tenant: '', id: taskId, historyLength: 0 })).history.length, 0, 'historyLength still applies')
})

test("another principal's task is not found, its webhooks neither", async (t) => {
  const users: Record<string, string> = { 'alice-token': 'alice', 'bob-token': 'bob' }
  const s = await startServer({
    auth: { authenticate: (_req: unknown, token: string | null) => (token ? (users[token] ?? null) : null) },
    allowWebhookHosts: ['127.0.0.1'],
  })
  t.after(() => s.close())
  const alice = await connectA2a({ url: s.url, token: 'alice-token' })
  const bob = await connectA2a({ url: s.url, token: 'bob-token' })
  const mine = asTask(await alice.sendMessage({ tenant: '', message: message('count 2'), configuration: undefined, metadata: undefined }))
  await alice.createTaskPushNotificationConfig({
    tenant: '',
    id: 'h',
    taskId: mine.id,
    url: 'http://127.0.0.1:9/hook',
    token: '',
    authentication: undefined,
  })
  assert.equal(textOf(await alice.getTask({ tenant: '', id: mine.id, historyLength: undefined })), '1 2')
  await assert.rejects(bob.getTask({ tenant: '', id: mine.id, historyLength: undefined }), /not found/i)
  await assert.rejects(bob.listTaskPushNotificationConfig({ tenant: '', taskId: mine.id, pageSize: 0, pageToken: '' }), /not found/i)
  const bobs = await bob.listTasks({
    tenant: '',
    contextId: '',
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: undefined,
    pageToken: '',
    historyLength: undefined,
    statusTimestampAfter: undefined,
    includeArtifacts: false,
  })
  assert.ok(!bobs.tasks.some((x) => x.id === mine.id))
})
