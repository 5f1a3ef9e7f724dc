// Issue 37, item 4, the AI SDK route: a request that resends the chat's last user message as it is (a client
// retry after a dropped connection) gets the run answering that message, replayed from its start (live to its end
// when still running), instead of an empty response or a second run; `regenerate-message` still answers again.
// Driven by the `ai` package's own transport and stream reader.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai'
import { startServer, type TestServer } from './harness.js'

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })
const textOf = (m: UIMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')

/** One request through the `ai` transport; each assistant message state read, `onUpdate` called per state. */
async function send(
  s: TestServer,
  chatId: string,
  messages: UIMessage[],
  trigger: 'submit-message' | 'regenerate-message' = 'submit-message',
  onUpdate?: (m: UIMessage) => void,
): Promise<UIMessage> {
  const transport = new DefaultChatTransport({ api: `${s.url}/api/chat` })
  const stream = await transport.sendMessages({ chatId, trigger, messageId: undefined, messages, abortSignal: undefined })
  let last: UIMessage | undefined
  for await (const m of readUIMessageStream({ stream, terminateOnError: false })) {
    last = m
    onUpdate?.(m)
  }
  assert.ok(last, 'an assistant message')
  return last
}

async function runs(s: TestServer, chatId: string): Promise<number> {
  return (await s.server.sessions.store.read(chatId, 0, 10_000)).filter((e) => e.type === 'run.started').length
}

test('after the end: the same message again replays its answer; no second run', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const chatId = randomUUID()
  const messages = [user(randomUUID(), 'count 4')]
  const first = await send(s, chatId, messages)
  assert.equal(textOf(first).trim(), '1 2 3 4')
  const retry = await send(s, chatId, messages)
  assert.deepEqual(retry, first, 'the same assistant message (id and parts)')
  assert.equal(await runs(s, chatId), 1)
  // regenerate-message is the client asking for a new answer: it runs again, and a retry of that gets the new run.
  const again = await send(s, chatId, messages, 'regenerate-message')
  assert.equal(textOf(again).trim(), '1 2 3 4')
  assert.equal(await runs(s, chatId), 2)
  const retryAgain = await send(s, chatId, messages)
  assert.deepEqual(retryAgain, again)
  assert.equal(await runs(s, chatId), 2)
})

test('mid-run: the same message again attaches to the running answer from its start, to its end', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const chatId = randomUUID()
  const messages = [user(randomUUID(), 'slow please')]
  let retried: Promise<UIMessage> | null = null
  const first = await send(s, chatId, messages, 'submit-message', (m) => {
    if (retried === null && textOf(m).includes('3 ')) retried = send(s, chatId, messages)
  })
  assert.ok(retried, 'retried mid-run')
  const second = await (retried as Promise<UIMessage>)
  assert.equal(textOf(first).trim().split(' ').length, 50)
  assert.deepEqual(second, first)
  assert.equal(await runs(s, chatId), 1)
})
