// Token usage (issue 36): what the model reports is recorded on the run's events, summed per session, counted in
// parlance_tokens_total and carried by AG-UI (CUSTOM parlance.usage) and the AI SDK stream (data-usage), for
// aiSdkAgent and openaiAgent against a local fake OpenAI-compatible server that reports usage. The inspector's view
// of it, in Chromium: usage-inspector.test.ts (heavy tier).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DefaultChatTransport, type UIMessageChunk } from 'ai'
import { textOf } from '../src/client/index.js'
import { agentFor, custom, run as aguiRun } from './agui-support.js'
import { setup } from './usage-support.js'

/** The value of one series of the Prometheus text, or undefined when absent. */
async function series(url: string, labels: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`parlance_tokens_total{${labels}}`))
  return line === undefined ? undefined : Number(line.split(' ').at(-1))
}

test("aiSdkAgent: each model call's usage on the AG-UI stream, summed per session, counted by agent, model and kind", async (t) => {
  const { s } = await setup(t)
  const threadId = `usage-${Date.now()}`
  const agent = agentFor(s.url, threadId, '/agui/ai')
  const first = await aguiRun(agent, 'ponder hello')
  // The fake server reports 10 prompt tokens per message sent (2 of them cached), 7 completion tokens (3 reasoning after "ponder").
  assert.deepEqual(custom(first, 'parlance.usage'), [
    { agent: 'ai', model: 'fake-1', provider: 'fakeai.chat', inputTokens: 20, outputTokens: 7, reasoningTokens: 3, cachedInputTokens: 2 },
  ])

  // Two model calls (the tool round): two reports, with the history growing between them.
  const second = await aguiRun(agent, 'weather please')
  assert.deepEqual(
    custom(second, 'parlance.usage').map((u) => (u as { inputTokens: number }).inputTokens),
    [40, 60],
  )

  const session = [...s.server.sessions.loadedSessions()].find((x) => x.id === threadId)
  assert.ok(session, 'the AG-UI thread is a loaded session')
  assert.deepEqual(session.model.usage, { inputTokens: 120, outputTokens: 21, reasoningTokens: 3, cachedInputTokens: 6 })

  const labels = (kind: string) => `agent="ai",model="fake-1",kind="${kind}"`
  assert.equal(await series(s.url, labels('input')), 120)
  assert.equal(await series(s.url, labels('output')), 21)
  assert.equal(await series(s.url, labels('reasoning')), 3)
  assert.equal(await series(s.url, labels('cached_input')), 6)
})

test('openaiAgent reports usage too (stream_options.include_usage); the AI SDK stream carries it as data-usage', async (t) => {
  const { llm, s } = await setup(t)
  const c = await s.hai()
  c.say('hello usage', { agent: 'oa' })
  const msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'You said: hello usage')
  assert.deepEqual((llm.requests.at(-1) as { stream_options?: unknown }).stream_options, { include_usage: true })
  assert.equal(await series(s.url, 'agent="oa",model="fake-2",kind="input"'), 20)
  assert.equal(await series(s.url, 'agent="oa",model="fake-2",kind="output"'), 7)
  assert.equal(await series(s.url, 'agent="oa",model="fake-2",kind="reasoning"'), undefined, 'a zero count adds no series')

  const transport = new DefaultChatTransport({ api: `${s.url}/api/chat/ai` })
  const stream = await transport.sendMessages({
    chatId: 'usage-chat',
    trigger: 'submit-message',
    messageId: undefined,
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    abortSignal: undefined,
  })
  const chunks: UIMessageChunk[] = []
  for await (const chunk of stream) chunks.push(chunk)
  const usage = chunks.filter((ch) => ch.type === 'data-usage').map((ch) => (ch as { data: unknown }).data)
  assert.deepEqual(usage, [
    { agent: 'ai', model: 'fake-1', provider: 'fakeai.chat', inputTokens: 20, outputTokens: 7, reasoningTokens: 0, cachedInputTokens: 2 },
  ])
})
