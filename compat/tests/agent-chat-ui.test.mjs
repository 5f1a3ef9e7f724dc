// Agent Chat UI (github.com/langchain-ai/agent-chat-ui, a Next.js app too heavy to run here) against Parlance's
// LangGraph dialect: the calls it makes, replayed with @langchain/langgraph-sdk's Client in Node the way its code
// makes them, with its documented settings (Deployment URL http://HOST:PORT/langgraph, Assistant / Graph ID
// `demo`, LangSmith API key empty). Read from its source (2026-07, commit fdc87e6): src/providers/Stream.tsx
// (the /info check, useStream's options), Thread.tsx (the thread list), components/thread/index.tsx (submit,
// regenerate), messages/human.tsx (edit), agent-inbox/ (the HITL interrupt and its decisions). useStream turns its
// options into these requests (react/stream.lgp.js): the stream modes are the submit's ['values'] plus those the
// components read (`messages` → messages-tuple) and `onCustomEvent` (custom); history is fetched with limit 10.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { Client } from '@langchain/langgraph-sdk'
import { CLIENTS } from '../lib/clients.mjs'
import { startParlance } from '../lib/parlance.mjs'

let parlance
let apiUrl
/** The client Agent Chat UI makes (src/providers/client.ts): apiKey undefined when the LangSmith key is empty. */
let client

before(async () => {
  parlance = await startParlance()
  apiUrl = `${parlance.url}/langgraph`
  client = new Client({ apiUrl, apiKey: undefined })
})

after(() => parlance?.close())

const ASSISTANT = 'demo'
/** The run options Agent Chat UI's submit ends up sending (components/thread/index.tsx through useStream). */
const STREAM_MODE = ['values', 'messages-tuple', 'custom']

/** Agent Chat UI's new human message: an id of its own and text as a content block. */
const human = (text) => ({ id: randomUUID(), type: 'human', content: [{ type: 'text', text }] })

/** Streams a run as useStream does and returns its parts. */
async function run(threadId, payload) {
  const parts = []
  let created
  for await (const p of client.runs.stream(threadId, ASSISTANT, { streamMode: STREAM_MODE, ...payload, onRunCreated: (m) => (created = m) }))
    parts.push(p)
  assert.ok(created?.run_id, 'the run id from Content-Location (onRunCreated)')
  return parts
}
const lastValues = (parts) => parts.filter((p) => p.event === 'values').at(-1).data
const brief = (messages) => messages.map((m) => `${m.type}: ${typeof m.content === 'string' ? m.content : m.content.map((b) => b.text).join('')}`)

/** A message's metadata as useStream's getMessagesMetadata builds it from the history: the first state it was seen in. */
function firstSeenState(history, messageId) {
  return [...history].reverse().find((s) => s.values.messages?.some((m) => m.id === messageId))
}

/** The thread started as Agent Chat UI starts it: threads.create, then the run with the new human message. */
async function newThreadWith(text) {
  const thread = await client.threads.create({ threadId: undefined, metadata: undefined })
  const parts = await run(thread.thread_id, {
    input: { messages: [human(text)] },
    streamSubgraphs: true,
    streamResumable: true,
    onDisconnect: 'continue',
  })
  return { threadId: thread.thread_id, parts }
}

describe(CLIENTS.agentChatUi.title, () => {
  test('Client replay, settings check: GET {Deployment URL}/info answers 200 with no API key', async () => {
    const res = await fetch(`${apiUrl}/info`)
    assert.equal(res.status, 200)
  })

  test('Client replay, chat: threads.create, a run of the new message in values, messages-tuple and custom, the history after it', async () => {
    const { threadId, parts } = await newThreadWith('hello agent chat')
    assert.equal(parts[0].event, 'metadata')
    assert.ok(
      parts.some((p) => p.event === 'messages'),
      'messages-tuple chunks stream the reply',
    )
    assert.deepEqual(brief(lastValues(parts).messages), ['human: hello agent chat', 'ai: Echo: hello agent chat'])
    // useStream with fetchStateHistory: true reads the history (limit 10) after the run, newest first.
    const history = await client.threads.getHistory(threadId, { limit: 10 })
    assert.deepEqual(brief(history[0].values.messages), ['human: hello agent chat', 'ai: Echo: hello agent chat'])
    assert.ok(history[0].checkpoint.checkpoint_id)
  })

  test('Client replay, thread list: threads.search by metadata graph_id (the assistant id is not a UUID), limit 100; first message shown', async () => {
    const { threadId } = await newThreadWith('list me')
    const threads = await client.threads.search({ metadata: { graph_id: ASSISTANT }, limit: 100 })
    const mine = threads.find((t) => t.thread_id === threadId)
    assert.ok(mine, 'the new thread is listed')
    // history/index.tsx shows getContentString(values.messages[0].content).
    assert.deepEqual(brief(mine.values.messages.slice(0, 1)), ['human: list me'])
    assert.deepEqual(await client.threads.search({ metadata: { graph_id: 'another-graph' }, limit: 100 }), [])
  })

  test('Client replay, interrupt: the HITL request Agent Chat UI renders (action_requests, review_configs, allowed_decisions); approve resumes', async () => {
    const { threadId, parts } = await newThreadWith('delete the notes')
    const [interrupt] = lastValues(parts).__interrupt__
    // agent-inbox/components/thread-actions-view.tsx isValidHitlRequest, and the matching review config.
    const { action_requests: actions, review_configs: configs } = interrupt.value
    assert.equal(actions[0].name, 'delete_file')
    assert.deepEqual(actions[0].args, { path: 'notes/demo.txt' })
    assert.equal(typeof actions[0].description, 'string')
    assert.deepEqual(configs, [{ action_name: 'delete_file', allowed_decisions: ['approve', 'reject'] }])
    // The thread reads as interrupted in the list and in its state (useStream's interrupt after a reload).
    assert.equal((await client.threads.get(threadId)).status, 'interrupted')
    assert.deepEqual((await client.threads.getHistory(threadId, { limit: 10 }))[0].tasks[0].interrupts[0].value, interrupt.value)
    // use-interrupted-actions.tsx resumeRun: submit({}, {command: {resume: {decisions}}}), no other option.
    const resumed = await run(threadId, { input: {}, command: { resume: { decisions: [{ type: 'approve' }] } }, onDisconnect: 'cancel' })
    assert.deepEqual(brief(lastValues(resumed).messages).slice(-1), ['ai: Done: deleted notes/demo.txt.'])
    assert.equal((await client.threads.get(threadId)).status, 'idle')
  })

  test('Client replay, interrupt: reject with the reason Agent Chat UI requires', async () => {
    const { threadId } = await newThreadWith('delete the notes')
    const resumed = await run(threadId, {
      input: {},
      command: { resume: { decisions: [{ type: 'reject', message: 'keep it' }] } },
      onDisconnect: 'cancel',
    })
    assert.deepEqual(brief(lastValues(resumed).messages).slice(-1), ['ai: Not approved, so notes/demo.txt was not deleted. (keep it)'])
  })

  test('Client replay, edit a message: a new message from the checkpoint before it (firstSeenState.parent_checkpoint) forks the thread', async () => {
    const { threadId } = await newThreadWith('first')
    await run(threadId, { input: { messages: [human('second')] }, streamSubgraphs: true, streamResumable: true, onDisconnect: 'continue' })
    const history = await client.threads.getHistory(threadId, { limit: 10 })
    const second = history[0].values.messages.find((m) => m.type === 'human' && m.content === 'second')
    const parent = firstSeenState(history, second.id).parent_checkpoint
    assert.ok(parent?.checkpoint_id)
    // messages/human.tsx handleSubmitEdit: the edited text as a plain string, from that checkpoint.
    const parts = await run(threadId, {
      input: { messages: [{ type: 'human', content: 'second, edited' }] },
      checkpoint: parent,
      streamSubgraphs: true,
      streamResumable: true,
      onDisconnect: 'continue',
    })
    assert.deepEqual(brief(lastValues(parts).messages), ['human: first', 'ai: Echo: first', 'human: second, edited', 'ai: Echo: second, edited'])
  })

  test('Client replay, regenerate: a run with no input from the checkpoint before an answer answers that turn again', async () => {
    const { threadId } = await newThreadWith('again please')
    const history = await client.threads.getHistory(threadId, { limit: 10 })
    const answer = history[0].values.messages.at(-1)
    const parent = firstSeenState(history, answer.id).parent_checkpoint
    // components/thread/index.tsx handleRegenerate: submit(undefined, {checkpoint, …}).
    const parts = await run(threadId, {
      input: undefined,
      checkpoint: parent,
      streamSubgraphs: true,
      streamResumable: true,
      onDisconnect: 'continue',
    })
    const messages = lastValues(parts).messages
    assert.deepEqual(brief(messages), ['human: again please', 'ai: Echo: again please'])
    assert.notEqual(messages[1].id, answer.id, 'a new answer')
  })
})
