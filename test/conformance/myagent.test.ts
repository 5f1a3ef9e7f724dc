// Seed conformance, MyAgent (issue 20): the seed's client examples (src/dialects/myagent/fixtures/inbound/,
// verbatim; only ids that must name something real substituted) over a real WebSocket, the demo agent driven
// to produce the server events, every event's base fields and the seed fields of each produced type checked,
// the response chain and seq order checked on the traffic, and docs/dialects/myagent.md's "Seed conformance"
// table read: a row that does not say "not produced" must have been produced here.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { MyAgentClient, type MyAgentServerEvent } from '../../src/client/index.js'
import { startServer } from '../harness.js'

const INBOUND = new URL('../../src/dialects/myagent/fixtures/inbound/', import.meta.url)
const example = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`${name}.json`, INBOUND), 'utf8')) as Record<string, unknown>
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/
const answer = (e: MyAgentServerEvent) => e.event === 'agent.final_answer'

/** Seed fields of each server event this suite checks (content keys, metadata keys), from its TypeScript definitions. */
const SEED_FIELDS: Record<string, { content?: readonly string[]; contentType?: 'string' | 'null'; metadata: readonly string[] }> = {
  'plan.start': { content: ['question'], metadata: ['plan_id', 'timeout_seconds', 'model'] },
  'plan.completed': { content: ['tasks'], metadata: ['task_count', 'plan_summary', 'total_estimated_tokens', 'llm_calls', 'planning_time_ms'] },
  'plan.step_completed': { content: ['step_name', 'step_result'], metadata: ['step_index', 'step_duration_ms', 'tokens_used'] },
  'solver.start': { metadata: ['task_count'] },
  'solver.progress': {
    content: ['current_task', 'status'],
    metadata: ['progress_percent', 'current_step', 'completed_steps', 'total_steps', 'elapsed_time_ms'],
  },
  'solver.completed': {
    content: ['task_results'],
    metadata: ['total_tasks', 'successful_tasks', 'failed_tasks', 'total_execution_time_ms', 'total_tokens_used'],
  },
  'solver.step_failed': { content: ['error_message', 'step_name'], metadata: ['step_index', 'error_code', 'error_type', 'recovery_possible'] },
  'agent.thinking': { contentType: 'string', metadata: ['model', 'max_tokens', 'temperature', 'thinking_type'] },
  'agent.tool_call': { content: ['tool_name', 'tool_description', 'arguments'], metadata: ['call_id', 'tool_type'] },
  'agent.tool_result': { content: ['result', 'status'], metadata: ['call_id', 'execution_time_ms'] },
  'agent.partial_answer': { contentType: 'string', metadata: ['chunk_index'] },
  'agent.final_answer': { content: ['answer', 'answer_type'], metadata: ['generation_time_ms', 'total_tokens_used', 'model'] },
  'agent.user_confirm': { content: ['message', 'confirmation_type', 'options'], metadata: ['timeout_seconds', 'critical'] },
  'system.connected': { content: ['server_version', 'server_time'], metadata: ['server_uptime_seconds', 'active_sessions'] },
  'system.heartbeat': { metadata: ['seq', 'server_uptime_seconds'] },
  'error.validation': { contentType: 'string', metadata: ['error_code', 'recoverable'] },
  'error.timeout': {
    contentType: 'string',
    metadata: ['error_code', 'timeout_seconds', 'elapsed_seconds', 'stage', 'attempt', 'max_attempts', 'retry_after_ms', 'recovery_strategy'],
  },
  'error.execution': { contentType: 'string', metadata: ['error_code', 'error_type', 'context', 'recoverable'] },
}

function docTable(): Map<string, string> {
  const doc = readFileSync(new URL('../../docs/dialects/myagent.md', import.meta.url), 'utf8')
  const section = doc.slice(doc.indexOf('## Seed conformance'), doc.indexOf('## Reliable delivery'))
  return new Map([...section.matchAll(/^\| `([a-z_.]+)` \| ([^|]+) \|(.*)\|$/gm)].map(([, type, dir, rest]) => [type!, `${dir!}|${rest!}`]))
}

test("MyAgent seed: client examples verbatim, every produced event in the seed's shape, the chain and seqs in order, the doc table honoured", async (t) => {
  const s = await startServer({ secret: 'conformance', limits: { heartbeatMs: 200, approvalTimeoutMs: 1_500 } })
  t.after(() => s.close())
  const c = await MyAgentClient.connect({ url: s.url })
  t.after(() => c.close())

  // user.create_session, verbatim.
  c.send(example('user_create_session'))
  const created = await c.next('agent.session_created')
  const sessionId = created.session_id!
  c.sessionId = sessionId
  // user.message, verbatim but for the session it names.
  c.send({ ...example('user_message'), session_id: sessionId })
  await c.next(answer)
  for (const text of ['make a plan', 'weather in Paris', 'fail please']) {
    c.message(text)
    await c.next(text.startsWith('fail') ? (e) => e.event === 'error.execution' : answer, 15_000)
  }
  // user.response, verbatim but for the step it answers.
  c.message('delete the notes')
  const confirm = await c.next('agent.user_confirm')
  c.send({ ...example('user_response'), session_id: sessionId, step_id: confirm.step_id })
  assert.match(((await c.next(answer)).content as { answer: string }).answer, /^Done: deleted/)
  // An unanswered confirmation times out.
  c.message('delete it again')
  await c.next('agent.user_confirm')
  await c.next('error.timeout', 10_000)
  await c.next(answer)
  // user.ack (a last_seq the session has), then a heartbeat reports it.
  const acked = c.lastSeq
  c.send({ ...example('user_ack'), session_id: sessionId, content: { last_seq: acked } })
  const beat = await c.next((e) => e.event === 'system.heartbeat' && e.metadata.acked_seq === acked)
  assert.ok((beat.metadata.seq as number) >= acked)
  // user.cancel, verbatim but for the session, during a stream: the turn ends with a final answer, no error.
  c.message('slow')
  await c.next('agent.partial_answer')
  const beforeCancel = c.received.length
  c.send({ ...example('user_cancel'), session_id: sessionId })
  await c.next(answer)
  assert.ok(!c.received.slice(beforeCancel).some((e) => e.event.startsWith('error.')))
  // Bad input.
  c.send({})
  await c.next('error.validation')
  // user.request_state, then user.reconnect_with_state on a second connection: valid, then tampered.
  const signed = await c.requestState()
  const d = await MyAgentClient.connect({ url: s.url })
  t.after(() => d.close())
  d.reconnectWithState(signed, c.lastSeq)
  await d.next('error.recovery_started')
  await d.next('error.recovery_success')
  d.reconnectWithState(`${signed.slice(0, -4)}AAAA`, c.lastSeq)
  await d.next('error.recovery_failed')
  // user.reconnect, verbatim but for the session and a last_seq it has: exactly what came after.
  const e = await MyAgentClient.connect({ url: s.url })
  t.after(() => e.close())
  const after = c.lastSeq - 3
  e.send({ ...example('user_reconnect'), content: { session_id: sessionId, last_seq: after } })
  const resumed = await e.next((x) => x.event === 'system.connected' && x.metadata.resumed === true)
  assert.ok(resumed)
  await e.next((x) => x.metadata.seq === c.lastSeq)
  const seqsOf = (events: MyAgentServerEvent[]) =>
    events.flatMap((x) => (typeof x.metadata.seq === 'number' && x.event !== 'system.heartbeat' ? [x.metadata.seq] : []))
  assert.deepEqual(
    seqsOf(e.received),
    seqsOf(c.received).filter((q) => q > after),
    'exactly the events after last_seq, as the first connection got them',
  )

  const all = [...c.received, ...d.received, ...e.received]
  for (const ev of all) {
    assert.match(ev.timestamp, ISO, `${ev.event}: timestamp`)
    assert.ok(typeof ev.connection_id === 'string' && 'content' in ev && typeof ev.metadata === 'object', `${ev.event}: base fields`)
    const want = SEED_FIELDS[ev.event]
    if (!want) continue
    if (want.contentType === 'string') assert.equal(typeof ev.content, 'string', `${ev.event}: content is a string`)
    for (const k of want.content ?? [])
      assert.ok(ev.content !== null && typeof ev.content === 'object' && k in ev.content, `${ev.event}: content.${k} (${JSON.stringify(ev.content)})`)
    for (const k of want.metadata) assert.ok(k in ev.metadata, `${ev.event}: metadata.${k} (${JSON.stringify(ev.metadata)})`)
  }
  // The response chain of a plan: plan.start → plan.completed → solver.start → … → solver.completed → agent.final_answer.
  const names = c.received.map((x) => x.event)
  const p = names.indexOf('plan.start')
  assert.deepEqual(names.slice(p, p + 3), ['plan.start', 'plan.completed', 'solver.start'])
  const solverDone = names.indexOf('solver.completed', p)
  assert.equal(names[names.indexOf('agent.final_answer', p)], 'agent.final_answer')
  assert.ok(solverDone < names.indexOf('agent.final_answer', p), 'solver.completed before the final answer')
  const seqs = c.received.flatMap((x) => (typeof x.metadata.seq === 'number' && x.event !== 'system.heartbeat' ? [x.metadata.seq] : []))
  for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! > seqs[i - 1]!, 'seqs increase')

  const produced = new Set<string>(all.map((x) => x.event))
  const table = docTable()
  assert.ok(table.size >= 35, `the table lists the seed's events (${table.size})`)
  for (const [type, row] of table) {
    if (row.startsWith('client → server') || /not produced/.test(row)) continue
    assert.ok(produced.has(type), `${type}: the doc says it is produced, so this traffic must have produced it`)
  }
})
