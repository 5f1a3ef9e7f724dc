// The LangGraph dialect's runs beyond one stream (issue 49), with `@langchain/langgraph-sdk`'s real `Client`:
// approvals as HITL interrupts resumed with command.resume (approve, reject, edit refused), a client tool as a
// headless-tool interrupt, joinStream of a dropped resumable run by Last-Event-ID, cancel, multitask strategies,
// on_disconnect and bad input in the API's error shape.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Client } from '@langchain/langgraph-sdk'
import { startServer, type TestServer } from './harness.js'
import { waitFor } from './support/wait.js'

let s: TestServer
let client: Client

before(async () => {
  s = await startServer()
  client = new Client({ apiUrl: `${s.url}/langgraph`, apiKey: null, callerOptions: { maxRetries: 0 } })
})
after(() => s.close())

type Part = { event: string; data: unknown; id?: string }
type Msg = { type: string; id: string; content: string; status?: string; tool_call_id?: string }
type Interrupt = { id: string; value: Record<string, unknown> }

async function collect(stream: AsyncIterable<Part>): Promise<Part[]> {
  const parts: Part[] = []
  for await (const p of stream) parts.push(p)
  return parts
}

const human = (content: string) => ({ messages: [{ type: 'human', content }] })
const values = (parts: Part[]) => parts.filter((p) => p.event === 'values').at(-1)!.data as { messages: Msg[]; __interrupt__?: Interrupt[] }
const text = (parts: Part[]) =>
  parts
    .filter((p) => p.event === 'messages')
    .map((p) => (p.data as [{ content: string }])[0].content)
    .join('')
const count = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(' ')

describe('approvals as HITL interrupts', () => {
  async function interrupted() {
    const t = await client.threads.create()
    const parts = await collect(client.runs.stream(t.thread_id, 'demo', { input: human('delete the notes') }))
    return { t, parts, interrupt: values(parts).__interrupt__![0]! }
  }

  test('the run ends interrupted with action_requests / review_configs; the thread, its state and the run say so', async () => {
    const { t, parts, interrupt } = await interrupted()
    assert.deepEqual(interrupt.value.action_requests, [
      {
        name: 'delete_file',
        args: { path: 'notes/demo.txt' },
        description: 'Tool execution requires approval (risk: high): You asked me to delete the demo notes file.',
      },
    ])
    assert.deepEqual(interrupt.value.review_configs, [{ action_name: 'delete_file', allowed_decisions: ['approve', 'reject'] }])
    const thread = await client.threads.get(t.thread_id)
    assert.equal(thread.status, 'interrupted')
    assert.deepEqual(Object.values(thread.interrupts).flat(), [interrupt])
    const state = await client.threads.getState(t.thread_id)
    assert.deepEqual(state.next, ['agent'])
    assert.deepEqual(state.tasks[0]!.interrupts, [interrupt])
    const run = await client.runs.get(t.thread_id, (parts[0]!.data as { run_id: string }).run_id)
    assert.equal(run.status, 'interrupted')
  })

  test('approve: a new run resumes the agent; the tool runs once', async () => {
    const { t } = await interrupted()
    const parts = await collect(client.runs.stream(t.thread_id, 'demo', { command: { resume: { decisions: [{ type: 'approve' }] } } }))
    const msgs = values(parts).messages
    assert.equal(msgs.at(-1)!.content, 'Done: deleted notes/demo.txt.')
    const state = await client.threads.getState<{ messages: Msg[] }>(t.thread_id)
    assert.deepEqual(
      state.values.messages.filter((m) => m.type === 'tool').map((m) => m.content),
      ['deleted notes/demo.txt'],
    )
    assert.equal((await client.threads.get(t.thread_id)).status, 'idle')
  })

  test('reject with a message: the tool never runs, the agent says why', async () => {
    const { t } = await interrupted()
    const parts = await collect(
      client.runs.stream(t.thread_id, 'demo', { command: { resume: { decisions: [{ type: 'reject', message: 'keep it' }] } } }),
    )
    assert.equal(values(parts).messages.at(-1)!.content, 'Not approved, so notes/demo.txt was not deleted. (keep it)')
    const state = await client.threads.getState<{ messages: Msg[] }>(t.thread_id)
    assert.equal(state.values.messages.filter((m) => m.type === 'tool').length, 0)
  })

  test('edit is refused (422, saying why) and the interrupt stays; a resume with nothing pending is 409', async () => {
    const { t, interrupt } = await interrupted()
    const edit = { decisions: [{ type: 'edit', edited_action: { name: 'delete_file', args: { path: 'x' } } }] }
    await assert.rejects(collect(client.runs.stream(t.thread_id, 'demo', { command: { resume: edit } })), /422/)
    assert.deepEqual((await client.threads.getState(t.thread_id)).tasks[0]!.interrupts, [interrupt])
    const idle = await client.threads.create()
    await assert.rejects(collect(client.runs.stream(idle.thread_id, 'demo', { command: { resume: true } })), /409/)
  })
})

describe('client tools as headless-tool interrupts', () => {
  test('the run pauses with {type: "tool", toolCall}; resumed with {[toolCallId]: result}', async () => {
    const t = await client.threads.create()
    const first = await collect(client.runs.stream(t.thread_id, 'demo', { input: human('ask the client') }))
    const interrupt = values(first).__interrupt__![0]!
    const call = interrupt.value.toolCall as { id: string; name: string; args: unknown }
    assert.equal(interrupt.value.type, 'tool')
    assert.equal(call.name, 'get_client_info')
    assert.equal(interrupt.id, call.id)
    const parts = await collect(client.runs.stream(t.thread_id, 'demo', { command: { resume: { [call.id]: { app: 'sdk' } } } }))
    const msgs = values(parts).messages
    assert.deepEqual(
      msgs.slice(-2).map((m) => [m.type, m.content]),
      [
        ['tool', '{"app":"sdk"}'],
        ['ai', 'Client info: {"app":"sdk"}'],
      ],
    )
  })
})

describe('join, cancel, multitask', () => {
  test('joinStream of a dropped resumable run continues after Last-Event-ID with no gap or repeat; -1 replays it whole', async () => {
    const t = await client.threads.create()
    const ac = new AbortController()
    const seen: Part[] = []
    for await (const p of client.runs.stream(t.thread_id, 'demo', {
      input: human('slow'),
      streamMode: ['messages-tuple'],
      streamResumable: true,
      onDisconnect: 'continue',
      signal: ac.signal,
    })) {
      seen.push(p)
      if (seen.filter((x) => x.event === 'messages').length === 5) ac.abort()
    }
    const runId = (seen[0]!.data as { run_id: string }).run_id
    const lastEventId = seen.at(-1)!.id!
    const rest = await collect(client.runs.joinStream(t.thread_id, runId, { lastEventId, streamMode: ['messages-tuple'] }))
    assert.equal(text(seen) + text(rest), `${count(50)} `)
    const whole = await collect(client.runs.joinStream(t.thread_id, runId, { lastEventId: '-1', streamMode: ['messages-tuple'] }))
    assert.equal(text(whole), `${count(50)} `)
    assert.equal((await client.runs.get(t.thread_id, runId)).status, 'success')
  })

  test('cancel stops the run: its stream ends without an error, the run is interrupted and the thread idle', async () => {
    const t = await client.threads.create()
    const parts: Part[] = []
    let runId = ''
    const done = (async () => {
      for await (const p of client.runs.stream(t.thread_id, 'demo', { input: human('slow'), streamMode: ['messages-tuple'] })) {
        parts.push(p)
        if (p.event === 'metadata') runId = (p.data as { run_id: string }).run_id
      }
    })()
    await waitFor(() => parts.some((p) => p.event === 'messages'), { what: 'the first token' })
    await client.runs.cancel(t.thread_id, runId, true)
    await done
    assert.ok(!parts.some((p) => p.event === 'error'))
    assert.equal((await client.runs.get(t.thread_id, runId)).status, 'interrupted')
    assert.equal((await client.threads.get(t.thread_id)).status, 'idle')
  })

  test('on_disconnect cancel: a client that goes away cancels its run', async () => {
    const t = await client.threads.create()
    const ac = new AbortController()
    let runId = ''
    for await (const p of client.runs.stream(t.thread_id, 'demo', {
      input: human('slow'),
      streamMode: ['messages-tuple'],
      onDisconnect: 'cancel',
      signal: ac.signal,
    })) {
      if (p.event === 'metadata') runId = (p.data as { run_id: string }).run_id
      if (p.event === 'messages') ac.abort()
    }
    await waitFor(async () => (await client.runs.get(t.thread_id, runId)).status === 'interrupted', { what: 'the run cancelled' })
  })

  test('multitask_strategy reject is 409 while a run is busy; enqueue runs the message after it', async () => {
    const t = await client.threads.create()
    const parts: Part[] = []
    let runId = ''
    const busy = (async () => {
      for await (const p of client.runs.stream(t.thread_id, 'demo', { input: human('slow'), streamMode: ['messages-tuple'] })) {
        parts.push(p)
        if (p.event === 'metadata') runId = (p.data as { run_id: string }).run_id
      }
    })()
    await waitFor(() => parts.some((p) => p.event === 'messages'), { what: 'the first token' })
    await assert.rejects(collect(client.runs.stream(t.thread_id, 'demo', { input: human('hello'), multitaskStrategy: 'reject' })), /409/)
    const queued = collect(client.runs.stream(t.thread_id, 'demo', { input: human('hello'), multitaskStrategy: 'enqueue' }))
    await waitFor(
      async () => (await fetch(`${s.url}/langgraph/threads/${t.thread_id}`).then((r) => r.json() as Promise<{ status: string }>)).status === 'busy',
      { what: 'busy' },
    )
    await client.runs.cancel(t.thread_id, runId)
    await busy
    const answer = await queued
    assert.equal(values(answer).messages.at(-1)!.content, 'Echo: hello')
  })
})

describe('bad input', () => {
  const post = (path: string, body: string) =>
    fetch(`${s.url}/langgraph${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { detail: string },
    }))

  test('each refusal is {"detail"} with the API status, before any run starts; the server stays up', async () => {
    const t = await client.threads.create()
    const run = `/threads/${t.thread_id}/runs/stream`
    const cases: Array<[string, number, RegExp]> = [
      ['{"input": {"messages": [{"type": "human", "content": "hi"}]}}', 422, /assistant_id/],
      ['{"assistant_id": "nobody", "input": {"messages": [{"type": "human", "content": "hi"}]}}', 404, /nobody/],
      [
        '{"assistant_id": "demo", "input": {"messages": [{"type": "human", "content": [{"type": "image_url", "image_url": "x"}]}]}}',
        422,
        /content\[0\].*image_url/,
      ],
      [`{"assistant_id": "demo", "input": {"messages": [{"type": "human", "content": "${'x'.repeat(10_001)}"}]}}`, 422, /limit is 10000/],
      ['{"assistant_id": "demo", "input": {"messages": [{"type": "ai", "content": "hi"}]}}', 422, /human message/],
      ['{"assistant_id": "demo"}', 422, /input/],
      [`{"assistant_id": "demo", "input": ${'['.repeat(80)}${']'.repeat(80)}}`, 422, /deeper/],
      ['{"assistant_id": "demo", "input": {"messages": [{"type": "human", "content": "hi", "__proto__": 1}]}}', 422, /forbidden key/],
      ['not json', 400, /not valid JSON/],
    ]
    for (const [body, status, detail] of cases) {
      const r = await post(run, body)
      assert.equal(r.status, status, body.slice(0, 80))
      assert.match(r.body.detail, detail)
    }
    assert.equal(
      (await post('/threads/nope/runs/stream', '{"assistant_id": "demo", "input": {"messages": [{"type": "human", "content": "hi"}]}}')).status,
      404,
    )
    assert.equal((await client.threads.get<{ messages: Msg[] }>(t.thread_id)).values.messages.length, 0, 'nothing ran')
    assert.equal((await fetch(`${s.url}/langgraph/info`)).status, 200)
  })
})
