// An AG-UI agent that runs in this process — an @ag-ui/client AbstractAgent subclass, as LangGraph, Mastra and
// others ship theirs — served over every Parlance dialect, with a tool it calls that runs here.
// Run: npx tsx examples/agui-inprocess.ts
import { randomUUID } from 'node:crypto'
import { AbstractAgent, EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/client'
import { Observable } from 'rxjs'
import { createServer } from 'parlance-gateway'
import { aguiAgent } from 'parlance-gateway/agents/agui'

/** Asks for the `lookup_weather` tool when the user mentions the weather, then reports what it returned. */
class WeatherAgent extends AbstractAgent {
  run(input: RunAgentInput): Observable<BaseEvent> {
    return new Observable<BaseEvent>((subscriber) => {
      const emit = (event: object) => subscriber.next(event as BaseEvent)
      emit({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId })
      const last = input.messages.at(-1)
      const said = typeof last?.content === 'string' ? last.content : ''
      if (last?.role === 'user' && said.includes('weather')) {
        const toolCallId = randomUUID()
        emit({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: 'lookup_weather' })
        emit({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify({ city: 'Lima' }) })
        emit({ type: EventType.TOOL_CALL_END, toolCallId })
      } else {
        const messageId = randomUUID()
        const reply = last?.role === 'tool' ? `The tool says: ${said}` : `You said: ${said}`
        emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' })
        emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: reply })
        emit({ type: EventType.TEXT_MESSAGE_END, messageId })
      }
      emit({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId })
      subscriber.complete()
    })
  }
}

const agent = aguiAgent(new WeatherAgent(), {
  name: 'weather',
  // Offered to the agent as frontend tools; with execute they run here (without, the Parlance client runs them).
  tools: { lookup_weather: { description: 'Weather of a city', execute: (args) => ({ city: String(args.city), temperature_c: 18 }) } },
})

const server = await createServer({ agents: [agent] })
const url = await server.listen(Number(process.env.PORT ?? 8000))
console.log(`inspector: ${url}/ (open it in a browser)  HAI: ${url.replace('http', 'ws')}/ws  AG-UI: POST ${url}/agui`)
