// `aguiAgent`: an `@ag-ui/client` AbstractAgent subclass served in-process, driven over HAI and over AG-UI (the
// official HttpAgent): a tool it calls that runs in this process, a client tool answered by the HAI client, a
// failing run, a cancelled run (the agent's observable is torn down), and the instance left as it was.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { AbstractAgent, EventType, HttpAgent, type BaseEvent, type RunAgentInput } from '@ag-ui/client'
import { Observable } from 'rxjs'
import { aguiAgent } from '../src/agents/agui/index.js'
import { HaiClient, textOf, type HaiServerMessage } from '../src/client/index.js'
import { run, text } from './agui-support.js'
import { startServer } from './harness.js'
import { startExample } from './support/run-example.js'
import { waitFor } from './support/wait.js'

/**
 * Asks for `lookup_weather` (or, for "where", the client's `get_location`) and, once the tool message is back, says
 * the forecast; "boom" fails its observable; "hang" streams a message and never ends until unsubscribed.
 */
class Forecaster extends AbstractAgent {
  /** Shared by every run's view of the agent (a field holding an object is not copied per run). */
  readonly seen = { teardowns: 0, runs: 0 }

  run(input: RunAgentInput): Observable<BaseEvent> {
    return new Observable<BaseEvent>((s) => {
      this.seen.runs++
      const emit = (e: Record<string, unknown>) => s.next(e as unknown as BaseEvent)
      const say = (delta: string) => {
        const messageId = randomUUID()
        emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' })
        emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta })
        emit({ type: EventType.TEXT_MESSAGE_END, messageId })
      }
      emit({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId })
      const last = input.messages.at(-1)
      const said = typeof last?.content === 'string' ? last.content : ''
      if (last?.role === 'tool') {
        say(`Forecast: ${said}`)
      } else if (said.includes('boom')) {
        s.error(new Error('the forecaster broke'))
        return
      } else if (said.includes('hang')) {
        say('thinking')
        return () => void this.seen.teardowns++
      } else {
        const toolCallId = randomUUID()
        emit({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: said.includes('where') ? 'get_location' : 'lookup_weather' })
        emit({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify({ city: 'Lima' }) })
        emit({ type: EventType.TOOL_CALL_END, toolCallId })
      }
      emit({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId })
      s.complete()
      return undefined
    })
  }
}

const tools = {
  lookup_weather: {
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
    execute: (args: Record<string, unknown>) => ({ city: String(args.city), temperature_c: 18 }),
  },
}
const of = <T extends HaiServerMessage['type']>(msgs: HaiServerMessage[], type: T) =>
  msgs.filter((m): m is Extract<HaiServerMessage, { type: T }> => m.type === type)

test('an AbstractAgent subclass served in-process: over HAI (in-process tool, client tool, run error, cancel) and over AG-UI (HttpAgent)', async (t) => {
  const forecaster = new Forecaster({ description: 'Weather forecasts' })
  const threadId = forecaster.threadId
  const s = await startServer({ agents: [aguiAgent(forecaster, { name: 'forecaster', tools })], exposeErrors: true })
  t.after(() => s.close())
  const c = await s.hai()

  // A tool of aguiAgent with execute: called by the agent, run here, its result back in a follow-up run.
  c.say('weather in Lima')
  let msgs = await c.untilCompleted()
  assert.deepEqual(
    of(msgs, 'tool_call_start').map((m) => [m.tool_name, m.parameters, m.metadata?.target]),
    [['lookup_weather', { city: 'Lima' }, 'server']],
  )
  assert.deepEqual(
    of(msgs, 'tool_call_end').map((m) => m.metadata?.result),
    [{ city: 'Lima', temperature_c: 18 }],
  )
  assert.equal(textOf(msgs), 'Forecast: {"city":"Lima","temperature_c":18}')

  // A tool nobody here declares: the Parlance client runs it.
  c.say('where am I?')
  const call = await c.next('tool_call_start')
  assert.deepEqual([call.tool_name, call.metadata?.target], ['get_location', 'client'])
  c.toolResult(call.tool_call_id, { result: { city: 'Lisbon' } })
  assert.equal(textOf(await c.untilCompleted()), 'Forecast: {"city":"Lisbon"}')

  // A failing run() is the run's error.
  c.say('boom')
  msgs = await c.untilCompleted()
  assert.deepEqual(
    of(msgs, 'error').map((m) => [m.error_code, m.message]),
    [['execution_error', 'the AG-UI agent forecaster failed: the forecaster broke']],
  )

  // Cancel: the agent's observable is unsubscribed (its teardown runs).
  c.say('hang')
  await c.next((m) => m.type === 'assistant_message_chunk')
  c.cancel()
  await waitFor(() => forecaster.seen.teardowns === 1, { what: "the agent's observable torn down after cancel" })

  // The same agent over AG-UI, through the official client.
  const client = new HttpAgent({ url: `${s.url}/agui`, threadId: randomUUID() })
  const events = await run(client, 'weather please')
  const started = events.find((e) => e.type === 'TOOL_CALL_START')
  assert.equal(started?.toolCallName, 'lookup_weather')
  assert.equal(
    events.find((e) => e.type === 'TOOL_CALL_RESULT' && e.toolCallId === started?.toolCallId)?.content,
    '{"city":"Lima","temperature_c":18}',
  )
  assert.equal(text(events), 'Forecast: {"city":"Lima","temperature_c":18}')

  // Every run drove a view of the instance: its own thread, messages and state are as they were.
  assert.deepEqual([forecaster.threadId, forecaster.messages, forecaster.state, forecaster.isRunning], [threadId, [], {}, false])
  assert.equal(forecaster.seen.runs, 8)
})

test('examples/agui-inprocess.ts: its AbstractAgent over HAI, with the tool it calls run in the example', async (t) => {
  const url = await startExample(t, 'agui-inprocess.ts')
  const c = await HaiClient.connect({ url })
  t.after(() => c.close())
  c.say('hello')
  assert.equal(textOf(await c.untilCompleted()), 'You said: hello')
  c.say('what is the weather?')
  const msgs = await c.untilCompleted()
  assert.deepEqual(
    of(msgs, 'tool_call_end').map((m) => [m.tool_name, m.metadata?.result]),
    [['lookup_weather', { city: 'Lima', temperature_c: 18 }]],
  )
  assert.equal(textOf(msgs), 'The tool says: {"city":"Lima","temperature_c":18}')
})
