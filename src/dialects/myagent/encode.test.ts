import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import { ERROR_CODES, ParlanceError, type EventBody, type StoredEvent } from '../../core/index.js'
import { encode, encodeError, view, type MyAgentEvent, type MyAgentView } from './encode.js'
import { MYAGENT_ERROR } from './errors.js'

/** The seed's payload structures: the content keys (or 'string') and metadata keys each server event must carry. */
const SEED: Record<string, { content: string[] | 'string'; metadata: string[]; step?: boolean }> = {
  'plan.start': { content: ['question'], metadata: ['plan_id', 'timeout_seconds', 'model'], step: true },
  'plan.completed': {
    content: ['tasks'],
    metadata: ['task_count', 'plan_summary', 'total_estimated_tokens', 'llm_calls', 'planning_time_ms'],
    step: true,
  },
  'plan.step_completed': { content: ['step_name', 'step_result'], metadata: ['step_index', 'step_duration_ms', 'tokens_used'], step: true },
  'solver.start': { content: [], metadata: ['task_count', 'total_tasks', 'estimated_duration_sec'], step: true },
  'solver.progress': {
    content: ['current_task', 'status'],
    metadata: ['progress_percent', 'current_step', 'completed_steps', 'total_steps', 'elapsed_time_ms'],
    step: true,
  },
  'solver.completed': {
    content: ['task_results'],
    metadata: ['total_tasks', 'successful_tasks', 'failed_tasks', 'total_execution_time_ms', 'total_tokens_used'],
    step: true,
  },
  'solver.step_failed': {
    content: ['error_message', 'step_name'],
    metadata: ['step_index', 'error_code', 'error_type', 'recovery_possible'],
    step: true,
  },
  'agent.thinking': { content: 'string', metadata: ['model', 'max_tokens', 'temperature', 'thinking_type'], step: true },
  'agent.tool_call': { content: ['tool_name', 'tool_description', 'arguments'], metadata: ['call_id', 'tool_type'], step: true },
  'agent.tool_result': { content: ['result', 'status'], metadata: ['call_id', 'execution_time_ms'], step: true },
  'agent.partial_answer': { content: 'string', metadata: ['chunk_index'], step: true },
  'agent.final_answer': { content: ['answer', 'answer_type'], metadata: ['generation_time_ms', 'total_tokens_used', 'model'], step: true },
  'agent.user_confirm': { content: ['message', 'confirmation_type'], metadata: ['timeout_seconds', 'critical'], step: true },
  'error.timeout': {
    content: 'string',
    metadata: ['error_code', 'timeout_seconds', 'elapsed_seconds', 'stage', 'attempt', 'max_attempts', 'retry_after_ms', 'recovery_strategy'],
    step: true,
  },
  'error.execution': { content: 'string', metadata: ['error_code', 'error_type', 'context', 'recoverable'], step: true },
  'system.error': { content: 'string', metadata: ['error_code', 'severity'] },
}

let seq = 0
const T0 = 1_700_000_000_000
/** Encodes one event at a time, threading the view as a connection's subscription does. */
function run(v0: MyAgentView, bodies: EventBody[]): MyAgentEvent[] {
  const out: MyAgentEvent[] = []
  let v = v0
  for (const body of bodies) {
    const e = { ...body, sessionId: 'sess_1', runId: 'run_1', seq: ++seq, ts: T0 + seq * 10 }
    const encoded = encode([e], v)
    v = encoded.view
    const frames = encoded.frames.map((f) => JSON.parse(f) as MyAgentEvent)
    frames.forEach((f, i) => {
      check(f)
      assert.equal(f.metadata.seq, i === frames.length - 1 ? e.seq : undefined, `${f.event}: seq on the last frame of an event only`)
    })
    out.push(...frames)
  }
  return out
}

function check(f: MyAgentEvent): void {
  assert.equal(f.session_id, 'sess_1')
  assert.equal(f.connection_id, 'conn_1')
  assert.match(f.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  assert.ok(Object.hasOwn(f, 'content'))
  assert.equal(typeof f.metadata, 'object')
  const seed = SEED[f.event]
  if (!seed) return
  if (seed.step) assert.equal(typeof f.step_id, 'string', `${f.event}: step_id`)
  if (seed.content === 'string') assert.equal(typeof f.content, 'string', `${f.event}: content is a string`)
  else for (const k of seed.content) assert.ok(Object.hasOwn(f.content as object, k), `${f.event}: content.${k}`)
  for (const k of seed.metadata) assert.ok(Object.hasOwn(f.metadata, k), `${f.event}: metadata.${k}`)
}

const names = (fs: MyAgentEvent[]) => fs.map((f) => f.event)

test('echo: thinking, partial answers with chunk_index, the final answer holding the whole text', () => {
  const v = view('conn_1', 'sess_1')
  const out = run(v, [
    { type: 'message.user', messageId: 'u1', content: 'hi' },
    { type: 'run.started', agent: 'demo' },
    { type: 'status', status: 'thinking' },
    { type: 'text.start', messageId: 'm1' },
    { type: 'text.delta', messageId: 'm1', delta: 'Echo: ' },
    { type: 'text.delta', messageId: 'm1', delta: 'hi' },
    { type: 'text.end', messageId: 'm1' },
    { type: 'run.finished' },
  ])
  assert.deepEqual(names(out), ['agent.thinking', 'agent.partial_answer', 'agent.partial_answer', 'agent.final_answer'])
  assert.deepEqual(
    out.slice(1, 3).map((f) => f.metadata.chunk_index),
    [0, 1],
  )
  assert.deepEqual(out[3]!.content, { answer: 'Echo: hi', answer_type: 'text' })
  assert.equal(out[3]!.metadata.generation_time_ms, 30)
  assert.equal(v.texts.size, 0)
})

test('plan: start/completed/solver.start, step_completed and progress per task, solver.completed at the end', () => {
  const v = view('conn_1', 'sess_1')
  const tasks = [
    { id: 't1', title: 'one' },
    { id: 't2', title: 'two' },
  ]
  const out = run(v, [
    { type: 'message.user', messageId: 'u1', content: 'make a plan' },
    { type: 'plan', planId: 'plan_1', tasks },
    { type: 'step.started', stepId: 't1', name: 'one' },
    { type: 'step.finished', stepId: 't1', name: 'one', ok: true },
    { type: 'progress', planId: 'plan_1', taskId: 't1', percent: 50, message: 'one done' },
    { type: 'step.finished', stepId: 't2', name: 'two', ok: false, error: 'broke' },
    { type: 'progress', taskId: 't2', percent: 100 },
    { type: 'run.finished' },
  ])
  assert.deepEqual(names(out), [
    'plan.start',
    'plan.completed',
    'solver.start',
    'plan.step_completed',
    'solver.progress',
    'solver.step_failed',
    'solver.progress',
    'solver.completed',
  ])
  assert.deepEqual(out[0]!.content, { question: 'make a plan' })
  assert.deepEqual(out[4]!.metadata.progress_percent, 50)
  assert.equal(out[4]!.metadata.current_step, 1)
  assert.equal(out[6]!.step_id, 'plan_1', 'progress without planId names the plan in progress')
  assert.deepEqual(out[7]!.metadata.successful_tasks, 1)
  assert.equal(v.plan, null)
})

test('tools, confirmation and its timeout, run errors, custom pass-through', () => {
  const v = view('conn_1', 'sess_1')
  const retry: EventBody = {
    type: 'custom',
    name: 'solver.retry',
    value: { content: { step_name: 's' }, metadata: { attempt: 2, max_attempts: 3, backoff_ms: 100 }, step_id: 'x' },
  }
  const out = run(v, [
    { type: 'tool.call', toolCallId: 'c1', toolName: 'get_weather', args: { city: 'Oslo' }, target: 'server' },
    { type: 'tool.result', toolCallId: 'c1', toolName: 'get_weather', result: { t: 18 } },
    { type: 'tool.error', toolCallId: 'c2', toolName: 'flaky', error: 'down' },
    {
      type: 'approval.requested',
      approvalId: 'a1',
      toolName: 'delete',
      toolDescription: 'd',
      args: {},
      reasoning: 'sure?',
      risk: 'high',
      timeoutMs: 2000,
    },
    { type: 'approval.resolved', approvalId: 'a1', approved: false, by: 'timeout' },
    { type: 'run.error', code: 'execution_error', message: 'boom' },
    { type: 'run.error', code: 'timeout', message: 'too slow' },
    retry,
    { type: 'custom', name: 'other', value: 1 },
  ])
  assert.deepEqual(names(out), [
    'agent.tool_call',
    'agent.tool_result',
    'agent.tool_result',
    'solver.step_failed',
    'agent.user_confirm',
    'error.timeout',
    'error.execution',
    'error.timeout',
    'solver.retry',
    'agent.custom',
  ])
  assert.equal(out[0]!.metadata.call_id, out[1]!.metadata.call_id)
  assert.equal((out[2]!.content as { status: string }).status, 'failed')
  assert.equal(out[4]!.step_id, 'a1')
  assert.equal(out[4]!.metadata.timeout_seconds, 2)
  assert.equal(out[4]!.metadata.critical, true)
  assert.equal(out[5]!.step_id, 'a1')
  assert.equal(out[5]!.metadata.timeout_seconds, 2)
  assert.equal(out[5]!.metadata.elapsed_seconds, 0.01)
  assert.equal(out[6]!.metadata.error_code, 'ERR_EXECUTION_600')
  assert.equal(out[7]!.metadata.error_code, 'ERR_TIMEOUT_500')
  assert.deepEqual(out[8]!.metadata, { attempt: 2, max_attempts: 3, backoff_ms: 100, seq: seq - 1 })
  assert.deepEqual(
    retry,
    {
      type: 'custom',
      name: 'solver.retry',
      value: { content: { step_name: 's' }, metadata: { attempt: 2, max_attempts: 3, backoff_ms: 100 }, step_id: 'x' },
    },
    'the logged event is not modified',
  )
})

test('conversation control: message.queued → agent.message_queued, history.rewound → agent.history_rewound (extensions)', () => {
  const v = view('conn_1', 'sess_1')
  const out = run(v, [
    { type: 'message.queued', messageId: 'q1', content: 'and then?', metadata: { onBusy: 'enqueue' } },
    { type: 'history.rewound', toMessageId: 'u1', reason: 'rollback', droppedRunId: 'run_0' },
    { type: 'history.rewound', toMessageId: null, reason: 'edit', branch: 'fork_1' },
    { type: 'history.rewound', toMessageId: 'u2', reason: 'regenerate' },
  ])
  assert.deepEqual(names(out), ['agent.message_queued', 'agent.history_rewound', 'agent.history_rewound', 'agent.history_rewound'])
  assert.deepEqual([out[0]!.content, out[0]!.step_id, out[0]!.metadata.message_id], ['and then?', 'q1', 'q1'])
  const meta = (e: MyAgentEvent) => {
    const { seq: _, ...rest } = e.metadata
    return rest
  }
  assert.deepEqual(meta(out[1]!), { to_message_id: 'u1', reason: 'rollback', dropped_run_id: 'run_0' })
  assert.deepEqual(meta(out[2]!), { to_message_id: null, reason: 'edit', branch: 'fork_1' })
  assert.deepEqual(meta(out[3]!), { to_message_id: 'u2', reason: 'regenerate' })
  for (const e of out.slice(1)) assert.equal(typeof e.content, 'string', 'content: the user-visible line')
})

test('an event it has no mapping for encodes to nothing (default branch)', () => {
  const v = view('conn_1', 'sess_1')
  assert.deepEqual(encode([{ type: 'no.such.event', sessionId: 's', runId: 'r', seq: 1, ts: T0 } as unknown as StoredEvent], v), {
    frames: [],
    view: v,
  })
})

test("the seed's outbound examples: ours carry every content and metadata key they show, with the same JSON type", () => {
  const v = view('conn_1', 'sess_1')
  const out = run(v, [
    { type: 'message.user', messageId: 'u1', content: 'q' },
    { type: 'plan', planId: 'plan_1', tasks: [{ id: 't1', title: 'one' }] },
    { type: 'progress', planId: 'plan_1', taskId: 't1', percent: 40, message: 'm' },
    { type: 'tool.call', toolCallId: 'c1', toolName: 'x', args: { a: 1 }, target: 'server' },
  ])
  const kind = (x: unknown) => (Array.isArray(x) ? 'array' : x === null ? 'null' : typeof x)
  const dir = new URL('./fixtures/outbound/', import.meta.url)
  for (const f of readdirSync(dir)) {
    const example = JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as MyAgentEvent
    const ours = out.find((o) => o.event === example.event)
    assert.ok(ours, `no ${example.event}`)
    for (const part of ['content', 'metadata'] as const) {
      for (const [k, val] of Object.entries(example[part] as object)) {
        if (k === 'context' || k === 'estimated_remaining_ms' || k === 'estimated_duration_ms') continue // optional in the seed's structure
        assert.equal(kind((ours[part] as Record<string, unknown>)[k]), kind(val), `${example.event}.${part}.${k}`)
      }
    }
  }
})

test('every canonical error code has an event and a seed code; validation answers name field and constraint', () => {
  for (const code of ERROR_CODES) assert.match(MYAGENT_ERROR[code].code, /^ERR_[A-Z_]+_\d{3}$/)
  const now = Date.UTC(2026, 0, 2, 3, 4, 5)
  const wire = JSON.parse(
    encodeError(new ParlanceError('invalid_message', 'bad', { field: 'content', constraint: 'content type: string', sessionId: 's9' }), {
      ...view('conn_1'),
      now,
    }),
  ) as MyAgentEvent
  assert.equal(wire.event, 'error.validation')
  assert.equal(wire.timestamp, '2026-01-02T03:04:05.000Z', 'dated by the time the caller gives, not a clock')
  assert.equal(wire.session_id, 's9')
  assert.deepEqual(
    { ...wire.metadata },
    { error_code: 'ERR_VALIDATION_400', field: 'content', constraint: 'content type: string', recoverable: true, parlance_code: 'invalid_message' },
  )
  assert.equal(wire.metadata.seq, undefined)
})

test('a batch never changes the view it is given; what it learns is in the view it returns', () => {
  const v = view('conn_1', 'sess_1')
  const at = (body: EventBody, n: number) => ({ ...body, sessionId: 'sess_1', runId: 'run_1', seq: n, ts: T0 + n })
  const first = encode(
    [
      at({ type: 'message.user', messageId: 'u', content: 'q?' }, 1),
      at({ type: 'text.start', messageId: 'm' }, 2),
      at({ type: 'text.delta', messageId: 'm', delta: 'Hel' }, 3),
    ],
    v,
  )
  assert.deepEqual([v.question, v.texts.size], ['', 0], 'the input view is untouched')
  assert.equal(first.view.question, 'q?')
  const second = encode([at({ type: 'text.delta', messageId: 'm', delta: 'lo' }, 4), at({ type: 'text.end', messageId: 'm' }, 5)], first.view)
  assert.equal(first.view.texts.get('m')?.text, 'Hel', "the first batch's view is untouched by the second")
  const final = JSON.parse(second.frames.at(-1)!) as MyAgentEvent
  assert.deepEqual([final.event, (final.content as { answer: string }).answer], ['agent.final_answer', 'Hello'])
  assert.equal(second.view.texts.size, 0)
  const unchanged = encode([at({ type: 'tool.result', toolCallId: 't', toolName: 'x', result: 1 }, 6)], second.view)
  assert.equal(unchanged.view, second.view, 'a batch that learns nothing returns the same view')
})
