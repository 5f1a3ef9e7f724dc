// A2A (src/dialects/a2a) driven by the official `@a2a-js/sdk` client, built from Parlance's agent card: blocking
// send, streaming send, tasks/get, cancel, an approval through input-required, and the task watched from HAI.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { TaskState, type Message, type Task } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { AguiClient, connectA2a } from '../src/client/index.js'
import { startServer, type TestServer } from './harness.js'
import { watch } from './huma-support.js'
import { waitFor } from './support/wait.js'
import { a2aMessage, asTask } from './support/a2a.js'

const message = a2aMessage
const send = (c: Client, m: Message) => c.sendMessage({ tenant: '', message: m, configuration: undefined, metadata: undefined })
const stream = (c: Client, m: Message) => c.sendMessageStream({ tenant: '', message: m, configuration: undefined, metadata: undefined })
/** The text of a task's artifacts (the streamed response, chunks appended). */
const artifactText = (t: Task) =>
  t.artifacts
    .filter((a) => a.name === 'response')
    .flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')))
    .join('')
    .trim()

async function server(): Promise<TestServer> {
  return startServer()
}

test('agent card: at the well-known path and per agent, naming the JSON-RPC interface (1.0, and 0.3), streaming and skills', async (t) => {
  const s = await server()
  t.after(() => s.close())
  const v1 = { 'a2a-version': '1.0' }
  const card = (await (await fetch(`${s.url}/.well-known/agent-card.json`, { headers: v1 })).json()) as {
    name: string
    supportedInterfaces: Array<{ url: string; protocolBinding: string; protocolVersion: string }>
    capabilities: { streaming: boolean; pushNotifications: boolean }
    skills: Array<{ id: string }>
  }
  assert.equal(card.name, 'demo')
  assert.deepEqual(
    card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion]),
    [
      [`${s.url}/a2a/demo`, 'JSONRPC', '1.0'],
      [`${s.url}/a2a/demo`, 'JSONRPC', '0.3'],
    ],
  )
  assert.deepEqual([card.capabilities.streaming, card.capabilities.pushNotifications], [true, true])
  assert.ok(
    card.skills.some((k) => k.id === 'get_weather'),
    'tools are skills',
  )
  assert.equal((await fetch(`${s.url}/a2a/demo/.well-known/agent-card.json`, { headers: v1 })).status, 200)
  assert.equal((await fetch(`${s.url}/a2a/ghost/.well-known/agent-card.json`)).status, 404)
  // Without A2A-Version (what a 0.3 client sends): the 0.3 card.
  const legacy = (await (await fetch(`${s.url}/.well-known/agent-card.json`)).json()) as {
    url: string
    protocolVersion: string
    preferredTransport: string
  }
  assert.deepEqual([legacy.url, legacy.protocolVersion, legacy.preferredTransport], [`${s.url}/a2a/demo`, '0.3.0', 'JSONRPC'])
})

test('A2A 0.3 clients: message/send and message/stream by their 0.3 names and shapes', async (t) => {
  const s = await server()
  t.after(() => s.close())
  const rpc = (method: string, params: unknown) =>
    fetch(`${s.url}/a2a/demo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
  const msg = (text: string) => ({ message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] } })
  const sent = (await (await rpc('message/send', msg('count 3'))).json()) as {
    result: { kind: string; contextId: string; status: { state: string }; artifacts: Array<{ parts: Array<{ kind: string; text?: string }> }> }
  }
  assert.deepEqual([sent.result.kind, sent.result.status.state], ['task', 'completed'])
  assert.equal(
    sent.result.artifacts
      .flatMap((a) => a.parts.map((p) => p.text ?? ''))
      .join('')
      .trim(),
    '1 2 3',
  )
  const streamed = await (await rpc('message/stream', msg('count 2'))).text()
  const kinds = streamed
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => (JSON.parse(l.slice(6)) as { result: { kind: string } }).result.kind)
  assert.equal(kinds[0], 'task')
  assert.ok(kinds.includes('artifact-update') && kinds.at(-1) === 'status-update', kinds.join(' '))
})

test('message/send: the run is a task; its text is the response artifact; tasks/get returns it; the context continues', async (t) => {
  const s = await server()
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url })
  const task = asTask(await send(c, message('count 3')))
  assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED)
  assert.equal(artifactText(task), '1 2 3')
  const again = await c.getTask({ tenant: '', id: task.id })
  assert.equal(again.status?.state, TaskState.TASK_STATE_COMPLETED)
  // The context is the Parlance session: a second task in it sees the first turn; the state comes as a data artifact.
  const state = asTask(await send(c, message('state please', { contextId: task.contextId })))
  const data = state.artifacts.find((a) => a.name === 'state')?.parts[0]?.content
  assert.deepEqual(data?.$case === 'data' ? data.value : null, { counter: 1 })
  assert.deepEqual(
    (await s.stored(task.contextId))!.messages.filter((m) => m.role === 'user').map((m) => m.content),
    ['count 3', 'state please'],
  )
  // A failing run is a failed task, with the error in its status message.
  const failed = asTask(await send(c, message('fail now')))
  assert.equal(failed.status?.state, TaskState.TASK_STATE_FAILED)
  assert.match(JSON.stringify(failed.status?.message), /flaky_tool/)
})

test('message/stream: task, working, text chunks appended, completed — watched live from HAI and AG-UI at the same time', async (t) => {
  const s = await server()
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url, agent: 'demo' })
  const contextId = `a2a-${randomUUID()}`
  let hai: Awaited<ReturnType<TestServer['hai']>> | undefined
  let agui: Promise<string> | undefined
  const kinds: string[] = []
  let text = ''
  for await (const ev of stream(c, message('count 5', { contextId }))) {
    const p = ev.payload
    if (!p) continue
    // The session exists once the task does: a HAI client and an AG-UI client join it from its start, while it streams.
    hai ??= await s.hai({ sessionId: contextId, resumeAfter: 0 })
    agui ??= (async () => {
      let seen = ''
      for await (const e of new AguiClient({ url: s.url }).resume(contextId, 0))
        if (e.event.type === 'TEXT_MESSAGE_CONTENT') seen += String(e.event.delta)
      return seen
    })()
    if (p.$case === 'statusUpdate') kinds.push(`status:${TaskState[p.value.status!.state]}`)
    else if (p.$case === 'artifactUpdate') {
      kinds.push(p.value.append ? 'append' : 'artifact')
      for (const part of p.value.artifact?.parts ?? []) if (part.content?.$case === 'text') text += part.content.value
    } else kinds.push(p.$case)
  }
  assert.equal(kinds[0], 'task')
  assert.ok(kinds.includes('status:TASK_STATE_WORKING'))
  assert.equal(kinds.at(-1), 'status:TASK_STATE_COMPLETED')
  assert.ok(kinds.filter((k) => k === 'append').length >= 3, `streamed in chunks: ${kinds.join(' ')}`)
  assert.equal(text.trim(), '1 2 3 4 5')
  const seen = await hai!.untilCompleted()
  assert.equal(
    seen
      .filter((m) => m.type === 'assistant_message_chunk')
      .map((m) => (m as { content?: string }).content ?? '')
      .join('')
      .trim(),
    '1 2 3 4 5',
  )
  assert.equal((await agui!).trim(), '1 2 3 4 5', 'the AG-UI watcher saw the same text')
})

for (const approve of [true, false]) {
  test(`an approval: input-required with the question as data; the next message of the task ${approve ? 'approves' : 'rejects'} it`, async (t) => {
    const s = await server()
    t.after(() => s.close())
    const c = await connectA2a({ url: s.url })
    const first = asTask(await send(c, message('delete my notes')))
    assert.equal(first.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
    const asked = first.status?.message?.parts.find((p) => p.content?.$case === 'data')?.content
    const q = (asked?.$case === 'data' ? asked.value : null) as { tool: string; args: unknown } | null
    assert.deepEqual(q && [q.tool, q.args], ['delete_file', { path: 'notes/demo.txt' }])
    const answer = message('', {
      contextId: first.contextId,
      taskId: first.id,
      parts: [
        {
          content: { $case: 'data', value: { approved: approve, feedback: approve ? undefined : 'keep it' } },
          metadata: undefined,
          filename: '',
          mediaType: 'application/json',
        },
      ],
    })
    const done = asTask(await send(c, answer))
    assert.equal(done.id, first.id, 'the same task goes on')
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED)
    if (approve) assert.match(artifactText(done), /Done: deleted notes\/demo\.txt\./)
    else assert.match(artifactText(done), /Not approved.*keep it/)
  })
}

test('a client tool: input-required with the call as data; the next message of the task carries its result', async (t) => {
  const s = await server()
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url })
  const first = asTask(await send(c, message('client info please')))
  assert.equal(first.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
  const asked = first.status?.message?.parts.find((p) => p.content?.$case === 'data')?.content
  const q = (asked?.$case === 'data' ? asked.value : null) as { clientTool: boolean; tool: string; args: unknown } | null
  assert.deepEqual(q && [q.clientTool, q.tool, q.args], [true, 'get_client_info', {}])
  const answer = message('', {
    contextId: first.contextId,
    taskId: first.id,
    parts: [{ content: { $case: 'data', value: { result: { os: 'a2a-test' } } }, metadata: undefined, filename: '', mediaType: 'application/json' }],
  })
  const done = asTask(await send(c, answer))
  assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED)
  assert.equal(artifactText(done), 'Client info: {"os":"a2a-test"}')
})

test('tasks/cancel stops the run: the task ends canceled', async (t) => {
  const s = await server()
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url })
  const contextId = `a2a-${randomUUID()}`
  const w = await watch(s, contextId)
  const events = stream(c, message('slow please', { contextId }))
  let taskId = ''
  let asked = false
  const states: string[] = []
  for await (const ev of events) {
    const p = ev.payload
    if (p?.$case === 'task') taskId = p.value.id
    if (p?.$case === 'artifactUpdate' && !asked) {
      asked = true
      const cancelled = await c.cancelTask({ tenant: '', id: taskId, metadata: undefined })
      assert.ok([TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_WORKING].includes(cancelled.status!.state))
    }
    if (p?.$case === 'statusUpdate') states.push(TaskState[p.value.status!.state])
  }
  assert.equal(states.at(-1), 'TASK_STATE_CANCELED', states.join(' '))
  const end = await w.runEnd()
  assert.equal(end.type === 'run.error' ? end.code : end.type, 'cancelled')
  assert.equal((await c.getTask({ tenant: '', id: taskId })).status?.state, TaskState.TASK_STATE_CANCELED)
})

test('bad requests: JSON-RPC errors, the server stays up', async (t) => {
  const s = await server()
  t.after(() => s.close())
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${s.url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers }, body })
  const bad = await post('{not json')
  assert.equal(((await bad.json()) as { error: { code: number } }).error.code, -32700)
  const unknown = (await (await post('{"jsonrpc":"2.0","id":1,"method":"NoSuchMethod","params":{}}')).json()) as {
    id: number
    error: { code: number }
  }
  assert.deepEqual([unknown.id, unknown.error.code], [1, -32601])
  const missing = (await (await post('{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"nope"}}')).json()) as { error: { code: number } }
  assert.equal(missing.error.code, -32001, 'task not found')
  const v2 = (await (await post('{"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":"x"}}', { 'a2a-version': '2.0' })).json()) as {
    error: { code: number; message: string }
  }
  assert.deepEqual(
    [v2.error.code, /version '2\.0' is not supported/.test(v2.error.message)],
    [-32009, true],
    'a client of another version hears which are served',
  )
  assert.equal((await fetch(`${s.url}/a2a/ghost`, { method: 'POST', body: '{}' })).status, 404)
  // A message that would start a task with no text (no parts, a data part, blank text) is invalid params, before any
  // task or session exists: it used to be a failed task, and the SDK printed the executor's stack for each one.
  const sessions = await s.backend.countSessions('anonymous')
  for (const [method, parts] of [
    ['SendMessage', []],
    ['SendStreamingMessage', [{ data: { data: { a: 1 } } }]],
    ['SendMessage', [{ text: '  ' }]],
  ] as const) {
    const r = (await (
      await post(JSON.stringify({ jsonrpc: '2.0', id: 4, method, params: { message: { messageId: 'm-empty', role: 'ROLE_USER', parts } } }))
    ).json()) as { id: number; error?: { code: number; message: string } }
    assert.deepEqual([r.id, r.error?.code], [4, -32602], `${method} ${JSON.stringify(parts)}: ${JSON.stringify(r)}`)
    assert.match(r.error!.message, /needs a text part/)
  }
  assert.equal(await s.backend.countSessions('anonymous'), sessions, 'no session was opened for them')
  const c = await connectA2a({ url: s.url })
  assert.equal(artifactText(asTask(await send(c, message('count 2')))), '1 2')
})

test('push notifications: each update POSTed to the webhook with its credentials, in order; a 503 is retried', async (t) => {
  const s = await startServer({ allowWebhookHosts: ['127.0.0.1'] }) // a local receiver must be allowed (webhook guard)
  t.after(() => s.close())
  const received: Array<{
    auth: string | undefined
    body: { statusUpdate?: { status?: { state?: string } }; artifactUpdate?: unknown; task?: unknown }
  }> = []
  let refused = 0
  const hook = createHttpServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => {
      if (refused++ === 0) return void res.writeHead(503).end() // the first delivery fails once
      received.push({ auth: req.headers.authorization, body: JSON.parse(body) as (typeof received)[number]['body'] })
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r))
  t.after(() => hook.close())
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`
  const c = await connectA2a({ url: s.url })
  const task = asTask(
    await c.sendMessage({
      tenant: '',
      message: message('count 3'),
      configuration: {
        acceptedOutputModes: [],
        historyLength: undefined,
        returnImmediately: false,
        taskPushNotificationConfig: {
          tenant: '',
          id: '',
          taskId: '',
          url,
          token: '',
          authentication: { scheme: 'Bearer', credentials: 'hook-secret' },
        },
      },
      metadata: undefined,
    }),
  )
  assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED)
  await waitFor(() => received.some((r) => r.body.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED'), {
    what: 'the completed update at the webhook',
  })
  assert.ok(received.length >= 3, `updates delivered: ${received.length}`)
  assert.ok(received.every((r) => r.auth === 'Bearer hook-secret'))
  assert.equal(received.at(-1)!.body.statusUpdate?.status?.state, 'TASK_STATE_COMPLETED', 'the last one is the end, in order')
  assert.ok(refused > received.length, 'the refused delivery was retried')
})

test('SubscribeToTask after a dropped stream: the task so far, then the rest live, to its end', async (t) => {
  const s = await server()
  t.after(() => s.close())
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
      if (before.split(' ').length > 3) abort.abort() // the client drops the stream mid-run
    }
  } catch (err) {
    // The aborted stream, and nothing else.
    assert.ok(abort.signal.aborted, `the stream failed before it was dropped: ${String(err)}`)
    assert.equal((err as Error).name, 'AbortError', String(err))
  }
  let snapshot: Task | undefined
  let after = ''
  let last = ''
  for await (const ev of c.resubscribeTask({ tenant: '', id: taskId })) {
    const p = ev.payload
    if (p?.$case === 'task') snapshot = p.value
    if (p?.$case === 'artifactUpdate')
      for (const part of p.value.artifact?.parts ?? []) if (part.content?.$case === 'text') after += part.content.value
    if (p?.$case === 'statusUpdate') last = TaskState[p.value.status!.state]
  }
  assert.ok(snapshot, 'the task first')
  assert.equal(last, 'TASK_STATE_COMPLETED')
  // The snapshot's artifact holds what was streamed before the resubscription; with the live rest, the whole text, once.
  const sofar = snapshot.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''))).join('')
  assert.ok(sofar.startsWith(before.slice(0, 6)), 'what the dropped stream had is in the snapshot')
  const whole = `${sofar}${after}`.trim()
  assert.equal(whole, Array.from({ length: 50 }, (_, i) => i + 1).join(' '))
})

test('auth: the card names the bearer scheme; another principal cannot use a context (session) that is not theirs', async (t) => {
  const users: Record<string, string> = { 'alice-token': 'alice', 'bob-token': 'bob' }
  const s = await startServer({ auth: { authenticate: (_req: unknown, token: string | null) => (token ? (users[token] ?? null) : null) } })
  t.after(() => s.close())
  const card = (await (
    await fetch(`${s.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0', authorization: 'Bearer alice-token' } })
  ).json()) as { securitySchemes: Record<string, unknown> }
  assert.ok(card.securitySchemes.bearer, 'bearer scheme')
  const alice = await connectA2a({ url: s.url, token: 'alice-token' })
  const mine = asTask(await send(alice, message('secret plans')))
  const bob = await connectA2a({ url: s.url, token: 'bob-token' })
  const stolen = await send(bob, message('show me', { contextId: mine.contextId })).then(
    (r) => JSON.stringify(r),
    (e: Error) => e.message,
  )
  assert.match(stolen, /someone else|forbidden|belongs/i)
  assert.doesNotMatch(stolen, /secret plans/)
})
