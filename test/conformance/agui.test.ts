// Seed conformance, AG-UI (issue 20): the seed (ag-ui-events.txt) documents the events of @ag-ui/core's
// EventType enum. The demo agent is driven through the official @ag-ui/client HttpAgent; every event is
// checked against @ag-ui/core's own Zod schema, the seed's start/end pairing rules are checked on the traffic,
// and docs/dialects/agui.md's "Seed conformance" table, which has a row for every EventType, is read: a row
// that does not say "not produced" must have been produced here.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { EventType, type BaseEvent } from '@ag-ui/core'
import { EventSchema } from '@ag-ui/core/schemas'
import { HttpAgent } from '@ag-ui/client'
import { startServer } from '../harness.js'

type Ev = BaseEvent & Record<string, unknown>

function docTable(): Map<string, string> {
  const doc = readFileSync(new URL('../../docs/dialects/agui.md', import.meta.url), 'utf8')
  const section = doc.slice(doc.indexOf('## Seed conformance'))
  return new Map([...section.matchAll(/^\| `([A-Z_]+)` \|(.*)\|$/gm)].map(([, type, rest]) => [type!, rest!]))
}

/**
 * One run through the official client; every event validated by @ag-ui/core's schema once the run has settled
 * (the client only logs what a subscriber throws). A RUN_ERROR ends the run without rejecting it, so any
 * rejection here is a failure.
 */
async function runOnce(agent: HttpAgent, text: string | null, params: Parameters<HttpAgent['runAgent']>[0] = {}): Promise<Ev[]> {
  if (text !== null) agent.addMessage({ id: randomUUID(), role: 'user', content: text })
  const events: Ev[] = []
  await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) })
  for (const event of events) {
    const parsed = EventSchema.safeParse(event)
    assert.ok(parsed.success, `${event.type} fails @ag-ui/core's schema: ${JSON.stringify(event)} ${parsed.error?.message ?? ''}`)
  }
  return events
}

test("AG-UI seed: every event the demo produces passes @ag-ui/core's schema, pairs open and close in order, and the doc table covers every EventType", async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const agent = new HttpAgent({ url: `${s.url}/agui`, threadId: randomUUID() })
  const runs: Ev[][] = []
  for (const text of ['hello there', 'weather in Paris', 'make a plan', 'set some state', 'fail please', 'send a burst'])
    runs.push(await runOnce(agent, text))
  // A client tool offered by the client: the run pauses for it; the result resumes a new run.
  const tools = [{ name: 'get_client_info', description: 'client facts', parameters: { type: 'object', properties: {} } }]
  const paused = await runOnce(agent, 'client info please', { tools })
  runs.push(paused)
  const call = paused.find((e) => e.type === EventType.TOOL_CALL_START)
  assert.ok(call, 'the client tool call is streamed')
  agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: String(call.toolCallId), content: '{"platform":"web"}' })
  runs.push(await runOnce(agent, null, { tools }))

  for (const run of runs) {
    assert.equal(run[0]!.type, EventType.RUN_STARTED, 'a run opens with RUN_STARTED')
    assert.ok([EventType.RUN_FINISHED, EventType.RUN_ERROR].includes(run.at(-1)!.type), 'and ends with RUN_FINISHED or RUN_ERROR')
    // Start/end pairs: content only between its START and END, every START ended.
    const open = { text: new Set<unknown>(), tool: new Set<unknown>(), step: new Set<unknown>() }
    for (const e of run) {
      if (e.type === EventType.TEXT_MESSAGE_START) open.text.add(e.messageId)
      if (e.type === EventType.TEXT_MESSAGE_CONTENT) assert.ok(open.text.has(e.messageId), 'TEXT_MESSAGE_CONTENT inside its message')
      if (e.type === EventType.TEXT_MESSAGE_END) assert.ok(open.text.delete(e.messageId), 'TEXT_MESSAGE_END of an open message')
      if (e.type === EventType.TOOL_CALL_START) open.tool.add(e.toolCallId)
      if (e.type === EventType.TOOL_CALL_ARGS) assert.ok(open.tool.has(e.toolCallId), 'TOOL_CALL_ARGS inside its call')
      if (e.type === EventType.TOOL_CALL_END) assert.ok(open.tool.delete(e.toolCallId), 'TOOL_CALL_END of an open call')
      if (e.type === EventType.STEP_STARTED) open.step.add(e.stepName)
      if (e.type === EventType.STEP_FINISHED) assert.ok(open.step.delete(e.stepName), 'STEP_FINISHED of a started step')
    }
    assert.deepEqual([open.text.size, open.tool.size, open.step.size], [0, 0, 0], 'everything opened was closed')
  }

  const produced = new Set(runs.flat().map((e) => e.type as string))
  const table = docTable()
  for (const type of Object.values(EventType)) {
    const row = table.get(type)
    assert.ok(row, `docs/dialects/agui.md's Seed conformance table has a row for ${type}`)
    if (!/not produced/.test(row))
      assert.ok(
        produced.has(type),
        `${type}: the doc says it is produced, so the demo traffic must have produced it (produced: ${[...produced].join(', ')})`,
      )
  }
})
