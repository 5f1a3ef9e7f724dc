import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventBody, StoredEvent } from '../../core/index.js'
import { chatCompletion, chatStep, chatView, type ChatView } from './encode-chat.js'
import { responseObject, responsesStep, responsesView, RESPONSES_SSE, type ResponsesView } from './encode-responses.js'
import { chatToolCallId, parseChatToolCallId, parseResponseId, responseId } from './codec-ids.js'

let seq = 0
const ev = (body: EventBody): StoredEvent => ({ ...body, sessionId: 's-1', runId: 'run-1', seq: ++seq, ts: 0 })
const run = (...bodies: EventBody[]) => bodies.map(ev)

const text = (id: string, ...deltas: string[]): EventBody[] => [
  { type: 'text.start', messageId: id },
  ...deltas.map((delta) => ({ type: 'text.delta' as const, messageId: id, delta })),
  { type: 'text.end', messageId: id },
]

function chat(events: StoredEvent[], includeUsage = false): { out: string[]; view: ChatView } {
  let view = chatView({ id: 'chatcmpl-1', model: 'demo', created: 1, sessionId: 's-1', after: 0, includeUsage })
  const out: string[] = []
  for (const e of events) {
    const s = chatStep(e, view)
    if (s.out) out.push(s.out)
    view = s.view
    if (s.end) break
  }
  return { out, view }
}

const data = (sse: string) =>
  sse
    .split('\n\n')
    .filter(Boolean)
    .map((m) => m.replace(/^data: /, ''))
    .map((d) => (d === '[DONE]' ? d : (JSON.parse(d) as Record<string, unknown>)))

test('chat: text deltas, a blank line between two messages, then finish stop, usage and [DONE]', () => {
  const { out, view } = chat(
    run(...text('m1', 'Hel', 'lo'), { type: 'usage', agent: 'demo', model: 'x', inputTokens: 3, outputTokens: 4 }, ...text('m2', 'again'), {
      type: 'run.finished',
    }),
    true,
  )
  const msgs = out.flatMap(data)
  const content = msgs
    .flatMap((m) => (typeof m === 'object' ? ((m.choices as Array<{ delta: { content?: string } }>)[0]?.delta.content ?? []) : []))
    .join('')
  assert.equal(content, 'Hello\n\nagain')
  assert.equal(msgs.at(-1), '[DONE]')
  assert.deepEqual((msgs.at(-2) as { usage: unknown }).usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 })
  assert.equal((msgs.at(-3) as { choices: Array<{ finish_reason: string }> }).choices[0]!.finish_reason, 'stop')
  const c = chatCompletion(view)
  assert.equal(c.choices[0]!.message.content, 'Hello\n\nagain')
  assert.equal(c.choices[0]!.finish_reason, 'stop')
})

test('chat: a client tool call ends the response with tool_calls, its id naming the session; server tools are left out', () => {
  const { out, view } = chat(
    run(
      { type: 'tool.call', toolCallId: 'srv', toolName: 'get_weather', args: {}, target: 'server' },
      { type: 'tool.call', toolCallId: 'tc-1', toolName: 'get_client_info', args: { a: 1 }, target: 'client' },
      { type: 'run.finished' },
    ),
  )
  const msgs = out.flatMap(data)
  const call = (msgs[0] as { choices: Array<{ delta: { tool_calls: Array<{ id: string; function: { arguments: string } }> } }> }).choices[0]!.delta
    .tool_calls[0]!
  assert.deepEqual(parseChatToolCallId(call.id), { sessionId: 's-1', toolCallId: 'tc-1' })
  assert.equal(call.function.arguments, '{"a":1}')
  assert.equal(view.finish, 'tool_calls')
  assert.equal(chatCompletion(view).choices[0]!.message.content, null)
  assert.equal(msgs.at(-1), '[DONE]')
})

test('chat: a run error is an OpenAI error message, then [DONE]', () => {
  const { out, view } = chat(run({ type: 'run.error', code: 'execution_error', message: 'boom' }))
  assert.deepEqual(out.flatMap(data), [{ error: { message: 'boom', type: 'server_error', param: null, code: 'execution_error' } }, '[DONE]'])
  assert.deepEqual(view.error, { code: 'execution_error', message: 'boom' })
})

type Msg = { type: string; sequence_number: number } & Record<string, unknown>
const messages = (sse: string): Msg[] =>
  sse
    .split('\n\n')
    .filter(Boolean)
    .map((m) => JSON.parse(m.split('\n')[1]!.slice(6)) as Msg)

function responses(events: StoredEvent[], skip = -1): { msgs: Msg[]; view: ResponsesView } {
  let view = responsesView(
    {
      id: 'resp_1',
      created_at: 1,
      model: 'demo',
      instructions: null,
      previous_response_id: null,
      store: true,
      background: false,
      metadata: {},
      tools: [],
    },
    0,
    skip,
  )
  let sse = RESPONSES_SSE.opening(view)
  for (const e of events) {
    const s = responsesStep(e, view)
    sse += s.out
    view = s.view
    if (s.end) break
  }
  return { msgs: messages(sse), view }
}

test('responses: the documented sequence, numbered without gaps, with the whole text at the end', () => {
  const { msgs, view } = responses(
    run(
      { type: 'reasoning.start', messageId: 'r1' },
      { type: 'reasoning.delta', messageId: 'r1', delta: 'hmm' },
      { type: 'reasoning.end', messageId: 'r1' },
      ...text('m1', 'a', 'b'),
      {
        type: 'run.finished',
      },
    ),
  )
  assert.deepEqual(
    msgs.map((m) => m.sequence_number),
    msgs.map((_, i) => i),
  )
  assert.deepEqual(
    msgs.map((m) => m.type),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ],
  )
  assert.equal(msgs[10]!.text, 'ab')
  assert.equal(msgs[10]!.output_index, 1)
  const done = responseObject(view)
  assert.equal(done.status, 'completed')
  assert.deepEqual(
    done.output.map((i) => i.type),
    ['reasoning', 'message'],
  )
})

test('responses: skip leaves out what a replay has seen, numbering the rest as the first stream did', () => {
  const events = run(...text('m1', 'a', 'b', 'c'), { type: 'run.finished' })
  const whole = responses(events).msgs
  assert.deepEqual(responses(events, 4).msgs, whole.slice(5))
  assert.deepEqual(responses(events, 100).msgs, [])
})

test('responses: an approval is an mcp_approval_request item; a client tool a function_call; each completes the response', () => {
  const a = responses(
    run({
      type: 'approval.requested',
      approvalId: 'appr_1',
      toolName: 'delete_file',
      toolDescription: '',
      args: { path: 'x' },
      reasoning: 'why',
      risk: 'high',
      timeoutMs: 1,
    }),
  )
  assert.equal(a.msgs.at(-1)!.type, 'response.completed')
  assert.deepEqual(responseObject(a.view).output, [
    { type: 'mcp_approval_request', id: 'appr_1', server_label: 'parlance', name: 'delete_file', arguments: '{"path":"x"}' },
  ])
  const f = responses(run({ type: 'tool.call', toolCallId: 'tc-1', toolName: 'get_client_info', args: {}, target: 'client' }))
  assert.deepEqual(f.msgs.map((m) => m.type).slice(2), [
    'response.output_item.added',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.done',
    'response.output_item.done',
    'response.completed',
  ])
  assert.equal((responseObject(f.view).output[0] as { call_id: string }).call_id, 'tc-1')
})

test('responses: a cancel ends cancelled, an error failed, with the error', () => {
  assert.equal(responses(run({ type: 'run.error', code: 'cancelled', message: 'stop' })).view.status, 'cancelled')
  const failed = responses(run(...text('m1', 'half'), { type: 'run.error', code: 'execution_error', message: 'boom' }))
  assert.equal(failed.msgs.at(-1)!.type, 'response.failed')
  assert.deepEqual(responseObject(failed.view).error, { code: 'execution_error', message: 'boom' })
})

test('ids: a response id round-trips; foreign or malformed ids are not ours', () => {
  const ref = { sessionId: 'conv/ünï', runId: 'run_1', after: 42 }
  assert.deepEqual(parseResponseId(responseId(ref)), ref)
  assert.deepEqual(parseResponseId(responseId({ ...ref, noStore: true })), { ...ref, noStore: true })
  for (const bad of ['resp_', 'resp_!!!', 'resp_WzFd', 'chatcmpl-1', `resp_${Buffer.from('[1,2,3,4]').toString('base64url')}`])
    assert.equal(parseResponseId(bad), null, bad)
  assert.deepEqual(parseChatToolCallId(chatToolCallId('s.1', 'call.x')), { sessionId: 's.1', toolCallId: 'call.x' })
  assert.equal(parseChatToolCallId('call_abc'), null)
})
