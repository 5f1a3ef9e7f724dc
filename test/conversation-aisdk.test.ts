import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import {
  AbstractChat,
  DefaultChatTransport,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  type DataUIPart,
  type UIDataTypes,
  type UIMessage,
} from 'ai'
import type { StoredEvent } from '../src/index.js'
import { gatedAgent } from './conversation-support.js'
import { startServer, type TestServer } from './harness.js'

// Conversation control over the AI SDK UI message stream (issue 19), through the `ai` package's own chat machinery
// (`AbstractChat` — what `useChat` wraps — over `DefaultChatTransport`): body onBusy, a queued message's own
// response, 409 busy, rollback, `regenerate()`, and `sendMessage({ text, messageId })` editing an earlier message.

/** The chat state `@ai-sdk/react`'s `Chat` keeps in React, kept in a plain object (what useChat does, minus React). */
class PlainState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready'
  error: Error | undefined = undefined
  constructor(public messages: UIMessage[] = []) {}
  pushMessage = (m: UIMessage) => void (this.messages = this.messages.concat(m))
  popMessage = () => void (this.messages = this.messages.slice(0, -1))
  replaceMessage = (i: number, m: UIMessage) => void (this.messages = [...this.messages.slice(0, i), this.snapshot(m), ...this.messages.slice(i + 1)])
  snapshot = <T>(thing: T): T => structuredClone(thing)
}

/** `useChat` without React. */
class Chat extends AbstractChat<UIMessage> {
  constructor({ messages, ...init }: ChatInit<UIMessage>) {
    super({ ...init, state: new PlainState(messages) })
  }
}

type Data = DataUIPart<UIDataTypes>

/** A chat on `s` (one browser tab): its data parts, and the HTTP status of each response its transport got. */
function tab(s: TestServer, id: string, opts: { onBusy?: string; messages?: UIMessage[] } = {}) {
  const data: Data[] = []
  const statuses: number[] = []
  const waiters: Array<{ pred: () => boolean; resolve: () => void }> = []
  const transport = new DefaultChatTransport<UIMessage>({
    api: `${s.url}/api/chat`,
    ...(opts.onBusy ? { body: { onBusy: opts.onBusy } } : {}),
    fetch: async (input, init) => {
      const res = await fetch(input, init)
      statuses.push(res.status)
      return res
    },
  })
  const chat = new Chat({
    id,
    transport,
    ...(opts.messages ? { messages: structuredClone(opts.messages) } : {}),
    onData: (part) => {
      data.push(part)
      for (const w of waiters.filter((x) => x.pred())) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve()
      }
    },
  })
  const until = (pred: () => boolean) => new Promise<void>((resolve) => (pred() ? resolve() : waiters.push({ pred, resolve })))
  return { chat, data, statuses, until, of: (type: string) => data.filter((d) => d.type === type).map((d) => d.data as Record<string, unknown>) }
}

const gated = () => gatedAgent()

const textOf = (m: UIMessage | undefined) => (m?.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')
const users = (h: string[] | undefined) => (h ?? []).filter((x) => x.startsWith('u:'))
const log = (s: TestServer, id: string): Promise<StoredEvent[]> => s.log(id)

test('enqueue: two messages sent in the same tick during a run each get a response streaming their own run, in queue order', async (t) => {
  const g = gated()
  const s = await startServer({ agents: [g.agent] })
  t.after(() => s.close())
  const id = randomUUID()
  const a = tab(s, id)
  const first = a.chat.sendMessage({ text: 'one' })
  await g.started(1)
  const b = tab(s, id, { onBusy: 'enqueue', messages: a.chat.messages })
  const c = tab(s, id, { onBusy: 'enqueue', messages: a.chat.messages })
  const second = b.chat.sendMessage({ text: 'two' })
  const third = c.chat.sendMessage({ text: 'three' })
  // The running response tells its client about both queued messages; the first run goes on.
  await a.until(() => a.of('data-message-queued').length === 2)
  const queued = a.of('data-message-queued').map((d) => String(d.content))
  assert.deepEqual([...queued].sort(), ['three', 'two'])
  for (let i = 0; i < 3; i++) g.release()
  await Promise.all([first, second, third])
  for (const [x, want] of [
    [a, 'one'],
    [b, 'two'],
    [c, 'three'],
  ] as const) {
    assert.equal(x.chat.status, 'ready', `${want}: ${x.chat.error?.message ?? ''}`)
    assert.equal(textOf(x.chat.lastMessage), `answer to ${want}`, 'each response streams its own run')
    assert.deepEqual(x.statuses, [200])
  }
  assert.deepEqual(users(g.seen[1]), ['u:one', `u:${queued[0]}`])
  assert.deepEqual(users(g.seen[2]), ['u:one', `u:${queued[0]}`, `u:${queued[1]}`])
})

test('reject: a message during a run is answered 409 busy (JSON error) and the first stream is intact, exactly once; a bad onBusy is a 400 naming it', async (t) => {
  const g = gated()
  const s = await startServer({ agents: [g.agent] })
  t.after(() => s.close())
  const id = randomUUID()
  const a = tab(s, id)
  const first = a.chat.sendMessage({ text: 'one' })
  await g.started(1)
  const b = tab(s, id, { onBusy: 'reject', messages: a.chat.messages })
  await b.chat.sendMessage({ text: 'two' })
  assert.deepEqual(b.statuses, [409])
  assert.equal(b.chat.status, 'error')
  assert.equal((JSON.parse(b.chat.error!.message) as { error: { code: string } }).error.code, 'busy')
  g.release()
  await first
  assert.equal(a.chat.status, 'ready')
  assert.deepEqual(
    a.chat.messages.map((m) => [m.role, textOf(m)]),
    [
      ['user', 'one'],
      ['assistant', 'answer to one'],
    ],
  )
  const stored = await log(s, id)
  assert.deepEqual(
    stored.filter((e) => e.type === 'message.user' || e.type === 'run.started' || e.type === 'text.end').map((e) => e.type),
    ['message.user', 'run.started', 'text.end'],
    'nothing of the refused message was recorded',
  )
  // Per message, through sendMessage's own body option.
  const c = tab(s, id, { messages: a.chat.messages })
  await c.chat.sendMessage({ text: 'x' }, { body: { onBusy: 'later' } })
  assert.deepEqual(c.statuses, [400])
  assert.equal((JSON.parse(c.chat.error!.message) as { error: { field: string } }).error.field, 'onBusy')
})

for (const policy of ['rollback', 'interrupt'] as const) {
  test(`${policy}: the active response ends with an interrupted error and the next run ${policy === 'rollback' ? 'no longer sees' : 'still sees'} the stopped turn`, async (t) => {
    const g = gated()
    const s = await startServer({ agents: [g.agent] })
    t.after(() => s.close())
    const id = randomUUID()
    const a = tab(s, id)
    g.release()
    await a.chat.sendMessage({ text: 'one' })
    const second = a.chat.sendMessage({ text: 'two' })
    await g.started(2)
    const b = tab(s, id, { messages: a.chat.messages })
    const third = b.chat.sendMessage({ text: 'three' }, { body: { onBusy: policy } })
    await second
    assert.equal(a.chat.status, 'error')
    assert.match(a.chat.error!.message, /^interrupted: /)
    await g.started(3)
    g.release()
    await third
    assert.equal(textOf(b.chat.lastMessage), 'answer to three')
    const expected =
      policy === 'rollback' ? ['u:one', 'a:answer to one', 'u:three'] : ['u:one', 'a:answer to one', 'u:two', 'a:answer to two', 'u:three']
    assert.deepEqual(g.seen[2], expected)
    assert.deepEqual(
      b.of('data-history-rewound').map((d) => d.reason),
      policy === 'rollback' ? ['rollback'] : [],
    )
  })
}

test('regenerate() answers the last user message again: the agent sees it once and no old answer', async (t) => {
  const g = gated()
  const s = await startServer({ agents: [g.agent] })
  t.after(() => s.close())
  for (let i = 0; i < 3; i++) g.release()
  const id = randomUUID()
  const a = tab(s, id)
  await a.chat.sendMessage({ text: 'one' })
  await a.chat.sendMessage({ text: 'two' })
  const u2 = a.chat.messages[2]!.id
  await a.chat.regenerate()
  assert.equal(a.chat.status, 'ready', a.chat.error?.message)
  assert.deepEqual(
    a.chat.messages.map((m) => textOf(m)),
    ['one', 'answer to one', 'two', 'answer to two'],
  )
  assert.deepEqual(g.seen[2], ['u:one', 'a:answer to one', 'u:two'])
  assert.deepEqual(a.of('data-history-rewound'), [{ toMessageId: u2, reason: 'regenerate' }])
  const stored = await log(s, id)
  assert.equal(stored.filter((e) => e.type === 'message.user').length, 2, 'no second copy of the user message')
})

test('editing an earlier message (sendMessage({ text, messageId })) forks the old branch and continues the chat from before it', async (t) => {
  const g = gated()
  const s = await startServer({ agents: [g.agent] })
  t.after(() => s.close())
  for (let i = 0; i < 4; i++) g.release()
  const id = randomUUID()
  const a = tab(s, id)
  await a.chat.sendMessage({ text: 'one' })
  await a.chat.sendMessage({ text: 'two' })
  await a.chat.sendMessage({ text: 'three' })
  const edited = a.chat.messages[2]!.id
  await a.chat.sendMessage({ text: 'TWO', messageId: edited })
  assert.equal(a.chat.status, 'ready', a.chat.error?.message)
  assert.deepEqual(
    a.chat.messages.map((m) => textOf(m)),
    ['one', 'answer to one', 'TWO', 'answer to TWO'],
  )
  assert.deepEqual(g.seen[3], ['u:one', 'a:answer to one', 'u:TWO'], 'the agent sees the edited history')
  const [rewound] = a.of('data-history-rewound')
  assert.equal(rewound?.reason, 'edit')
  const branch = String(rewound?.branch)
  const messages = (await s.stored(id))?.messages ?? []
  assert.deepEqual(
    messages.map((m) => m.content),
    ['one', 'answer to one', 'TWO', 'answer to TWO'],
  )
  assert.equal(messages[2]!.id, edited, 'the edited message keeps its id')
  // The old branch lives on as a session of its own, listed by the inspector API.
  const res = await fetch(`${s.url}/inspector/api/sessions/${encodeURIComponent(branch)}/events?limit=1000`)
  assert.equal(res.status, 200)
  const body = (await res.json()) as { events: Array<{ type: string; content?: string }> }
  assert.deepEqual(
    body.events.filter((e) => e.type === 'message.user').map((e) => e.content),
    ['one', 'two', 'three'],
  )
})

test('an edit refused as busy (reject, during a run) forks nothing', async (t) => {
  const g = gated()
  const s = await startServer({ agents: [g.agent], onBusy: 'reject' })
  t.after(() => s.close())
  g.release()
  const id = randomUUID()
  const a = tab(s, id)
  await a.chat.sendMessage({ text: 'one' })
  void a.chat.sendMessage({ text: 'two' })
  await g.started(2)
  await s.flush()
  const before = (await s.backend.listSessions(100)).length
  const b = tab(s, id, { messages: a.chat.messages.slice(0, 2) })
  await b.chat.sendMessage({ text: 'ONE', messageId: a.chat.messages[0]!.id })
  assert.deepEqual(b.statuses, [409])
  await s.flush()
  assert.equal((await s.backend.listSessions(100)).length, before, 'no fork was made')
  g.release()
})
