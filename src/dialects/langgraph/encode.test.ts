import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventBody, StoredEvent } from '../../core/index.js'
import { langGraphStep, langGraphView, LANGGRAPH_SSE, modesOf, type LangGraphView } from './encode.js'
import { lcMessage } from './encode-messages.js'

let seq = 0
const ev = (body: EventBody): StoredEvent => ({ ...body, sessionId: 't', runId: 'r', seq: ++seq, ts: 0 })

/** The frames of `events` in one response, parsed: [event, data, id]. */
function frames(events: EventBody[], view: LangGraphView): Array<[string, unknown, string | undefined]> {
  let v = view
  let text = LANGGRAPH_SSE.opening(v)
  for (const b of events) {
    const s = langGraphStep(ev(b), v)
    text += s.out
    v = s.view
    if (s.end) break
  }
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const get = (k: string) =>
        block
          .split('\n')
          .find((l) => l.startsWith(`${k}: `))
          ?.slice(k.length + 2)
      return [get('event') ?? '', get('data') === undefined ? undefined : JSON.parse(get('data')!), get('id')]
    })
}

const view = (modes: Parameters<typeof modesOf>[0]) =>
  langGraphView({ threadId: 't', runId: 'r.0', assistantId: 'demo', modes: modesOf(modes), after: 0, messages: [] })
const answer: EventBody[] = [
  { type: 'message.user', messageId: 'u1', content: 'hi' },
  { type: 'run.started', agent: 'demo' },
  { type: 'text.start', messageId: 'm1' },
  { type: 'text.delta', messageId: 'm1', delta: 'Echo: ' },
  { type: 'text.delta', messageId: 'm1', delta: 'hi' },
  { type: 'text.end', messageId: 'm1' },
  { type: 'run.finished' },
]

test('values: metadata first, the whole list after each change, the last frame of each event carries its seq', () => {
  seq = 0
  const f = frames(answer, view(['values']))
  assert.deepEqual(f[0], ['metadata', { run_id: 'r.0', thread_id: 't' }, undefined])
  assert.deepEqual(
    f.slice(1).map(([e, d, id]) => [e, (d as { messages: unknown[] } | undefined)?.messages.length, id]),
    [
      ['values', 1, '1'],
      ['values', 2, '6'],
      ['', undefined, '7'],
    ],
  )
})

test('messages-tuple: one AIMessageChunk per delta, then nothing new for the whole message; updates name the node', () => {
  seq = 0
  const f = frames(answer, view(['messages-tuple', 'updates']))
  const tuples = f.filter(([e]) => e === 'messages').map(([, d]) => d as [{ type: string; id: string; content: string }, { langgraph_node: string }])
  assert.deepEqual(
    tuples.map(([c, m]) => [c.type, c.id, c.content, m.langgraph_node]),
    [
      ['AIMessageChunk', 'm1', 'Echo: ', 'agent'],
      ['AIMessageChunk', 'm1', 'hi', 'agent'],
    ],
  )
  assert.deepEqual(f.find(([e]) => e === 'updates')![1], { agent: { messages: [{ type: 'ai', id: 'm1', content: 'Echo: hi', tool_calls: [] }] } })
})

test('a pause ends the run with __interrupt__ in values and updates; an error is event: error; a cancel just ends', () => {
  seq = 0
  const asked: EventBody = {
    type: 'approval.requested',
    approvalId: 'apr_1',
    toolName: 'delete_file',
    toolDescription: 'Deletes',
    args: { path: 'x' },
    reasoning: 'asked',
    risk: 'high',
    timeoutMs: 1000,
  }
  const f = frames([answer[0]!, asked, { type: 'run.finished' }], view(['values', 'updates']))
  const interrupt = {
    id: 'apr_1',
    value: {
      action_requests: [{ name: 'delete_file', args: { path: 'x' }, description: 'Tool execution requires approval (risk: high): asked' }],
      review_configs: [{ action_name: 'delete_file', allowed_decisions: ['approve', 'reject'] }],
    },
  }
  assert.deepEqual(f.at(-2)![1], { messages: [{ type: 'human', id: 'u1', content: 'hi' }], __interrupt__: [interrupt] })
  assert.deepEqual(f.at(-1), ['updates', { __interrupt__: [interrupt] }, '2'])
  const failed = frames([{ type: 'run.error', code: 'execution_error', message: 'boom' }], view(['values']))
  assert.deepEqual(failed.at(-1)!.slice(0, 2), ['error', { error: 'execution_error', message: 'boom' }])
  const cancelled = frames([{ type: 'run.error', code: 'cancelled', message: 'stop' }], view(['messages-tuple']))
  assert.ok(!cancelled.some(([e]) => e === 'error'))
})

test('history messages in LangChain dicts: tool calls with parsed args, a failed tool as status error', () => {
  assert.deepEqual(lcMessage({ id: 'a', role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'f', arguments: '{"x":1}' }] }), {
    type: 'ai',
    id: 'a',
    content: '',
    tool_calls: [{ id: 'c', name: 'f', args: { x: 1 }, type: 'tool_call' }],
  })
  assert.deepEqual(lcMessage({ id: 'r', role: 'tool', toolCallId: 'c', content: '', error: 'nope' }), {
    type: 'tool',
    id: 'r',
    content: 'nope',
    tool_call_id: 'c',
    status: 'error',
  })
})
