// With no OpenTelemetry SDK registered (Parlance's default: it depends on @opentelemetry/api only), tracing does
// nothing visible: no trace context leaves for a bridged agent even when the front end sent one, and turns,
// tools and approvals behave as always. This file registers nothing (unlike the other telemetry tests).
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { trace } from '@opentelemetry/api'
import { HttpAgent } from '@ag-ui/client'
import { aguiBridgeAgent } from '../src/agents/agui/index.js'
import { startServer } from './harness.js'
import { run, text } from './agui-support.js'
import { aguiRemote } from './telemetry-remote.js'

test('no SDK: an inbound traceparent is not passed on to a bridged AG-UI agent; the turn works', async (t) => {
  assert.equal(trace.getTracer('probe').startSpan('probe').isRecording(), false, 'no SDK is registered in this process')
  const remote = await aguiRemote(t)
  const bridge = await startServer({ agents: [aguiBridgeAgent({ url: remote.url, cancelUrl: false })] })
  t.after(() => bridge.close())
  const traceparent = `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`
  const events = await run(new HttpAgent({ url: `${bridge.url}/agui`, threadId: randomUUID(), headers: { traceparent } }), 'hi')
  assert.equal(text(events), 'hello from afar')
  assert.equal(remote.seen.length, 1)
  assert.equal(remote.seen[0]!.traceparent, undefined)
  assert.equal(remote.seen[0]!.tracestate, undefined)
})

test('no SDK: an approval and a tool call run as always', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('please delete my notes')
  const asked = await c.next('tool_approval_request')
  c.approve(asked.approval_id, true)
  const msgs = await c.untilCompleted()
  const end = msgs.find((m) => m.type === 'tool_call_end')
  assert.ok(end?.type === 'tool_call_end')
  assert.equal(end.result, 'deleted notes/demo.txt')
})
