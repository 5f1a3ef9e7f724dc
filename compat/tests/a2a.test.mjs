// The @a2a-js/sdk client in Node, built by its ClientFactory from Parlance's agent card: a blocking send, a
// streamed send, an approval through input-required (approved and refused), cancel.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { Role, TaskState } from '@a2a-js/sdk'
import { ClientFactory } from '@a2a-js/sdk/client'
import { CLIENTS } from '../lib/clients.mjs'
import { startParlance } from '../lib/parlance.mjs'

let parlance
before(async () => (parlance = await startParlance()))
after(() => parlance?.close())

const client = () => new ClientFactory().createFromUrl(parlance.url)
const message = (text, extra = {}) => ({
  messageId: randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...extra,
})
const params = (m) => ({ tenant: '', message: m, configuration: undefined, metadata: undefined })
const asTask = (r) => {
  assert.ok(r && typeof r === 'object' && 'status' in r, `a task, not ${JSON.stringify(r)}`)
  return r
}
const taskText = (t) =>
  t.artifacts
    .filter((a) => a.name === 'response')
    .flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')))
    .join('')
    .trim()

describe(CLIENTS.a2a.title, { concurrency: true }, () => {
  test('sendMessage: the task completes with the reply', async () => {
    const task = asTask(await (await client()).sendMessage(params(message('hello a2a'))))
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED)
    assert.equal(taskText(task), 'Echo: hello a2a')
  })

  test('sendMessageStream: status and artifact updates to completed', async () => {
    const states = []
    let text = ''
    for await (const ev of (await client()).sendMessageStream(params(message('count 4')))) {
      const p = ev.payload
      if (p?.$case === 'statusUpdate') states.push(TaskState[p.value.status.state])
      if (p?.$case === 'artifactUpdate') text += p.value.artifact.parts.map((x) => (x.content?.$case === 'text' ? x.content.value : '')).join('')
    }
    assert.equal(states.at(-1), 'TASK_STATE_COMPLETED', states.join(' '))
    assert.equal(text.trim(), '1 2 3 4')
  })

  for (const approved of [true, false]) {
    test(`an approval: input-required, then the task's next message ${approved ? 'approves' : 'refuses'} it`, async () => {
      const c = await client()
      const first = asTask(await c.sendMessage(params(message('delete my notes'))))
      assert.equal(first.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
      const answer = message('', {
        contextId: first.contextId,
        taskId: first.id,
        parts: [{ content: { $case: 'data', value: { approved } }, metadata: undefined, filename: '', mediaType: 'application/json' }],
      })
      const done = asTask(await c.sendMessage(params(answer)))
      assert.equal(done.id, first.id)
      assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED)
      assert.match(taskText(done), approved ? /Done: deleted notes\/demo\.txt\./ : /Not approved/)
    })
  }

  test('cancelTask stops a streaming run: the task ends canceled', async () => {
    const c = await client()
    let taskId = ''
    let cancelled = false
    const states = []
    for await (const ev of c.sendMessageStream(params(message('slow please', { contextId: `a2a-${randomUUID()}` })))) {
      const p = ev.payload
      if (p?.$case === 'task') taskId = p.value.id
      if (p?.$case === 'artifactUpdate' && !cancelled) {
        cancelled = true
        await c.cancelTask({ tenant: '', id: taskId, metadata: undefined })
      }
      if (p?.$case === 'statusUpdate') states.push(TaskState[p.value.status.state])
    }
    assert.equal(states.at(-1), 'TASK_STATE_CANCELED', states.join(' '))
    assert.equal((await c.getTask({ tenant: '', id: taskId })).status?.state, TaskState.TASK_STATE_CANCELED)
  })
})
