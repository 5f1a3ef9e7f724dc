// Auth on the HTTP dialects that had no test of it (issue 40): the AI SDK chat endpoint and its resume stream
// (through the `ai` package's own DefaultChatTransport) answer 401 without credentials and 403 to another user's
// chat, and A2A (through the official @a2a-js/sdk client) answers 401 to a client without valid credentials.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { connectA2a } from '../src/client/index.js'
import { startServer } from './harness.js'
import { a2aMessage } from './support/a2a.js'

const tokens = (): Record<string, string> => ({ 'alice-token': 'alice', 'bob-token': 'bob' })
const authFrom = (users: Record<string, string>) => ({
  authenticate: (_req: unknown, token: string | null) => (token ? (users[token] ?? null) : null),
})

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })
const transport = (url: string, token?: string) =>
  new DefaultChatTransport({ api: `${url}/api/chat`, headers: token ? { authorization: `Bearer ${token}` } : {} })
const submit = (t: DefaultChatTransport<UIMessage>, chatId: string, text: string, abortSignal?: AbortSignal) =>
  t.sendMessages({ chatId, trigger: 'submit-message', messageId: undefined, messages: [user(randomUUID(), text)], abortSignal })

/** assert.rejects predicate: the transport's error carries our JSON error body with this code. */
const refusedWith = (code: string) => (e: unknown) => {
  assert.ok(e instanceof Error, String(e))
  assert.equal((JSON.parse(e.message) as { error: { code: string } }).error.code, code, e.message)
  return true
}

test('AI SDK: POST /api/chat and GET /api/chat/:id/stream answer 401 without a valid token, through the ai transport', async (t) => {
  const s = await startServer({ auth: authFrom(tokens()) })
  t.after(() => s.close())
  await assert.rejects(submit(transport(s.url), 'chat-anon', 'hello'), refusedWith('unauthorized'))
  await assert.rejects(submit(transport(s.url, 'forged'), 'chat-anon', 'hello'), refusedWith('unauthorized'))
  await assert.rejects(transport(s.url).reconnectToStream({ chatId: 'chat-anon' }), refusedWith('unauthorized'))
  // The status and the challenge, as a plain HTTP client sees them; nothing was created for the refused requests.
  const res = await fetch(`${s.url}/api/chat/chat-anon/stream`)
  assert.equal(res.status, 401)
  assert.equal(res.headers.get('www-authenticate'), 'Bearer')
  assert.deepEqual(await s.server.sessions.store.read('chat-anon', 0, 100), [], 'nothing was recorded for the refused POSTs')
  // With the token, the same request goes through.
  const stream = await submit(transport(s.url, 'alice-token'), 'chat-anon', 'hello')
  let text = ''
  for await (const chunk of stream) if (chunk.type === 'text-delta') text += chunk.delta
  assert.equal(text, 'Echo: hello')
})

test("AI SDK: bob's POST and resume on alice's chat are 403, while her run streams on untouched", async (t) => {
  const s = await startServer({ auth: authFrom(tokens()) })
  t.after(() => s.close())
  const ac = new AbortController()
  t.after(() => ac.abort())
  const mine = await submit(transport(s.url, 'alice-token'), 'chat-alice', 'slow', ac.signal)
  const reader = mine.getReader()
  const firstText = async () => {
    for (;;) {
      const { value, done } = await reader.read()
      assert.ok(!done, 'the stream ended before any text')
      if (value.type === 'text-delta') return value.delta
    }
  }
  assert.equal(await firstText(), '1 ')
  const bob = transport(s.url, 'bob-token')
  await assert.rejects(submit(bob, 'chat-alice', 'show me'), refusedWith('forbidden'))
  await assert.rejects(bob.reconnectToStream({ chatId: 'chat-alice' }), refusedWith('forbidden'))
  const res = await fetch(`${s.url}/api/chat/chat-alice/stream`, { headers: { authorization: 'Bearer bob-token' } })
  assert.equal(res.status, 403)
  assert.doesNotMatch(await res.text(), /slow|1 /, 'nothing of her chat in the refusal')
  // Alice's own resume still attaches to the run bob could not touch, and her stream goes on.
  const again = await transport(s.url, 'alice-token').reconnectToStream({ chatId: 'chat-alice' })
  assert.ok(again, 'her active stream is there to resume')
  await again.cancel()
  assert.equal(await firstText(), '2 ')
  const stored = await s.server.sessions.store.read('chat-alice', 0, 10_000)
  assert.deepEqual(
    stored.filter((e) => e.type === 'message.user').map((e) => (e as { content?: string }).content),
    ['slow'],
    "bob's message was not recorded",
  )
})

const message = a2aMessage

test('A2A: the SDK client without a valid token is refused with 401 (at the card, and at message/send once the token is revoked)', async (t) => {
  const users = tokens()
  const s = await startServer({ auth: authFrom(users) })
  t.after(() => s.close())
  await assert.rejects(connectA2a({ url: s.url }), /agent-card\.json: 401/)
  await assert.rejects(connectA2a({ url: s.url, token: 'forged' }), /agent-card\.json: 401/)
  const alice = await connectA2a({ url: s.url, token: 'alice-token' })
  const ok = await alice.sendMessage({ tenant: '', message: message('hello'), configuration: undefined, metadata: undefined })
  assert.ok(ok && 'status' in ok, 'with the token, message/send answers a task')
  // The token is revoked while the client holds it: its next call is a 401, not a task.
  delete users['alice-token']
  await assert.rejects(
    alice.sendMessage({ tenant: '', message: message('hello again'), configuration: undefined, metadata: undefined }),
    (e: unknown) => {
      assert.ok(e instanceof Error, String(e))
      assert.match(e.message, /401/)
      return true
    },
  )
  const raw = await fetch(`${s.url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: '{}' })
  assert.equal(raw.status, 401)
  assert.equal(raw.headers.get('www-authenticate'), 'Bearer')
})
