// OpenTelemetry traces of a turn (issue 38, item 4), with an in-memory SDK registered in this process: an AG-UI
// HTTP turn carrying a W3C traceparent continues that trace (request span → run span → approval wait and tool
// call), and a HAI socket frame that starts work gets a request span of its own.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { HttpAgent } from '@ag-ui/client'
import { exporter, inboundTrace, parentOf, span, spans } from './telemetry-support.js'
import { startServer } from './harness.js'
import { run } from './agui-support.js'

test("an AG-UI turn with a traceparent: request span in that trace, run span its child, approval and tool spans the run's", async (t) => {
  exporter.reset()
  const s = await startServer()
  t.after(() => s.close())
  const inbound = inboundTrace()
  const threadId = randomUUID()
  const agent = new HttpAgent({ url: `${s.url}/agui`, threadId, headers: { traceparent: inbound.traceparent } })
  // The AG-UI response ends when the run pauses for the approval; a HAI client on the same session answers it.
  await run(agent, 'please delete my notes')
  const hai = await s.hai({ sessionId: threadId, resumeAfter: 0 })
  const asked = await hai.next('tool_approval_request')
  hai.approve(asked.approval_id, true)
  const start = await hai.next('tool_call_start')

  const runSpan = await span('invoke_agent demo', (x) => x.name === 'invoke_agent demo' && x.attributes['parlance.session.id'] === threadId)
  const request = await span('parlance.request agui', (x) => x.name === 'parlance.request agui' && x.spanContext().traceId === inbound.traceId)
  assert.equal(request.kind, SpanKind.SERVER)
  assert.equal(parentOf(request), inbound.spanId, 'the request span is the child of the inbound span')
  assert.equal(request.attributes['parlance.dialect'], 'agui')
  assert.equal(request.attributes['parlance.session.id'], threadId)
  assert.equal(request.attributes['parlance.agent'], 'demo')
  assert.equal(request.attributes['parlance.command'], 'user.message')
  assert.equal(request.attributes['http.request.method'], 'POST')

  assert.equal(runSpan.spanContext().traceId, inbound.traceId)
  assert.equal(parentOf(runSpan), request.spanContext().spanId, "the run span is the request span's child")
  assert.equal(runSpan.attributes['gen_ai.operation.name'], 'invoke_agent')
  assert.equal(runSpan.attributes['gen_ai.agent.name'], 'demo')
  assert.match(String(runSpan.attributes['parlance.run.id']), /^run_/)
  assert.equal(runSpan.attributes['parlance.run.outcome'], 'finished')
  assert.equal(runSpan.status.code, SpanStatusCode.UNSET)

  const approval = await span(
    'parlance.approval delete_file',
    (x) => x.name === 'parlance.approval delete_file' && x.spanContext().traceId === inbound.traceId,
  )
  assert.equal(parentOf(approval), runSpan.spanContext().spanId)
  assert.equal(approval.attributes['parlance.approval.id'], asked.approval_id)
  assert.equal(approval.attributes['parlance.approval.approved'], true)
  assert.equal(approval.attributes['parlance.approval.by'], 'user')
  assert.equal(approval.attributes['gen_ai.tool.name'], 'delete_file')

  const tool = await span('execute_tool delete_file', (x) => x.name === 'execute_tool delete_file' && x.spanContext().traceId === inbound.traceId)
  assert.equal(parentOf(tool), runSpan.spanContext().spanId)
  assert.equal(tool.attributes['gen_ai.operation.name'], 'execute_tool')
  assert.equal(tool.attributes['gen_ai.tool.name'], 'delete_file')
  assert.equal(tool.attributes['gen_ai.tool.call.id'], start.tool_call_id)
  assert.equal(tool.attributes['gen_ai.tool.type'], 'extension', 'run by the agent side')
  assert.equal(tool.status.code, SpanStatusCode.UNSET)

  // The approval answer came over the HAI socket: a request span of its own (a new trace), naming the session.
  const answer = await span(
    'parlance.request hai (approval.response)',
    (x) => x.name === 'parlance.request hai' && x.attributes['parlance.command'] === 'approval.response',
  )
  assert.notEqual(answer.spanContext().traceId, inbound.traceId)
  assert.equal(parentOf(answer), '')
  assert.equal(answer.attributes['parlance.session.id'], threadId)
})

test("a failing tool ends its span as an error; a failed run's span says how it ended", async (t) => {
  exporter.reset()
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('fail please')
  await c.untilCompleted()
  const runSpan = await span(
    'invoke_agent demo (failed)',
    (x) => x.name === 'invoke_agent demo' && x.attributes['parlance.session.id'] === c.sessionId,
  )
  assert.equal(runSpan.attributes['parlance.run.outcome'], 'execution_error')
  assert.equal(runSpan.status.code, SpanStatusCode.ERROR)
  const request = await span(
    'parlance.request hai (user.message)',
    (x) => x.name === 'parlance.request hai' && x.attributes['parlance.command'] === 'user.message',
  )
  assert.equal(parentOf(runSpan), request.spanContext().spanId, "the socket frame's span is the run's parent")
  const tool = await span('execute_tool flaky_tool', (x) => x.name === 'execute_tool flaky_tool')
  assert.equal(tool.status.code, SpanStatusCode.ERROR)
  assert.match(String(tool.status.message), /flaky_tool is out of order/)
  assert.equal(tool.attributes['error.type'], 'tool_error')
  assert.equal(parentOf(tool), runSpan.spanContext().spanId)
})

test('a cancelled run ends its span cancelled; the cancel frame has its own request span', async (t) => {
  exporter.reset()
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('slow')
  await c.next('assistant_message_chunk')
  c.cancel()
  await c.untilCompleted()
  const runSpan = await span(
    'invoke_agent demo (cancelled)',
    (x) => x.name === 'invoke_agent demo' && x.attributes['parlance.session.id'] === c.sessionId,
  )
  assert.equal(runSpan.attributes['parlance.run.outcome'], 'cancelled')
  assert.equal(runSpan.status.code, SpanStatusCode.ERROR)
  const cancel = await span(
    'parlance.request hai (run.cancel)',
    (x) => x.name === 'parlance.request hai' && x.attributes['parlance.command'] === 'run.cancel',
  )
  assert.equal(cancel.attributes['parlance.session.id'], c.sessionId)
  // Acks and other frames that start no work make no span: only the two frames sent are here.
  assert.deepEqual(
    spans()
      .filter((x) => x.name === 'parlance.request hai')
      .map((x) => x.attributes['parlance.command'])
      .sort(),
    ['run.cancel', 'user.message'],
  )
})

test("a client tool's span lasts from the call to the client's result, which comes in a request span of its own", async (t) => {
  exporter.reset()
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('ask the client')
  const start = await c.next('tool_call_start')
  c.toolResult(start.tool_call_id, { result: { browser: 'test' } })
  await c.untilCompleted()
  const tool = await span('execute_tool get_client_info', (x) => x.name === 'execute_tool get_client_info')
  assert.equal(tool.attributes['gen_ai.tool.call.id'], start.tool_call_id)
  assert.equal(tool.attributes['gen_ai.tool.type'], 'function', 'run by the client')
  assert.equal(tool.attributes['parlance.tool.target'], 'client')
  assert.equal(tool.status.code, SpanStatusCode.UNSET)
  const runSpan = await span('invoke_agent demo', (x) => x.name === 'invoke_agent demo' && x.attributes['parlance.session.id'] === c.sessionId)
  assert.equal(parentOf(tool), runSpan.spanContext().spanId)
  const result = await span(
    'parlance.request hai (tool.result)',
    (x) => x.name === 'parlance.request hai' && x.attributes['parlance.command'] === 'tool.result',
  )
  assert.equal(result.attributes['parlance.session.id'], c.sessionId)
})
