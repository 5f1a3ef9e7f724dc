// The HAI client tests every bridge agent passes (the AG-UI bridge, the A2A bridge): a Parlance serving the demo
// agent, a second one serving it through the bridge, and a HAI client driving the second through the demo's
// behaviours. Each bridge's own file adds what only its protocol does.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { textOf, type HaiServerMessage } from '../src/client/index.js'
import type { StoredEvent } from '../src/index.js'
import { verifyHaiStream } from './hai-lifecycle.js'
import type { TestServer } from './harness.js'
import { watch } from './huma-support.js'
import { waitFor } from './support/wait.js'

/** What the suite needs of a bridge set-up. */
export interface BridgeUnderTest {
  /** As the bridge names its remote in errors ("the remote <label> agent failed"). */
  label: 'AG-UI' | 'A2A'
  bridge(): TestServer
  /** The log of the remote session serving the bridge session `sessionId`, once an event matching `pred` is in it. */
  remoteLog(sessionId: string, pred: (e: StoredEvent) => boolean): Promise<StoredEvent[]>
}

export const chunks = (msgs: HaiServerMessage[]) =>
  msgs.filter((m): m is Extract<HaiServerMessage, { type: 'assistant_message_chunk' }> => m.type === 'assistant_message_chunk' && !m.is_final)
export const of = <T extends HaiServerMessage['type']>(msgs: HaiServerMessage[], type: T) =>
  msgs.filter((m): m is Extract<HaiServerMessage, { type: T }> => m.type === type)

/** Defines the shared tests (call at a test file's top level). */
export function bridgeSuite(b: BridgeUnderTest): void {
  test('echo: the remote text arrives streamed, chunk by chunk, with its status; a second turn continues the conversation', async () => {
    const c = await b.bridge().hai()
    c.say('hello bridge')
    const msgs = await c.untilCompleted()
    verifyHaiStream(msgs)
    assert.equal(textOf(msgs), 'Echo: hello bridge')
    assert.ok(chunks(msgs).length >= 3, 'streamed in the remote chunks, not as one block')
    assert.deepEqual(of(msgs, 'status')[0], { ...of(msgs, 'status')[0], status: 'thinking', message: 'Assistant is thinking...' })
    c.say('and again')
    assert.equal(textOf(await c.untilCompleted()), 'Echo: and again')
  })

  test('weather: the remote server tool is relayed as a tool call with its arguments and result', async () => {
    const c = await b.bridge().hai()
    c.say('weather in Paris')
    const msgs = await c.untilCompleted()
    verifyHaiStream(msgs)
    const [start] = of(msgs, 'tool_call_start')
    assert.deepEqual([start?.tool_name, start?.parameters, start?.metadata?.target], ['get_weather', { city: 'Paris' }, 'server'])
    const [end] = of(msgs, 'tool_call_end')
    assert.equal(end?.tool_call_id, start?.tool_call_id)
    assert.deepEqual(JSON.parse(end!.result), { city: 'Paris', temperature_c: 18, conditions: 'cloudy' })
    assert.deepEqual(
      of(msgs, 'status').map((m) => [m.status, m.message]),
      [
        ['routing', 'Routing to the weather tool'],
        ['executing_tools', 'Looking up the weather in Paris'],
        ['completed', undefined],
      ],
    )
    assert.equal(textOf(msgs), 'The weather in Paris is cloudy at 18 °C.')
  })

  for (const approved of [true, false]) {
    test(`delete: the remote's approval becomes a HAI approval request; ${approved ? 'approving runs the tool' : 'rejecting (with feedback) does not'}`, async () => {
      const c = await b.bridge().hai()
      c.say('delete my notes')
      const req = await c.next('tool_approval_request')
      assert.deepEqual(
        [req.tool_name, req.parameters, req.risk_level, req.reasoning, req.tool_description],
        ['delete_file', { path: 'notes/demo.txt' }, 'high', 'You asked me to delete the demo notes file.', 'Deletes a file permanently'],
      )
      c.approve(req.approval_id, approved, approved ? undefined : 'keep it')
      const msgs = await c.untilCompleted()
      verifyHaiStream(c.received)
      if (approved) assert.equal(textOf(msgs), 'Done: deleted notes/demo.txt.')
      else assert.equal(textOf(msgs), 'Not approved, so notes/demo.txt was not deleted. (keep it)')
      // The remote run got the answer itself (the task's next message), not a new turn.
      const log = await b.remoteLog(c.sessionId, (e) => e.type === 'approval.resolved' && e.approved === approved)
      const resolved = log.find((e) => e.type === 'approval.resolved')
      assert.deepEqual(resolved?.type === 'approval.resolved' ? [resolved.approved, resolved.by] : null, [approved, 'user'])
      assert.equal(log.filter((e) => e.type === 'run.started').length, 1, 'one remote run')
    })
  }

  test('client: the remote client tool goes to the HAI client; its result goes back to the remote agent', async () => {
    const c = await b.bridge().hai()
    c.say('client info please')
    const call = await c.next('tool_call_start')
    assert.deepEqual([call.tool_name, call.parameters, call.metadata?.target], ['get_client_info', {}, 'client'])
    c.toolResult(call.tool_call_id, { result: { browser: 'hai-test', width: 1280 } })
    const msgs = await c.untilCompleted()
    verifyHaiStream(c.received)
    assert.equal(textOf(msgs), 'Client info: {"browser":"hai-test","width":1280}')
    const log = await b.remoteLog(c.sessionId, (e) => e.type === 'tool.result' && e.toolName === 'get_client_info')
    const result = log.find((e) => e.type === 'tool.result')
    assert.deepEqual(result?.type === 'tool.result' ? result.result : null, { browser: 'hai-test', width: 1280 })
  })

  test('client: a failing client tool is reported to the remote agent, whose run then fails', async () => {
    const c = await b.bridge().hai()
    c.say('client')
    const call = await c.next('tool_call_start')
    c.toolResult(call.tool_call_id, { error: 'no screen' })
    const msgs = await c.untilCompleted()
    const err = of(msgs, 'error')[0]
    assert.equal(err?.error_code, 'tool_error')
    assert.match(err.message, new RegExp(`the remote ${b.label} agent failed: .*no screen`))
  })

  test('plan: plan, steps and progress are relayed', async () => {
    const c = await b.bridge().hai()
    const w = await watch(b.bridge(), c.sessionId)
    c.say('make a plan')
    const msgs = await c.untilCompleted()
    verifyHaiStream(msgs)
    assert.deepEqual(
      of(msgs, 'status').map((m) => [m.status, m.message, (m as { progress?: number }).progress]),
      [
        ['thinking', 'Plan: Gather requirements → Draft the answer → Review', undefined],
        ['executing_tools', 'Gather requirements (1/3)', 33],
        ['executing_tools', 'Draft the answer (2/3)', 66],
        ['executing_tools', 'Review (3/3)', 100],
        ['completed', undefined, undefined],
      ],
    )
    assert.equal(textOf(msgs), 'The plan is complete: requirements gathered, answer drafted and reviewed.')
    await w.runEnd()
    const steps = w.events.filter((e) => e.type === 'step.started' || e.type === 'step.finished').map((e) => `${e.type}:${'name' in e ? e.name : ''}`)
    assert.deepEqual(
      steps,
      ['Gather requirements', 'Draft the answer', 'Review'].flatMap((n) => [`step.started:${n}`, `step.finished:${n}`]),
    )
    const plan = w.events.find((e) => e.type === 'plan')
    const progress = w.events.filter((e) => e.type === 'progress')
    assert.ok(plan?.type === 'plan')
    assert.deepEqual(
      progress.map((p) => (p.type === 'progress' ? [p.planId, p.taskId] : null)),
      plan.tasks.map((t) => [plan.planId, t.id]),
    )
  })

  test('interrupt: a new message while the remote streams stops it and answers the new one', async () => {
    const c = await b.bridge().hai()
    c.say('slow')
    await c.next('assistant_message_chunk')
    c.say('hello instead')
    const msgs = await c.untilCompleted()
    assert.equal(of(msgs, 'error')[0]?.error_code, 'interrupted')
    const next = await c.untilCompleted()
    verifyHaiStream(next)
    assert.equal(textOf(next), 'Echo: hello instead')
  })
}

/** Waits (up to 3 s) until `read` returns a log with an event matching `pred`. */
export async function logWith(read: () => Promise<StoredEvent[][]>, pred: (e: StoredEvent) => boolean): Promise<StoredEvent[]> {
  return waitFor(async () => (await read()).find((log) => log.some(pred)), {
    what: 'a remote session with such an event',
    timeoutMs: 3000,
    intervalMs: 50,
  })
}
