import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { HttpAgent } from '@ag-ui/client'
import { EventSchema } from '@ag-ui/core/schemas'
import type { StoredEvent } from '../src/index.js'
import { gatedAgent } from './conversation-support.js'
import { startServer, type TestServer } from './harness.js'
import { within } from './support/wait.js'

// Conversation control over AG-UI (issue 19), through the official HttpAgent only: forwardedProps.onBusy, a
// queued message's own response, 409 busy, rollback, regenerate by dropping the answer, and a diverging list forking.

type Event = Record<string, unknown>

const gated = () => gatedAgent()

/** What the HttpAgent throws for an HTTP error answer (`runHttpRequest`). */
type HttpFailure = { status?: number; payload?: { error?: { code?: string; field?: string; details?: { activeRunId?: string } } } }

/**
 * One run through the HttpAgent; `until` waits for an event. `done` resolves with the events once the run
 * settled, each validated with @ag-ui/core there (the client only logs what a subscriber throws, so nothing is
 * asserted inside `onEvent`); it rejects with the client's error for an HTTP error answer (which the HttpAgent
 * also logs).
 */
function go(agent: HttpAgent, text: string | null, forwardedProps?: Record<string, unknown>) {
  if (text !== null) agent.addMessage({ id: randomUUID(), role: 'user', content: text })
  const events: Event[] = []
  const waiters: Array<{ pred: (e: Event) => boolean; resolve: (e: Event) => void }> = []
  const done = agent
    .runAgent(forwardedProps ? { forwardedProps } : {}, {
      onEvent({ event }) {
        events.push(event)
        for (const w of waiters.filter((x) => x.pred(event))) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve(event)
        }
      },
    })
    .then(() => {
      for (const event of events) assert.ok(EventSchema.safeParse(event).success, `event fails @ag-ui/core's schema: ${JSON.stringify(event)}`)
      return events
    })
  const until = (pred: (e: Event) => boolean) =>
    within(
      new Promise<Event>((resolve) => (events.some(pred) ? resolve(events.find(pred)!) : waiters.push({ pred, resolve }))),
      15_000,
      `an AG-UI event matching ${String(pred)}`,
    )
  return { events, done, until }
}

const text = (events: Event[]) =>
  events
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => String(e.delta))
    .join('')
const customs = (events: Event[], name: string) =>
  events.filter((e) => e.type === 'CUSTOM' && e.name === name).map((e) => e.value as Record<string, unknown>)
const count = (events: Event[], type: string) => events.filter((e) => e.type === type).length
/** Another tab of the same UI: the same thread and the messages the first one holds now. */
const tab = (s: TestServer, from: HttpAgent) =>
  new HttpAgent({ url: `${s.url}/agui`, threadId: from.threadId, initialMessages: structuredClone(from.messages) })
const log = (s: TestServer, id: string): Promise<StoredEvent[]> => s.log(id)
const users = (h: string[] | undefined) => (h ?? []).filter((x) => x.startsWith('u:'))

test('enqueue: two messages sent in the same tick during a run each get a response streaming their own run, in queue order', async (t) => {
  const g = gated()
  const s = await startServer({ agents: [g.agent] })
  t.after(() => s.close())
  const a = new HttpAgent({ url: `${s.url}/agui`, threadId: randomUUID() })
  const first = go(a, 'one')
  await first.until((e) => e.type === 'TEXT_MESSAGE_END')
  await g.started(1)
  const second = go(tab(s, a), 'two', { onBusy: 'enqueue' })
  const third = go(tab(s, a), 'three', { onBusy: 'enqueue' })
  // Both are queued (the running response says so), and the first run is untouched.
  await first.until(() => customs(first.events, 'parlance.message_queued').length === 2)
  const queued = customs(first.events, 'parlance.message_queued').map((v) => String(v.content))
  assert.deepEqual([...queued].sort(), ['three', 'two'])
  for (let i = 0; i < 3; i++) g.release()
  const [one, two, three] = await Promise.all([first.done, second.done, third.done])
  assert.equal(text(one), 'answer to one')
  assert.equal(text(two), 'answer to two', 'the second response streams its own run')
  assert.equal(text(three), 'answer to three')
  for (const events of [one, two, three]) {
    assert.deepEqual([count(events, 'RUN_STARTED'), count(events, 'RUN_FINISHED'), count(events, 'RUN_ERROR')], [1, 1, 0])
    assert.equal(events.at(-1)!.type, 'RUN_FINISHED')
  }
  // Runs went in queue order, each after the one before: the later one sees the earlier one's turn.
  assert.deepEqual(users(g.seen[1]), ['u:one', `u:${queued[0]}`])
  assert.deepEqual(users(g.seen[2]), ['u:one', `u:${queued[0]}`, `u:${queued[1]}`])
  assert.ok(g.seen[2]!.includes(`a:answer to ${queued[0]}`))
})

test('reject: a message during a run is answered 409 busy in AG-UI error JSON; the first stream is intact, exactly once', async (t) => {
  const g = gated()
  const s = await startServer({ agents: [g.agent] })
  t.after(() => s.close())
  const a = new HttpAgent({ url: `${s.url}/agui`, threadId: randomUUID() })
  const first = go(a, 'one')
  await g.started(1)
  const err = (await go(tab(s, a), 'two', { onBusy: 'reject' }).done.then(
    () => assert.fail('a busy thread accepted the message'),
    (e: unknown) => e,
  )) as HttpFailure
  assert.equal(err.status, 409)
  assert.equal(err.payload?.error?.code, 'busy')
  assert.equal(err.payload?.error?.details?.activeRunId, (await s.stored(a.threadId))?.activeRunId)
  g.release()
  const events = await first.done
  assert.equal(text(events), 'answer to one')
  assert.deepEqual([count(events, 'RUN_STARTED'), count(events, 'TEXT_MESSAGE_START'), count(events, 'RUN_FINISHED')], [1, 1, 1])
  const stored = await log(s, a.threadId)
  assert.deepEqual(
    stored.filter((e) => e.type === 'message.user').map((e) => (e as { content?: string }).content),
    ['one'],
    'nothing of the refused message was recorded',
  )
  // An unknown policy is refused before anything happens, naming the field.
  const bad = (await go(tab(s, a), 'x', { onBusy: 'later' }).done.catch((e: unknown) => e)) as HttpFailure
  assert.equal(bad.status, 400)
  assert.equal(bad.payload?.error?.field, 'forwardedProps.onBusy')
})

for (const policy of ['rollback', 'interrupt'] as const) {
  test(`${policy}: the active run ends interrupted and the next run ${policy === 'rollback' ? 'no longer sees' : 'still sees'} the stopped turn`, async (t) => {
    const g = gated()
    const s = await startServer({ agents: [g.agent] })
    t.after(() => s.close())
    const a = new HttpAgent({ url: `${s.url}/agui`, threadId: randomUUID() })
    const first = go(a, 'one')
    g.release()
    await first.done
    const second = go(a, 'two')
    await second.until((e) => e.type === 'TEXT_MESSAGE_END')
    await g.started(2)
    const third = go(tab(s, a), 'three', { onBusy: policy })
    const stopped = await second.done
    assert.equal(stopped.at(-1)!.type, 'RUN_ERROR')
    assert.equal(stopped.at(-1)!.code, 'interrupted')
    await g.started(3)
    g.release()
    const events = await third.done
    assert.equal(text(events), 'answer to three')
    const expected =
      policy === 'rollback' ? ['u:one', 'a:answer to one', 'u:three'] : ['u:one', 'a:answer to one', 'u:two', 'a:answer to two', 'u:three']
    assert.deepEqual(g.seen[2], expected)
    const rewound = customs(events, 'parlance.history_rewound')
    assert.deepEqual(
      rewound.map((v) => v.reason),
      policy === 'rollback' ? ['rollback'] : [],
    )
  })
}

test('regenerate: a list that ends at the last user turn without its answer answers it again; nothing is forked', async (t) => {
  const g = gated()
  const s = await startServer({ agents: [g.agent] })
  t.after(() => s.close())
  g.release()
  g.release()
  const a = new HttpAgent({ url: `${s.url}/agui`, threadId: randomUUID() })
  await go(a, 'one').done
  await go(a, 'two').done
  // The UI drops the last answer and runs again (what a "regenerate" button does with an AG-UI client).
  a.setMessages(a.messages.slice(0, -1))
  g.release()
  const events = await go(a, null).done
  assert.equal(text(events), 'answer to two')
  assert.deepEqual(g.seen[2], ['u:one', 'a:answer to one', 'u:two'], 'the agent sees the turn once and not the old answer')
  assert.deepEqual(customs(events, 'parlance.history_rewound'), [{ toMessageId: a.messages[2]!.id, reason: 'regenerate' }])
  const stored = await log(s, a.threadId)
  assert.equal(stored.filter((e) => e.type === 'message.user').length, 2, 'no second copy of the user message')
  assert.equal((await s.stored(a.threadId))?.messages.length, 4)
})

test('a diverging message list forks the old branch and continues the thread from the last message both agree on', async (t) => {
  const g = gated()
  const s = await startServer({ agents: [g.agent] })
  t.after(() => s.close())
  for (let i = 0; i < 4; i++) g.release()
  const a = new HttpAgent({ url: `${s.url}/agui`, threadId: randomUUID() })
  await go(a, 'one').done
  await go(a, 'two').done
  await go(a, 'three').done
  // The user edits "two": the UI cuts its list there and sends the new text as a new message.
  a.setMessages(a.messages.slice(0, 2))
  const events = await go(a, 'TWO').done
  assert.equal(text(events), 'answer to TWO')
  assert.deepEqual(g.seen[3], ['u:one', 'a:answer to one', 'u:TWO'])
  const [rewound] = customs(events, 'parlance.history_rewound')
  assert.equal(rewound?.reason, 'edit')
  assert.equal(rewound?.toMessageId, a.messages[1]!.id)
  const branch = String(rewound?.branch)
  // The thread goes on under its own id; the old branch lives on as the fork.
  assert.deepEqual(
    (await s.stored(a.threadId))?.messages.map((m) => m.content),
    ['one', 'answer to one', 'TWO', 'answer to TWO'],
  )
  const fork = await s.stored(branch)
  assert.equal(fork?.forkedFrom?.sessionId, a.threadId)
  assert.deepEqual(
    fork?.messages.map((m) => m.content),
    ['one', 'answer to one', 'two', 'answer to two', 'three', 'answer to three'],
  )
  assert.equal((await log(s, a.threadId)).filter((e) => e.type === 'messages.snapshot').length, 0, 'nothing was overwritten')
  // The inspector lists the fork's events too.
  const res = await fetch(`${s.url}/inspector/api/sessions/${encodeURIComponent(branch)}/events`)
  assert.equal(res.status, 200)
})
