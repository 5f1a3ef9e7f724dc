// A2A tasks on a 3-node cluster (Redis: test/support/redis.ts): a task is read from the log, so a node that did not run
// it answers GetTask, ListTasks and the task's next message just as the node that did (issue 37).
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { TaskState } from '@a2a-js/sdk'
import { connectA2a } from '../src/client/index.js'
import { dropPrefix, startNodes, testPrefix } from './cluster-support.js'
import { a2aMessage, asTask, taskText } from './support/a2a.js'

const message = a2aMessage
const textOf = taskText

const prefix = testPrefix()
after(() => dropPrefix(prefix))

test('cluster: a task run on node 1 is read from nodes 2 and 3; its input-required answer arrives at node 2 and the run goes on', async (t) => {
  const nodes = await startNodes(3, prefix)
  t.after(async () => {
    for (const n of nodes) await n.close()
  })
  const [c1, c2, c3] = await Promise.all(nodes.map((n) => connectA2a({ url: n.url })))
  const done = asTask(await c1!.sendMessage({ tenant: '', message: message('count 3'), configuration: undefined, metadata: undefined }))
  assert.equal(textOf(done), '1 2 3')
  const here = await c1!.getTask({ tenant: '', id: done.id, historyLength: undefined })
  for (const c of [c2!, c3!]) {
    const there = await c.getTask({ tenant: '', id: done.id, historyLength: undefined })
    assert.deepEqual(there, here, 'the same task on every node')
  }
  const listed = await c3!.listTasks({
    tenant: '',
    contextId: done.contextId,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: undefined,
    pageToken: '',
    historyLength: undefined,
    statusTimestampAfter: undefined,
    includeArtifacts: true,
  })
  assert.deepEqual(
    listed.tasks.map((x) => [x.id, textOf(x)]),
    [[done.id, '1 2 3']],
  )

  // An approval asked by a run on node 1, answered through node 2, read back on node 3.
  const asked = asTask(await c1!.sendMessage({ tenant: '', message: message('delete my notes'), configuration: undefined, metadata: undefined }))
  assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
  assert.equal((await c3!.getTask({ tenant: '', id: asked.id, historyLength: undefined })).status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
  const answer = message('', {
    contextId: asked.contextId,
    taskId: asked.id,
    parts: [{ content: { $case: 'data', value: { approved: true } }, metadata: undefined, filename: '', mediaType: 'application/json' }],
  })
  const finished = asTask(await c2!.sendMessage({ tenant: '', message: answer, configuration: undefined, metadata: undefined }))
  assert.equal(finished.id, asked.id, 'the same task goes on')
  assert.equal(finished.status?.state, TaskState.TASK_STATE_COMPLETED)
  assert.match(textOf(finished), /Done: deleted notes\/demo\.txt\./)
  const read3 = await c3!.getTask({ tenant: '', id: asked.id, historyLength: undefined })
  assert.equal(read3.status?.state, TaskState.TASK_STATE_COMPLETED)
  assert.equal(textOf(read3), textOf(finished))
})
