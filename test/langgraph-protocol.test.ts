// LangGraph's agent streaming protocol (issue 49): `POST /threads/{id}/commands` and `POST /threads/{id}/stream/events`,
// driven by the SDK's own StreamController (what `useStream` of `@langchain/react` 1.x wraps) over its SSE transport:
// a chat streamed, an approval shown and answered (approve, reject), stop; then the wire itself: the events a stream
// carries, bad commands answered in the protocol's ErrorResponse shape, and the server still up.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { applyHeadlessToolResumeCommand, Client, flushPendingHeadlessToolInterrupts } from '@langchain/langgraph-sdk'
import { StreamController } from '@langchain/langgraph-sdk/stream'
import { startServer, type TestServer } from './harness.js'
import { waitFor } from './support/wait.js'

let s: TestServer
let client: Client<Record<string, unknown>>
type Ctl = StreamController<Record<string, unknown>>
const controllers: Ctl[] = []

before(async () => {
  s = await startServer()
  client = new Client<Record<string, unknown>>({ apiUrl: `${s.url}/langgraph`, apiKey: null, callerOptions: { maxRetries: 0 } })
})
after(async () => {
  for (const c of controllers) await c.dispose()
  await s.close()
})

type Msg = { type?: string; id?: string; content: unknown; _getType?: () => string }
type Snapshot = { messages: Msg[]; interrupts: Array<{ id?: string; value?: Record<string, unknown> }>; isLoading: boolean; threadId: string | null }

function controller(threadId: string | null = null) {
  const c = new StreamController<Record<string, unknown>>({ assistantId: 'demo', client, threadId })
  controllers.push(c)
  c.activate()
  return c
}
const snap = (c: Ctl) => c.rootStore.getSnapshot() as unknown as Snapshot
/** A message's text: its content, or its text blocks joined (a streamed message keeps its blocks), trimmed. */
const textOf = (content: unknown): string =>
  (typeof content === 'string' ? content : (content as Array<{ text?: string }>).map((b) => b.text ?? '').join('')).trim()
const texts = (c: Ctl) => snap(c).messages.map((m) => textOf(m.content))
const human = (content: string) => ({ messages: [{ type: 'human', content }] })

describe('StreamController (the SDK useStream wraps) against Parlance', () => {
  test('a chat: the answer streams in, the thread is created by the first run and reads back the same', async () => {
    const c = controller()
    const seen = new Set<string>()
    c.rootStore.subscribe(() => {
      for (const t of texts(c)) seen.add(t)
    })
    await c.submit(human('count 5'))
    await waitFor(() => texts(c).at(-1) === '1 2 3 4 5', { what: 'the streamed answer' })
    assert.deepEqual(texts(c), ['count 5', '1 2 3 4 5'])
    const threadId = snap(c).threadId!
    const state = await client.threads.getState<{ messages: Msg[] }>(threadId)
    assert.deepEqual(
      state.values.messages.map((m) => m.id),
      snap(c).messages.map((m) => m.id),
    )
    assert.equal(snap(c).isLoading, false)
  })

  test('an approval is an interrupt; respond with approve resumes the run and the tool runs', async () => {
    const c = controller()
    await c.submit(human('delete the notes'))
    const interrupt = await waitFor(() => snap(c).interrupts[0], { what: 'the interrupt' })
    const request = (interrupt.value!.action_requests as Array<{ name: string }>)[0]!
    assert.equal(request.name, 'delete_file')
    await c.respond({ decisions: [{ type: 'approve' }] })
    await waitFor(() => texts(c).at(-1) === 'Done: deleted notes/demo.txt.', { what: 'the answer after approval' })
    await waitFor(() => !snap(c).isLoading, { what: 'the run over' })
    assert.deepEqual(snap(c).interrupts, [])
    const thread = await client.threads.get(snap(c).threadId!)
    assert.equal(thread.status, 'idle')
  })

  test('respond with reject: the tool never runs and the agent says why', async () => {
    const c = controller()
    await c.submit(human('delete the notes'))
    await waitFor(() => snap(c).interrupts[0], { what: 'the interrupt' })
    await c.respond({ decisions: [{ type: 'reject', message: 'keep it' }] })
    await waitFor(() => texts(c).at(-1) === 'Not approved, so notes/demo.txt was not deleted. (keep it)', { what: 'the refusal' })
    const state = await client.threads.getState<{ messages: Msg[] }>(snap(c).threadId!)
    assert.equal(state.values.messages.filter((m) => m.type === 'tool').length, 0)
  })

  test('a new controller on the thread (a page reload) shows the pending interrupt and can answer it', async () => {
    const first = controller()
    await first.submit(human('delete the notes'))
    const threadId = snap(first).threadId!
    await first.dispose()
    const c = controller(threadId)
    await c.hydrate(threadId)
    const interrupt = await waitFor(() => snap(c).interrupts[0], { what: 'the interrupt after reload' })
    assert.equal((interrupt.value!.action_requests as Array<{ name: string }>)[0]!.name, 'delete_file')
    assert.equal(texts(c)[0], 'delete the notes')
    await c.respond({ decisions: [{ type: 'approve' }] }, { interruptId: interrupt.id! })
    await waitFor(() => texts(c).at(-1) === 'Done: deleted notes/demo.txt.', { what: 'the answer after approval' })
  })

  test('a client tool: the headless-tool interrupt, answered by the tool as useStream runs it (flushPendingHeadlessToolInterrupts)', async () => {
    const c = controller()
    await c.submit(human('ask the client'))
    const interrupt = await waitFor(() => snap(c).interrupts[0], { what: 'the headless-tool interrupt' })
    assert.equal(interrupt.value!.type, 'tool')
    const tools = [{ tool: { name: 'get_client_info' }, execute: () => Promise.resolve({ app: 'react' }) }]
    flushPendingHeadlessToolInterrupts({ __interrupt__: snap(c).interrupts }, tools, new Set(), {
      resumeSubmit: (command) => applyHeadlessToolResumeCommand(c, command),
    })
    await waitFor(() => texts(c).at(-1) === 'Client info: {"app":"react"}', { what: 'the answer after the client tool' })
  })

  test('stop cancels the run on the server (by the run id run.start answered)', async () => {
    let runId: string | undefined
    const c = new StreamController<Record<string, unknown>>({
      assistantId: 'demo',
      client,
      threadId: null,
      onCreated: (r) => {
        runId = r.runId
      },
    })
    controllers.push(c)
    c.activate()
    const submitted = c.submit(human('slow'))
    await waitFor(() => runId, { what: 'the run created' })
    const threadId = snap(c).threadId!
    await waitFor(() => texts(c).length === 2, { what: 'the answer streaming' })
    await c.stop()
    await submitted
    await waitFor(async () => (await client.runs.get(threadId, runId!)).status === 'interrupted', { what: 'the run cancelled' })
    assert.equal((await client.threads.get(threadId)).status, 'idle')
    assert.equal(snap(c).isLoading, false)
  })
})

const post = (path: string, body: unknown) =>
  fetch(`${s.url}/langgraph${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

describe('the wire', () => {
  test('a stream carries lifecycle, messages (start, block deltas, finish), values; ids are seqs; one per event', async () => {
    const threadId = randomUUID()
    const started = await post(`/threads/${threadId}/commands`, {
      id: 1,
      method: 'run.start',
      params: { assistant_id: 'demo', input: human('count 3') },
    })
    assert.equal(started.status, 200)
    const response = (await started.json()) as { type: string; id: number; result: { run_id: string }; meta: { applied_through_seq: number } }
    assert.equal(response.type, 'success')
    assert.equal(response.id, 1)
    assert.equal(typeof response.result.run_id, 'string')
    assert.equal(typeof response.meta.applied_through_seq, 'number')
    const ac = new AbortController()
    const res = await fetch(`${s.url}/langgraph/threads/${threadId}/stream/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ channels: ['lifecycle', 'messages', 'values'] }),
      signal: ac.signal,
    })
    assert.match(res.headers.get('content-type')!, /text\/event-stream/)
    const events: Array<{
      type: string
      event_id: string
      seq: number
      method: string
      params: { namespace: string[]; data: Record<string, unknown> }
    }> = []
    const decoder = new TextDecoder()
    let buffer = ''
    const reader = res.body!.getReader()
    while (!events.some((e) => e.method === 'lifecycle' && e.params.data.event === 'completed')) {
      const { value, done } = (await reader.read()) as { value?: Uint8Array; done: boolean }
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      const blocks = buffer.split('\n\n')
      buffer = blocks.pop()!
      for (const b of blocks) {
        const data = b.split('\n').find((l) => l.startsWith('data: '))
        if (data) events.push(JSON.parse(data.slice(6)) as (typeof events)[number])
      }
    }
    ac.abort()
    const kinds = events.map((e) => (e.method === 'lifecycle' || e.method === 'messages' ? `${e.method}:${String(e.params.data.event)}` : e.method))
    assert.equal(kinds[0], 'lifecycle:running')
    assert.equal(kinds.at(-1), 'lifecycle:completed')
    assert.ok(kinds.indexOf('messages:message-start') < kinds.indexOf('messages:content-block-delta'))
    assert.ok(kinds.indexOf('messages:content-block-finish') < kinds.indexOf('messages:message-finish'))
    const deltas = events.filter((e) => e.params.data.event === 'content-block-delta').map((e) => (e.params.data.delta as { text: string }).text)
    assert.equal(deltas.join('').trim(), '1 2 3')
    const values = events.filter((e) => e.method === 'values').at(-1)!.params.data as { messages: Msg[] }
    assert.deepEqual(
      values.messages.map((m) => textOf(m.content)),
      ['count 3', '1 2 3'],
    )
    assert.equal(new Set(events.map((e) => e.event_id)).size, events.length)
    assert.ok(events.every((e, i) => e.type === 'event' && e.params.namespace.length === 0 && (i === 0 || e.seq >= events[i - 1]!.seq)))
    assert.ok(events.every((e) => e.seq > response.meta.applied_through_seq))
  })

  test('bad commands are ErrorResponses with the protocol codes; the server stays up', async () => {
    const threadId = randomUUID()
    const cases: Array<[unknown, number, number | null, string]> = [
      [{ id: 3, method: 'nope' }, 400, 3, 'unknown_command'],
      [{ id: 4, method: 'agent.getTree', params: {} }, 400, 4, 'not_supported'],
      [
        { id: 5, method: 'run.start', params: { assistant_id: 'demo', input: { messages: [{ type: 'ai', content: 'x' }] } } },
        400,
        5,
        'invalid_argument',
      ],
      [
        { id: 6, method: 'run.start', params: { assistant_id: 'demo', input: { messages: [{ type: 'human', content: [{ type: 'image' }] }] } } },
        400,
        6,
        'invalid_argument',
      ],
      [{ method: 'run.start' }, 400, null, 'invalid_argument'],
    ]
    for (const [body, status, id, error] of cases) {
      const r = await post(`/threads/${threadId}/commands`, body)
      assert.equal(r.status, status, JSON.stringify(body))
      const e = (await r.json()) as { type: string; id: number | null; error: string; message: string }
      assert.deepEqual({ type: e.type, id: e.id, error: e.error }, { type: 'error', id, error }, JSON.stringify(body))
      assert.ok(e.message.length > 0)
    }
    const unknownThread = await post(`/threads/${randomUUID()}/commands`, {
      id: 9,
      method: 'input.respond',
      params: { interrupt_id: 'x', response: true },
    })
    assert.equal(unknownThread.status, 404)
    assert.equal(((await unknownThread.json()) as { error: string }).error, 'invalid_argument')
    const noStream = await post(`/threads/${randomUUID()}/stream/events`, { channels: ['values'] })
    assert.equal(noStream.status, 404)
    assert.equal(((await noStream.json()) as { type: string }).type, 'error')
    const c = controller()
    await c.submit(human('hello'))
    await waitFor(() => texts(c).length === 2, { what: 'an answer after the bad commands' })
  })

  test('input.respond naming no pending interrupt is no_such_interrupt; the interrupt stays', async () => {
    const c = controller()
    await c.submit(human('delete the notes'))
    const interrupt = await waitFor(() => snap(c).interrupts[0], { what: 'the interrupt' })
    const threadId = snap(c).threadId!
    const r = await post(`/threads/${threadId}/commands`, {
      id: 2,
      method: 'input.respond',
      params: { namespace: [], interrupt_id: 'nope', response: true },
    })
    assert.equal(r.status, 404)
    assert.equal(((await r.json()) as { error: string }).error, 'no_such_interrupt')
    const state = await client.threads.getState(threadId)
    assert.equal(state.tasks[0]!.interrupts[0]!.id, interrupt.id)
  })

  test('without the token the protocol routes answer 401 in the ErrorResponse shape', async () => {
    const guarded = await startServer({ auth: { token: 'lg-secret' } })
    try {
      for (const path of ['commands', 'stream/events']) {
        const r = await fetch(`${guarded.url}/langgraph/threads/t1/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
        assert.equal(r.status, 401)
        const e = (await r.json()) as { type: string; id: null; error: string; message: string }
        assert.deepEqual({ type: e.type, id: e.id, error: e.error }, { type: 'error', id: null, error: 'permission_denied' })
        assert.ok(e.message)
      }
    } finally {
      await guarded.close()
    }
  })
})
