import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { HttpAgent } from '@ag-ui/client'
import { EventSchema } from '@ag-ui/core/schemas'

/**
 * One run through the official client: every event it received, each validated with @ag-ui/core's Zod schema.
 * The events are checked after the run settles: the client catches and only logs what a subscriber throws, so an
 * assertion inside `onEvent` could never fail the test.
 */
export async function run(
  agent: HttpAgent,
  text: string | null,
  params: Parameters<HttpAgent['runAgent']>[0] = {},
): Promise<Array<Record<string, unknown>>> {
  if (text !== null) agent.addMessage({ id: randomUUID(), role: 'user', content: text })
  const events: Array<Record<string, unknown>> = []
  await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) })
  assertSchema(events)
  return events
}

/** Every event passes @ag-ui/core's schema (call it once the run has settled, never inside a subscriber). */
export function assertSchema(events: ReadonlyArray<Record<string, unknown>>): void {
  for (const event of events) {
    const parsed = EventSchema.safeParse(event)
    assert.ok(parsed.success, `event fails @ag-ui/core's schema: ${JSON.stringify(event)} ${parsed.error?.message ?? ''}`)
  }
}

export const types = (events: Array<Record<string, unknown>>) => events.map((e) => String(e.type))
export const text = (events: Array<Record<string, unknown>>) =>
  events
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => String(e.delta))
    .join('')
export const custom = (events: Array<Record<string, unknown>>, name: string) =>
  events.filter((e) => e.type === 'CUSTOM' && e.name === name).map((e) => e.value)
export const last = (events: Array<Record<string, unknown>>) => events[events.length - 1]!

export function agentFor(url: string, threadId: string = randomUUID(), path = '/agui'): HttpAgent {
  return new HttpAgent({ url: `${url}${path}`, threadId })
}
