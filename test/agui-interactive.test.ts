import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { EventSchema } from '@ag-ui/core/schemas'
import { AguiClient, type AguiReceived } from '../src/client/index.js'
import { startServer } from './harness.js'
import { agentFor, custom, last, run, text } from './agui-support.js'
import { waitFor } from './support/wait.js'

test('frontend tool: the run ends with the pending call; the next run carrying the tool message resumes the agent', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const agent = agentFor(s.url)
  const tools = [{ name: 'get_client_info', description: 'Information about the client', parameters: { type: 'object', properties: {} } }]
  const first = await run(agent, 'client', { tools })
  const call = first.find((e) => e.type === 'TOOL_CALL_START')!
  assert.equal(call.toolCallName, 'get_client_info')
  assert.deepEqual(last(first).outcome, { type: 'success' }) // the call has no result: the client's (no pendingToolCallIds, which AG-UI 0.0.x rejects)
  // The client runs the tool and sends its result as a tool message, AG-UI style.
  agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: String(call.toolCallId), content: JSON.stringify({ browser: 'test', width: 1280 }) })
  const second = await run(agent, null, { tools })
  assert.equal(text(second), 'Client info: {"browser":"test","width":1280}')
  assert.equal(last(second).type, 'RUN_FINISHED')
  // A third turn does not re-send the tool result or rewrite history.
  await run(agent, 'thanks')
  assert.equal((await s.log(agent.threadId)).filter((e) => e.type === 'messages.snapshot').length, 0)
})

test('a client tool answered after clientToolTimeoutMs: the run already ended with timeout; the late answer is an empty run and rewrites nothing', async (t) => {
  const s = await startServer({ limits: { clientToolTimeoutMs: 150 } })
  t.after(() => s.close())
  const agent = agentFor(s.url)
  const tools = [{ name: 'get_client_info', description: 'Information about the client', parameters: { type: 'object', properties: {} } }]
  const first = await run(agent, 'client', { tools })
  const callId = String(first.find((e) => e.type === 'TOOL_CALL_START')!.toolCallId)
  // The run gives up waiting after clientToolTimeoutMs: its end is recorded.
  await waitFor(async () => (await s.log(agent.threadId)).some((e) => e.type === 'run.error'), {
    what: 'the run to give up waiting for the client tool',
  })
  assert.equal((await s.stored(agent.threadId))?.activeRunId, null, 'the run gave up waiting')
  agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: callId, content: '{"late":true}' })
  const late = await run(agent, null, { tools })
  assert.deepEqual(
    late.map((e) => e.type),
    ['RUN_STARTED', 'RUN_FINISHED'],
  )
  const log = await s.log(agent.threadId)
  const timedOut = log.find((e) => e.type === 'tool.error')
  assert.match(timedOut?.type === 'tool.error' ? timedOut.error : '', /within 150 ms/)
  assert.equal(
    log.filter((e) => e.type === 'messages.snapshot' || e.type === 'tool.result').length,
    0,
    'the late answer neither rewrote history nor counted as a result',
  )
  assert.equal(log.filter((e) => e.type === 'run.error' && e.code === 'timeout').length, 1)
})

for (const approved of [true, false]) {
  test(`approval across runs (interrupt and resume): ${approved ? 'approved → the tool runs' : 'rejected → it does not'}`, async (t) => {
    const s = await startServer()
    t.after(() => s.close())
    const agent = agentFor(s.url)
    const first = await run(agent, 'delete the notes')
    const request = custom(first, 'parlance.approval_requested')[0] as { approvalId: string; toolName: string; risk: string }
    assert.equal(request.toolName, 'delete_file')
    assert.equal(request.risk, 'high')
    const outcome = last(first).outcome as { type: string; interrupts: Array<{ id: string; reason: string }> }
    assert.equal(outcome.type, 'interrupt')
    assert.equal(outcome.interrupts[0]!.id, request.approvalId)
    const second = await run(agent, null, {
      resume: [{ interruptId: request.approvalId, status: 'resolved', payload: { approved, feedback: approved ? undefined : 'keep it' } }],
    })
    assert.equal((custom(second, 'parlance.approval_resolved')[0] as { approved: boolean }).approved, approved)
    assert.match(text(second), approved ? /Done: deleted notes\/demo\.txt/ : /Not approved.*keep it/)
    assert.equal(
      second.some((e) => e.type === 'TOOL_CALL_START'),
      approved,
    )
  })
}

async function collect(gen: AsyncGenerator<AguiReceived>, until?: (r: AguiReceived, n: number) => boolean): Promise<AguiReceived[]> {
  const out: AguiReceived[] = []
  for await (const r of gen) {
    assert.ok(EventSchema.safeParse(r.event).success, `invalid AG-UI event ${JSON.stringify(r.event)}`)
    out.push(r)
    if (until?.(r, out.length)) break
  }
  return out
}

test('resume: a stream dropped mid "count 2000" continues from Last-Event-ID with every seq exactly once', async (t) => {
  const s = await startServer({ store: 'sqlite' })
  t.after(async () => {
    await s.close()
    s.removeData()
  })
  const client = new AguiClient({ url: s.url })
  const threadId = randomUUID()
  const ac = new AbortController()
  const first = await collect(
    client.run({ threadId, runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'count 2000' }] }, ac.signal),
    (_r, n) => n >= 300,
  )
  ac.abort()
  const lastId = client.lastIds.get(threadId)!
  assert.ok(lastId > 0)
  // Half by GET …/events?after=, half by POST with Last-Event-ID: both resume the same way.
  const rest = await collect(client.resume(threadId, lastId))
  const ids = [...first, ...rest].flatMap((r) => (r.id === undefined ? [] : [r.id]))
  for (let i = 1; i < ids.length; i++) assert.equal(ids[i], ids[i - 1]! + 1, `seq ${ids[i]} follows ${ids[i - 1]}`)
  const deltas = [...first, ...rest].flatMap((r) => (r.event.type === 'TEXT_MESSAGE_CONTENT' ? [r.event.delta] : []))
  assert.equal(deltas.length, 2000)
  assert.equal(deltas.join(''), Array.from({ length: 2000 }, (_, i) => `${i + 1} `).join(''))
  assert.equal(rest[0]!.event.type, 'RUN_STARTED')
  assert.equal(rest.at(-1)!.event.type, 'RUN_FINISHED')

  const res = await fetch(`${s.url}/agui`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'last-event-id': String(lastId) },
    body: JSON.stringify({ threadId, runId: 'r1', messages: [] }),
  })
  const body = await res.text()
  assert.equal(
    (body.match(/"TEXT_MESSAGE_CONTENT"/g) ?? []).length,
    deltas.length - first.filter((r) => r.event.type === 'TEXT_MESSAGE_CONTENT').length,
  )
})

test('a client that disconnects does not stop the run; cancel ends an active run with outcome cancelled', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const client = new AguiClient({ url: s.url })
  const threadId = randomUUID()
  const ac = new AbortController()
  await collect(
    client.run({ threadId, runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'slow' }] }, ac.signal),
    (r) => r.event.type === 'TEXT_MESSAGE_CONTENT',
  )
  // The node serving the stream (on a cluster, whichever the balancer chose, writer or not) holds its subscriber.
  const serving = await waitFor(
    () => s.nodes.flatMap((n) => [...n.sessions.loadedSessions()]).find((x) => x.id === threadId && x.subscriberCount === 1),
    { what: 'the node serving the stream' },
  )
  ac.abort()
  // That node has seen the client leave, and the run still streams after that.
  await waitFor(() => serving.subscriberCount === 0, { what: 'the server to drop the aborted stream' })
  const left = (await s.log(threadId)).at(-1)!.seq
  await waitFor(async () => (await s.log(threadId)).some((e) => e.seq > left && e.type === 'text.delta'), {
    what: 'a text delta after the client left',
  })
  assert.ok((await s.stored(threadId))?.activeRunId, 'the run goes on without its client')
  const watching = collect(client.resume(threadId))
  await client.cancel(threadId)
  const events = await watching
  const last = events.at(-1)!.event
  assert.equal(last.type, 'RUN_FINISHED')
  assert.deepEqual(last.type === 'RUN_FINISHED' ? last.outcome : null, { type: 'cancelled' })
  assert.equal((await s.stored(threadId))?.activeRunId, null)
  const again = await fetch(`${s.url}/agui/threads/${threadId}/cancel`, { method: 'POST' })
  assert.equal(again.status, 404)
})

test('bad input: 400 naming the field, 415 for another media type, 413 over the body limit; the server stays up', async (t) => {
  const s = await startServer({ limits: { maxFrameBytes: 64 * 1024 } })
  t.after(() => s.close())
  const post = (body: string, type = 'application/json') => fetch(`${s.url}/agui`, { method: 'POST', headers: { 'content-type': type }, body })
  const cases: Array<[string, string]> = [
    [JSON.stringify({ runId: 'r', messages: [] }), 'threadId'],
    [JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'wizard', content: 'x' }] }), 'messages[0].role'],
    [JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'tool', content: 'x' }] }), 'messages[0].toolCallId'],
    [JSON.stringify({ threadId: 't', runId: 'r', messages: [], tools: [{ description: 'no name' }] }), 'tools[0].name'],
    ['{"threadId":"t","runId":"r","messages":[],"state":{"__proto__":{"x":1}}}', 'state.__proto__'],
  ]
  for (const [body, field] of cases) {
    const res = await post(body)
    assert.equal(res.status, 400, body)
    const err = ((await res.json()) as { error: { code: string; field: string; message: string } }).error
    assert.equal(err.field, field, `${body} → ${err.message}`)
  }
  const notJson = await post('{nope')
  assert.equal(notJson.status, 400)
  assert.equal(((await notJson.json()) as { error: { code: string } }).error.code, 'invalid_json')
  assert.equal((await post('{}', 'text/plain')).status, 415)
  const big = await post(JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'user', content: 'x'.repeat(70 * 1024) }] }))
  assert.equal(big.status, 413)
  assert.equal((await fetch(`${s.url}/agui`)).status, 405)
  const ok = await run(agentFor(s.url), 'still up')
  assert.equal(text(ok), 'Echo: still up')
})
