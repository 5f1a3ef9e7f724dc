// A run cut off by kill -9: after the restart, each HTTP dialect's re-attach (no seq) shows the stored part and
// the interrupted end, never "nothing to resume" (issue 46).
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { HttpAgent, type BaseEvent, type RunAgentInput } from '@ag-ui/client'
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai'
import { HumaClient, MyAgentClient } from '../src/client/index.js'
import { spawnServe } from './support/serve-process.js'
import { startServer } from './harness.js'
import { assertSchema } from './agui-support.js'

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })

/** Reads a whole UI message stream (the `ai` package's chunks). */
async function chunksOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const out: UIMessageChunk[] = []
  for await (const c of stream) out.push(c)
  return out
}

/** Starts `slow` (50 numbered tokens, paced) in a spawned `parlance serve`, reads a few, and kill -9s the server. */
async function crashMidStream(t: { after(fn: () => unknown): void }, dataDir: string, chatId: string): Promise<string> {
  const served = await spawnServe(t, ['--store', 'sqlite', '--data', dataDir])
  const ac = new AbortController()
  const transport = new DefaultChatTransport({ api: `${served.url}/api/chat` })
  const stream = await transport.sendMessages({
    chatId,
    trigger: 'submit-message',
    messageId: undefined,
    messages: [user('u1', 'slow')],
    abortSignal: ac.signal,
  })
  const reader = stream.getReader()
  let seen = ''
  while (seen.split(' ').length < 4) {
    const { value } = await reader.read()
    if (value?.type === 'text-delta') seen += value.delta
  }
  await served.kill()
  ac.abort()
  return seen
}

test('useChat after kill -9: GET /api/chat/:id/stream streams the stored part, then an error part and finish (not 204)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parlance-crash-'))
  t.after(() => rmSync(dataDir, { recursive: true, force: true }))
  const chatId = `chat-${randomUUID()}`
  const seen = await crashMidStream(t, dataDir, chatId)

  const second = await startServer({ store: 'sqlite', dataDir })
  t.after(() => second.close())
  const transport = new DefaultChatTransport({ api: `${second.url}/api/chat` })
  const resumed = await transport.reconnectToStream({ chatId })
  assert.ok(resumed, 'a cut-off run is something to resume, not a 204')
  const chunks = await chunksOf(resumed)
  const types = chunks.map((c) => c.type)
  assert.equal(types[0], 'start')
  assert.deepEqual(types.slice(-2), ['error', 'finish'], `ends with the error, then finish: ${types.join(' ')}`)
  const error = chunks.at(-2) as Extract<UIMessageChunk, { type: 'error' }>
  assert.match(error.errorText, /interrupted/)
  const text = chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('')
  assert.ok(text.startsWith(seen), `the stored part comes first: ${JSON.stringify(text)} vs ${JSON.stringify(seen)}`)
  assert.ok(text.length < '1 2 3 '.length * 50, 'only what was stored before the kill')
  // The ai package's reader builds the cut-off answer from it (and a UI shows the error beside it).
  const again = await transport.reconnectToStream({ chatId })
  let answer: UIMessage | undefined
  for await (const m of readUIMessageStream({ stream: again!, terminateOnError: false })) answer = m
  assert.equal(answer?.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''), text)

  // Once the chat moves on, its cut run is history: nothing to resume.
  const next = await transport.sendMessages({
    chatId,
    trigger: 'submit-message',
    messageId: undefined,
    messages: [user('u2', 'hello')],
    abortSignal: undefined,
  })
  await chunksOf(next)
  assert.equal(await transport.reconnectToStream({ chatId }), null)
})

test('a cut run is offered only within the session idle window', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parlance-crash-'))
  t.after(() => rmSync(dataDir, { recursive: true, force: true }))
  const chatId = `chat-${randomUUID()}`
  await crashMidStream(t, dataDir, chatId)
  const second = await startServer({ store: 'sqlite', dataDir, limits: { sessionIdleMs: 0 } }) // a window already over
  t.after(() => second.close())
  await second.server.sessions.open(chatId, 'anonymous') // the restart closes the run now
  await second.server.sessions.store.flush()
  const transport = new DefaultChatTransport({ api: `${second.url}/api/chat` })
  assert.equal(await transport.reconnectToStream({ chatId }), null, 'older than the idle window: 204')
})

/** @ag-ui/client's HttpAgent pointed at Parlance's resume GET (its run() reads any AG-UI SSE response). */
class ResumeAgent extends HttpAgent {
  protected override requestInit(): RequestInit {
    return { method: 'GET', headers: { accept: 'text/event-stream' } }
  }
}

test('AG-UI after kill -9: GET /agui/threads/:id/events without a seq replays the cut run up to RUN_ERROR', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parlance-crash-'))
  t.after(() => rmSync(dataDir, { recursive: true, force: true }))
  const threadId = `thread-${randomUUID()}`
  const seen = await crashMidStream(t, dataDir, threadId)

  const second = await startServer({ store: 'sqlite', dataDir })
  t.after(() => second.close())
  const agent = new ResumeAgent({ url: `${second.url}/agui/threads/${threadId}/events`, threadId })
  const input: RunAgentInput = { threadId, runId: 'resume', messages: [], tools: [], context: [], state: {}, forwardedProps: {} }
  const events = await new Promise<BaseEvent[]>((resolve, reject) => {
    const got: BaseEvent[] = []
    agent.run(input).subscribe({ next: (e) => void got.push(e), error: reject, complete: () => resolve(got) })
  })
  const records = events as unknown as Array<Record<string, unknown>>
  assertSchema(records)
  const types = records.map((e) => String(e.type))
  assert.equal(types[0], 'RUN_STARTED')
  assert.equal(types.at(-1), 'RUN_ERROR', types.join(' '))
  assert.match(String(records.at(-1)!.message), /stopped|interrupted/)
  const text = records.flatMap((e) => (e.type === 'TEXT_MESSAGE_CONTENT' ? [String(e.delta)] : [])).join('')
  assert.ok(text.startsWith(seen), `the stored part: ${JSON.stringify(text)}`)
  assert.ok(types.includes('TEXT_MESSAGE_END'), 'the cut message is closed before the error')
})

// The socket dialects resume by seq, so a cut run's recorded end replays like any event: checked here after a real
// kill -9 with each dialect's own client (HAI: test/hai-restart.test.ts; A2A's GetTask: test/a2a-durable.test.ts).
test('MyAgent and HUMA after kill -9: a reconnect with the last seq seen gets the interrupted end', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parlance-crash-'))
  t.after(() => rmSync(dataDir, { recursive: true, force: true }))
  const served = await spawnServe(t, ['--store', 'sqlite', '--data', dataDir])
  const my = await MyAgentClient.connect({ url: served.url })
  t.after(() => my.close())
  const mySession = await my.createSession()
  my.message('slow')
  for (let i = 0; i < 3; i++) await my.next('agent.partial_answer')
  const huma = await HumaClient.connect({ url: served.url })
  t.after(() => huma.close())
  huma.contextUpdate('go slow')
  const typing = await huma.nextMessaging('typing_start')
  await served.kill()

  const second = await startServer({ store: 'sqlite', dataDir })
  t.after(() => second.close())
  const myBack = await MyAgentClient.connect({ url: second.url })
  t.after(() => myBack.close())
  myBack.reconnect(mySession, my.lastSeq)
  const failed = await myBack.next('error.execution')
  assert.match(JSON.stringify(failed), /ERR_EXECUTION_600/)
  const humaBack = await HumaClient.connect({ url: second.url, sessionId: huma.sessionId, afterSeq: huma.lastSeq })
  t.after(() => humaBack.close())
  // HUMA delivers whole messages: the cut one is never sent, and its burst ends "canceled" (as an interrupt's does).
  const end = await humaBack.nextMessaging('typing_end')
  assert.deepEqual([end.toolCallId, end.reason], [typing.toolCallId, 'canceled'])
})
