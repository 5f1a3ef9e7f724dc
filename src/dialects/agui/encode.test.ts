import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HttpAgent } from '@ag-ui/client'
import { EventSchema } from '@ag-ui/core/schemas'
import type { EventBody, HistoryMessage, StoredEvent } from '../../core/index.js'
import { encode, ending, fromAguiMessage, runFinished, runStarted, toAguiMessage, type AguiView } from './encode.js'

const view: AguiView = { threadId: 'thread-1', runId: 'run-1' }
let seq = 0
const at = (body: EventBody, runId = 'prun-1'): StoredEvent => ({ ...body, sessionId: 'thread-1', runId, seq: ++seq, ts: 1_700_000_000_000 })

/** SSE text → [{id, event}]. */
function parse(sse: string): Array<{ id?: number; event: Record<string, unknown> }> {
  return sse
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const id = /^id: (\d+)$/m.exec(block)?.[1]
      const data = /^data: (.*)$/m.exec(block)![1]!
      return id === undefined
        ? { event: JSON.parse(data) as Record<string, unknown> }
        : { id: Number(id), event: JSON.parse(data) as Record<string, unknown> }
    })
}

const approval: EventBody = {
  type: 'approval.requested',
  approvalId: 'appr_1',
  toolName: 'delete_file',
  toolDescription: 'Deletes a file',
  args: { path: 'notes/demo.txt' },
  reasoning: 'The user asked to delete it',
  risk: 'high',
  timeoutMs: 60_000,
}
const history: HistoryMessage[] = [
  { id: 'u1', role: 'user', content: 'weather?' },
  { id: 'a1', role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
  { id: 't1', role: 'tool', toolCallId: 'c1', content: '{"temperature_c":18}' },
  { id: 't2', role: 'tool', toolCallId: 'c2', content: '', error: 'down' },
  { id: 'a2', role: 'assistant', content: 'Cloudy.' },
]

/** One of every canonical event with an AG-UI form, in an order a real run could produce. */
const SAMPLES: EventBody[] = [
  { type: 'status', status: 'thinking', message: 'Assistant is thinking...' },
  { type: 'typing', active: true },
  { type: 'reasoning.start', messageId: 'r1' },
  { type: 'reasoning.delta', messageId: 'r1', delta: 'hmm' },
  { type: 'reasoning.end', messageId: 'r1' },
  { type: 'plan', planId: 'p1', tasks: [{ id: 't1', title: 'Look it up' }] },
  { type: 'step.started', stepId: 's1', name: 'Look it up' },
  { type: 'tool.call', toolCallId: 'c1', toolName: 'get_weather', args: { city: 'Paris' }, target: 'server', parentMessageId: 'a1' },
  { type: 'tool.result', toolCallId: 'c1', toolName: 'get_weather', result: { temperature_c: 18 } },
  { type: 'tool.call', toolCallId: 'c2', toolName: 'flaky', args: {}, target: 'server' },
  { type: 'tool.error', toolCallId: 'c2', toolName: 'flaky', error: 'down' },
  { type: 'tool.call', toolCallId: 'c3', toolName: 'slow', args: {}, target: 'server' },
  { type: 'tool.cancel', toolCallId: 'c3', toolName: 'slow', reason: 'run cancelled' },
  { type: 'progress', planId: 'p1', taskId: 't1', percent: 100 },
  { type: 'step.finished', stepId: 's1', name: 'Look it up', ok: true },
  { type: 'state.snapshot', snapshot: { counter: 0 } },
  { type: 'state.delta', patch: [{ op: 'replace', path: '/counter', value: 1 }] },
  { type: 'text.start', messageId: 'a2' },
  { type: 'text.delta', messageId: 'a2', delta: 'Cloudy.' },
  { type: 'text.end', messageId: 'a2' },
  { type: 'message.sent', toolCallId: 'b1', messageId: 'm9', message: 'A burst message', index: 0, count: 1, confirm: false },
  { type: 'message.delivery', toolCallId: 'b1', messageId: 'm9', index: 0, ok: true, by: 'client' },
  { type: 'context.update', name: 'page', description: 'the open page', context: { url: '/x' }, triggering: false },
  { type: 'custom', name: 'app.highlight', value: { id: 3 } },
  { type: 'raw', event: { upstream: 'x' }, source: 'langgraph' },
  { type: 'error', code: 'rate_limited', message: 'slow down' },
  { type: 'approval.resolved', approvalId: 'appr_0', approved: false, by: 'timeout' },
  { type: 'messages.snapshot', messages: history },
  { type: 'message.queued', messageId: 'q1', content: 'later', metadata: { tab: 2 } },
  { type: 'history.rewound', toMessageId: 'a2', reason: 'edit', branch: 'fork_1' },
  { type: 'typing', active: false },
]

test('every canonical event encodes to events @ag-ui/core accepts; only the last one of a group carries the seq as SSE id', () => {
  for (const body of [...SAMPLES, approval]) {
    const e = at(body)
    const out = parse(encode(e, view).join(''))
    assert.ok(out.length >= 1, `${body.type} has an AG-UI form`)
    for (const { event } of out) assert.ok(EventSchema.safeParse(event).success, `${body.type} → ${JSON.stringify(event)}`)
    assert.deepEqual(
      out.map((o) => o.id),
      [...out.slice(1).map(() => undefined), e.seq],
      body.type,
    )
  }
})

test('message.user, run.started and the run ends encode to nothing (RUN_STARTED is per response; ends come from `ending`)', () => {
  for (const body of [
    { type: 'message.user', messageId: 'u1', content: 'hi' },
    { type: 'run.started', agent: 'demo' },
    { type: 'run.finished' },
    { type: 'run.error', code: 'execution_error', message: 'x' },
    { type: 'not.yet.invented' } as unknown as EventBody,
  ] as EventBody[]) {
    assert.deepEqual(encode(at(body), view), [], body.type)
  }
  assert.equal(ending(at({ type: 'text.delta', messageId: 'a', delta: 'x' }), view), null)
  assert.equal(ending(at({ type: 'tool.call', toolCallId: 'c', toolName: 'get_weather', args: {}, target: 'server' }), view), null)
})

test('ending: success, cancelled, RUN_ERROR, a pending client tool call, and an approval as an interrupt', () => {
  const end = (body: EventBody) => {
    const e = at(body)
    const [only, ...rest] = parse(ending(e, view)!)
    assert.equal(rest.length, 0)
    assert.equal(only!.id, e.seq)
    assert.ok(EventSchema.safeParse(only!.event).success, JSON.stringify(only!.event))
    return only!.event
  }
  assert.deepEqual(end({ type: 'run.finished', result: { ok: true } }), {
    type: 'RUN_FINISHED',
    threadId: 'thread-1',
    runId: 'run-1',
    outcome: { type: 'success' },
    result: { ok: true },
  })
  assert.deepEqual(end({ type: 'run.error', code: 'cancelled', message: 'by user' }).outcome, { type: 'cancelled' })
  assert.deepEqual(end({ type: 'run.error', code: 'timeout', message: 'too slow' }), { type: 'RUN_ERROR', message: 'too slow', code: 'timeout' })
  assert.deepEqual(end({ type: 'tool.call', toolCallId: 'c9', toolName: 'get_client_info', args: {}, target: 'client' }).outcome, { type: 'success' }) // no pendingToolCallIds: AG-UI 0.0.x schemas reject it
  const interrupt = end(approval).outcome as { type: string; interrupts: Array<Record<string, unknown>> }
  assert.equal(interrupt.type, 'interrupt')
  assert.equal(interrupt.interrupts[0]!.id, 'appr_1')
  assert.equal(interrupt.interrupts[0]!.expiresAt, new Date(1_700_000_060_000).toISOString())
  assert.deepEqual(parse(runStarted(view))[0]!.event, { type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-1' })
})

/** Runs the official HttpAgent against a canned response: its own verifier checks the event order. */
async function throughHttpAgent(events: StoredEvent[], tail = ''): Promise<{ agent: HttpAgent; received: Array<Record<string, unknown>> }> {
  let sse = runStarted(view)
  for (const e of events) sse += encode(e, view).join('') + (ending(e, view) ?? '')
  sse += tail
  const agent = new HttpAgent({
    url: 'http://agui.invalid/agui',
    threadId: view.threadId,
    fetch: async () => new Response(sse, { headers: { 'content-type': 'text/event-stream' } }),
  })
  agent.addMessage({ id: 'u1', role: 'user', content: 'weather?' })
  const received: Array<Record<string, unknown>> = []
  await agent.runAgent({ runId: view.runId }, { onEvent: ({ event }) => void received.push(event) })
  return { agent, received }
}

test('a whole run of every event passes the official HttpAgent verifier and builds its messages and state', async () => {
  const events = [...SAMPLES, { type: 'run.finished' } as EventBody].map((b) => at(b))
  const { agent, received } = await throughHttpAgent(events)
  assert.equal(received[0]!.type, 'RUN_STARTED')
  assert.equal(received.at(-1)!.type, 'RUN_FINISHED')
  assert.deepEqual(agent.state, { counter: 1 })
  // The streamed reasoning and text and the MESSAGES_SNAPSHOT's history all reached the client's messages.
  const ids = agent.messages.map((m) => m.id)
  for (const id of ['r1', ...history.map((m) => m.id)]) assert.ok(ids.includes(id), `${id} in ${ids.join(',')}`)
  assert.equal(agent.messages.find((m) => m.id === 'a2')!.content, 'Cloudy.')
})

test('a run that pauses for a client tool or an approval ends cleanly for the HttpAgent', async () => {
  const tool = await throughHttpAgent([
    at({ type: 'tool.call', toolCallId: 'c9', toolName: 'get_client_info', args: {}, target: 'client', parentMessageId: 'a9' }),
  ])
  assert.deepEqual(tool.received.at(-1)!.outcome, { type: 'success' }) // no pendingToolCallIds: AG-UI 0.0.x schemas reject it
  const assistant = tool.agent.messages.find((m) => m.id === 'a9') as { toolCalls?: Array<{ id: string }> } | undefined
  assert.equal(assistant?.toolCalls?.[0]?.id, 'c9')
  const appr = await throughHttpAgent([at(approval)])
  assert.equal((appr.received.at(-1)!.outcome as { type: string }).type, 'interrupt')
  // Nothing new and nothing running: an empty run.
  const empty = await throughHttpAgent([], runFinished(view))
  assert.deepEqual(
    empty.received.map((e) => e.type),
    ['RUN_STARTED', 'RUN_FINISHED'],
  )
})

test('history messages convert both ways without loss', () => {
  for (const m of history) assert.deepEqual(fromAguiMessage(toAguiMessage(m)), m)
  assert.equal(fromAguiMessage({ id: 's', role: 'system', content: 'x' }), null)
  assert.deepEqual(
    fromAguiMessage({ id: 'u', role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }] as never }),
    { id: 'u', role: 'user', content: 'ab' },
  )
})

test('message.queued and history.rewound are CUSTOM parlance.message_queued / parlance.history_rewound carrying the event fields', () => {
  const one = (body: EventBody) => parse(encode(at(body), view).join('')).map((o) => o.event)
  assert.deepEqual(one({ type: 'message.queued', messageId: 'q1', content: 'later' }), [
    { type: 'CUSTOM', name: 'parlance.message_queued', value: { messageId: 'q1', content: 'later' } },
  ])
  assert.deepEqual(one({ type: 'message.queued', messageId: 'q2', content: 'x', agent: 'other', clientTools: [{ name: 't' }] }), [
    { type: 'CUSTOM', name: 'parlance.message_queued', value: { messageId: 'q2', content: 'x', agent: 'other', clientTools: [{ name: 't' }] } },
  ])
  assert.deepEqual(one({ type: 'history.rewound', toMessageId: null, reason: 'edit', branch: 'fork_9' }), [
    { type: 'CUSTOM', name: 'parlance.history_rewound', value: { toMessageId: null, reason: 'edit', branch: 'fork_9' } },
  ])
  assert.deepEqual(one({ type: 'history.rewound', toMessageId: 'a1', reason: 'rollback', droppedRunId: 'run_2' }), [
    { type: 'CUSTOM', name: 'parlance.history_rewound', value: { toMessageId: 'a1', reason: 'rollback', droppedRunId: 'run_2' } },
  ])
})
