// The LangGraph Agent Server API as a dialect (issue 49), driven by `@langchain/langgraph-sdk`'s real `Client`
// against the demo agent: info and assistants, threads (create, search by metadata, get, state, history, patch,
// delete) and streamed runs in each stream mode. Interrupts, joins, cancel and multitask: langgraph-runs.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Client } from '@langchain/langgraph-sdk'
import { startServer, type TestServer } from './harness.js'

let s: TestServer
let client: Client

before(async () => {
  s = await startServer()
  client = new Client({ apiUrl: `${s.url}/langgraph`, apiKey: null, callerOptions: { maxRetries: 0 } })
})
after(() => s.close())

type Part = { event: string; data: unknown; id?: string }
type Msg = { type: string; id: string; content: string; tool_calls?: Array<{ name: string }> }

async function collect(stream: AsyncIterable<Part>): Promise<Part[]> {
  const parts: Part[] = []
  for await (const p of stream) parts.push(p)
  return parts
}

const human = (content: string) => ({ messages: [{ type: 'human', content }] })
const lastValues = (parts: Part[]) => parts.filter((p) => p.event === 'values').at(-1)!.data as { messages: Msg[] }

describe('info and assistants', () => {
  test('GET /info answers, and every served agent is one assistant (assistant_id = graph_id = its name)', async () => {
    const info = await fetch(`${s.url}/langgraph/info`).then((r) => r.json() as Promise<{ flags: { assistants: boolean } }>)
    assert.equal(info.flags.assistants, true)
    const found = await client.assistants.search({ limit: 10 })
    assert.deepEqual(
      found.map((a) => [a.assistant_id, a.graph_id, a.name]),
      [['demo', 'demo', 'demo']],
    )
    assert.equal((await client.assistants.get('demo')).graph_id, 'demo')
    assert.deepEqual((await client.assistants.search({ graphId: 'other' })).length, 0)
    const graph = await client.assistants.getGraph('demo')
    assert.ok(graph.nodes.some((n) => n.id === 'agent'))
  })

  test('an unknown assistant is a 404 with {"detail"}', async () => {
    const res = await fetch(`${s.url}/langgraph/assistants/nobody`)
    assert.equal(res.status, 404)
    assert.match(((await res.json()) as { detail: string }).detail, /nobody/)
  })
})

describe('threads', () => {
  test('create (metadata kept), get, search by metadata, patch and delete', async () => {
    const tag = `t-${Date.now()}`
    const a = await client.threads.create({ metadata: { user: tag, topic: 'a' } })
    const b = await client.threads.create({ metadata: { user: tag, topic: 'b' } })
    await client.threads.create({ metadata: { user: 'someone else' } })
    assert.equal(a.status, 'idle')
    assert.deepEqual(a.values, { messages: [] })
    assert.deepEqual((await client.threads.get(a.thread_id)).metadata, { user: tag, topic: 'a' })
    const mine = await client.threads.search({ metadata: { user: tag } })
    assert.deepEqual(mine.map((t) => t.thread_id).sort(), [a.thread_id, b.thread_id].sort())
    assert.deepEqual(
      (await client.threads.search({ metadata: { user: tag, topic: 'b' } })).map((t) => t.thread_id),
      [b.thread_id],
    )
    const patched = await client.threads.update(b.thread_id, { metadata: { topic: 'c' } })
    assert.deepEqual(patched.metadata, { user: tag, topic: 'c' })
    await client.threads.delete(a.thread_id)
    await assert.rejects(client.threads.get(a.thread_id), /404|not found/i)
    assert.deepEqual(
      (await client.threads.search({ metadata: { user: tag } })).map((t) => t.thread_id),
      [b.thread_id],
    )
  })

  test('a thread id of its own; creating it again is 409, or the existing thread with if_exists do_nothing', async () => {
    const id = `my-thread-${Date.now()}`
    assert.equal((await client.threads.create({ threadId: id })).thread_id, id)
    await assert.rejects(client.threads.create({ threadId: id }), /409|exists/i)
    assert.equal((await client.threads.create({ threadId: id, ifExists: 'do_nothing' })).thread_id, id)
  })

  test('a run stamps graph_id into the metadata, so Agent Chat UI finds the thread by it; state and history show the messages', async () => {
    const t = await client.threads.create({ metadata: { app: 'state-test' } })
    await collect(client.runs.stream(t.thread_id, 'demo', { input: human('hello there') }))
    const found = await client.threads.search({ metadata: { graph_id: 'demo', app: 'state-test' } })
    assert.deepEqual(
      found.map((x) => x.thread_id),
      [t.thread_id],
    )
    const thread = await client.threads.get<{ messages: Msg[] }>(t.thread_id)
    assert.equal(thread.status, 'idle')
    assert.deepEqual(
      thread.values.messages.map((m) => [m.type, m.content]),
      [
        ['human', 'hello there'],
        ['ai', 'Echo: hello there'],
      ],
    )
    const state = await client.threads.getState<{ messages: Msg[] }>(t.thread_id)
    assert.deepEqual(
      state.values.messages.map((m) => m.id),
      thread.values.messages.map((m) => m.id),
    )
    assert.deepEqual(state.next, [])
    assert.ok(state.checkpoint.checkpoint_id)
    const history = await client.threads.getHistory<{ messages: Msg[] }>(t.thread_id, { limit: 10 })
    assert.equal(history[0]!.checkpoint.checkpoint_id, state.checkpoint.checkpoint_id, 'newest first, the state as its head')
    assert.deepEqual(
      history.map((h) => h.values.messages.length),
      [2, 1],
    )
    assert.equal(history[0]!.parent_checkpoint?.checkpoint_id, history[1]!.checkpoint.checkpoint_id)
  })
})

describe('runs stream', () => {
  test('values: metadata first, then the whole message list after each change; ids are log seqs and stay stable in the state', async () => {
    const t = await client.threads.create()
    const parts = await collect(client.runs.stream(t.thread_id, 'demo', { input: human('hi'), streamMode: 'values' }))
    assert.equal(parts[0]!.event, 'metadata')
    const meta = parts[0]!.data as { run_id: string; thread_id: string }
    assert.equal(meta.thread_id, t.thread_id)
    assert.deepEqual(
      parts.slice(1).map((p) => p.event),
      ['values', 'values'],
    )
    const ids = parts.slice(1).map((p) => Number(p.id))
    assert.ok(
      ids.every((n, i) => Number.isInteger(n) && (i === 0 || n > ids[i - 1]!)),
      `ids rise: ${ids.join(',')}`,
    )
    const values = lastValues(parts)
    assert.deepEqual(
      values.messages.map((m) => m.type),
      ['human', 'ai'],
    )
    const state = await client.threads.getState<{ messages: Msg[] }>(t.thread_id)
    assert.deepEqual(state.values.messages, values.messages)
    const run = await client.runs.get(t.thread_id, meta.run_id)
    assert.equal(run.status, 'success')
    assert.equal(run.assistant_id, 'demo')
  })

  test('messages-tuple: AIMessageChunk deltas with one id join to the answer', async () => {
    const t = await client.threads.create()
    const parts = await collect(client.runs.stream(t.thread_id, 'demo', { input: human('count 30'), streamMode: ['messages-tuple', 'values'] }))
    const tuples = parts
      .filter((p) => p.event === 'messages')
      .map((p) => p.data as [{ type: string; id: string; content: string }, { langgraph_node: string }])
    assert.ok(tuples.length >= 30, `${tuples.length} chunks`)
    assert.ok(tuples.every(([c, m]) => c.type === 'AIMessageChunk' && c.id === tuples[0]![0].id && m.langgraph_node === 'agent'))
    const text = tuples.map(([c]) => c.content).join('')
    assert.equal(text.trim(), Array.from({ length: 30 }, (_, i) => i + 1).join(' '))
    assert.equal(lastValues(parts).messages.at(-1)!.content, text)
    assert.equal(lastValues(parts).messages.at(-1)!.id, tuples[0]![0].id)
  })

  test('updates: each node step as {agent|tools: {messages: [new]}}; a server tool call and its result', async () => {
    const t = await client.threads.create()
    const parts = await collect(client.runs.stream(t.thread_id, 'demo', { input: human('weather in Paris'), streamMode: 'updates' }))
    const updates = parts.filter((p) => p.event === 'updates').map((p) => p.data as Record<string, { messages: Msg[] }>)
    assert.deepEqual(
      updates.map((u) => Object.keys(u)[0]),
      ['agent', 'tools', 'agent'],
    )
    assert.equal(updates[0]!.agent!.messages[0]!.tool_calls![0]!.name, 'get_weather')
    assert.match(updates[2]!.agent!.messages[0]!.content, /Paris is cloudy/)
  })

  test('custom and the legacy messages mode; a stateless run on /runs/stream', async () => {
    const parts = await collect(client.runs.stream(null, 'demo', { input: human('count 3'), streamMode: ['messages', 'custom'] }))
    const events = parts.map((p) => p.event)
    assert.ok(events.includes('messages/metadata') && events.includes('messages/partial') && events.includes('messages/complete'), events.join(','))
    const complete = parts.find((p) => p.event === 'messages/complete')!.data as Msg[]
    assert.equal(complete[0]!.content.trim(), '1 2 3')
  })

  test('a failing run ends with event: error {error, message}; the thread shows status error', async () => {
    const t = await client.threads.create()
    const parts = await collect(client.runs.stream(t.thread_id, 'demo', { input: human('fail please') }))
    const err = parts.find((p) => p.event === 'error')
    assert.ok(err, parts.map((p) => p.event).join(','))
    assert.deepEqual(Object.keys(err.data as object).sort(), ['error', 'message'])
    assert.match((err.data as { message: string }).message, /flaky_tool/)
    assert.equal((await client.threads.get(t.thread_id)).status, 'error')
  })
})

describe('auth', () => {
  test("the SDK's apiKey (x-api-key) is the server token; without it the API answers 401 {detail}", async () => {
    const guarded = await startServer({ auth: { token: 'lg-secret' } })
    try {
      const ok = new Client({ apiUrl: `${guarded.url}/langgraph`, apiKey: 'lg-secret', callerOptions: { maxRetries: 0 } })
      assert.equal((await ok.assistants.get('demo')).assistant_id, 'demo')
      const res = await fetch(`${guarded.url}/langgraph/assistants/demo`)
      assert.equal(res.status, 401)
      assert.ok(((await res.json()) as { detail: string }).detail)
    } finally {
      await guarded.close()
    }
  })
})
