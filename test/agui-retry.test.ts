// Issue 37, item 4: a retried AG-UI request (the same runId, as a client resends after a dropped connection)
// attaches to the run that request started, replayed from its start and live to its end, instead of running the
// turn again; only a request with a new runId regenerates. Driven by the official @ag-ui/client.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { HttpAgent, type Message } from '@ag-ui/client'
import { assertSchema, custom, text, types } from './agui-support.js'
import { startServer, type TestServer } from './harness.js'

type Ev = Record<string, unknown>

/** A fresh client holding what the original client sent (the retry of that request), or the original itself. */
const client = (s: TestServer, threadId: string, messages: Message[]) =>
  new HttpAgent({ url: `${s.url}/agui`, threadId, initialMessages: structuredClone(messages) })

async function runOf(agent: HttpAgent, runId: string, onEvent?: (e: Ev) => void): Promise<Ev[]> {
  const events: Ev[] = []
  await agent.runAgent({ runId }, { onEvent: ({ event }) => void (events.push(event), onEvent?.(event)) })
  assertSchema(events)
  return events
}

/** The runs the session's log holds, and its history cuts. */
async function log(s: TestServer, threadId: string) {
  const events = await s.server.sessions.store.read(threadId, 0, 10_000)
  return {
    runs: events.filter((e) => e.type === 'run.started').map((e) => e.runId),
    rewinds: events.filter((e) => e.type === 'history.rewound').length,
  }
}

/** Each event as the client received it (JSON), for exact comparison. */
const comparable = (events: Ev[]) => events.map((e) => JSON.stringify(e))

test('after the end: the same runId replays that run (same events), no second run, no regenerate', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const threadId = randomUUID()
  const messages: Message[] = [{ id: randomUUID(), role: 'user', content: 'count 5' }]
  const first = await runOf(client(s, threadId, messages), 'run-a')
  assert.equal(text(first).trim(), '1 2 3 4 5')
  const retry = await runOf(client(s, threadId, messages), 'run-a')
  assert.deepEqual(comparable(retry), comparable(first), 'the retry sees what the first response said')
  assert.deepEqual(custom(retry, 'parlance.history_rewound'), [])
  const after = await log(s, threadId)
  assert.equal(after.runs.length, 1, 'one run')
  assert.equal(after.rewinds, 0)
  // A new runId with the same messages is a regenerate, as before.
  const again = await runOf(client(s, threadId, messages), 'run-b')
  assert.equal(custom(again, 'parlance.history_rewound').length, 1, 'a new runId regenerates')
  assert.equal((await log(s, threadId)).runs.length, 2)
  // And a retry of that regenerate's request is not a third run either (its runId names no message: the stored
  // turn is answered, and the regenerate's run has ended), while run-a's retry still replays run-a.
  const replayA = await runOf(client(s, threadId, messages), 'run-a')
  assert.deepEqual(comparable(replayA), comparable(first))
  assert.equal((await log(s, threadId)).runs.length, 2)
})

test('mid-run: the same runId attaches to the running run from its start, live to its end; both clients see the same', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const threadId = randomUUID()
  const messages: Message[] = [{ id: randomUUID(), role: 'user', content: 'slow please' }]
  let retried: Promise<Ev[]> | null = null
  const first = await runOf(client(s, threadId, messages), 'run-slow', (e) => {
    // The first response is still streaming: the client retries the same request (its connection "dropped").
    if (retried === null && e.type === 'TEXT_MESSAGE_CONTENT' && e.delta === '3 ') retried = runOf(client(s, threadId, messages), 'run-slow')
  })
  assert.ok(retried, 'retried mid-run')
  const second = await (retried as Promise<Ev[]>)
  assert.equal(text(first).trim().split(' ').length, 50)
  assert.equal(text(second), text(first), 'the whole answer, from the start')
  assert.deepEqual(types(second), types(first))
  assert.deepEqual(comparable(second), comparable(first))
  assert.equal(types(second).at(-1), 'RUN_FINISHED')
  const after = await log(s, threadId)
  assert.equal(after.runs.length, 1, 'one run')
  assert.equal(after.rewinds, 0)
})

test('queued: a retry of a request whose message waits in the queue streams that message’s own run, once', async (t) => {
  const s = await startServer({ onBusy: 'enqueue' })
  t.after(() => s.close())
  const threadId = randomUUID()
  const slow: Message[] = [{ id: randomUUID(), role: 'user', content: 'slow please' }]
  let queuedRequest: Promise<Ev[]> | null = null
  let retry: Promise<Ev[]> | null = null
  const queued: Message[] = [...slow, { id: randomUUID(), role: 'user', content: 'count 3' }]
  const first = await runOf(client(s, threadId, slow), 'run-1', (e) => {
    if (queuedRequest === null && e.type === 'TEXT_MESSAGE_CONTENT' && e.delta === '2 ') queuedRequest = runOf(client(s, threadId, queued), 'run-2')
    // Once the message is queued (every response of the active run says so), the client retries its request.
    if (retry === null && e.type === 'CUSTOM' && e.name === 'parlance.message_queued') retry = runOf(client(s, threadId, queued), 'run-2')
  })
  assert.equal(text(first).trim().split(' ').length, 50)
  assert.ok(queuedRequest && retry, 'queued, then retried while queued')
  const [answer, again] = await Promise.all([queuedRequest as Promise<Ev[]>, retry as Promise<Ev[]>])
  assert.equal(text(answer).trim(), '1 2 3')
  assert.deepEqual(comparable(again), comparable(answer), 'the retry streams the same run')
  assert.equal((await log(s, threadId)).runs.length, 2, 'the slow run and the queued message’s run: no third')
})
