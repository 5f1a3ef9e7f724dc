// CopilotKit compatibility without CopilotKit (issue 35): CopilotKit 1.75 pins @ag-ui/client and @ag-ui/core
// 0.0.59, whose schemas are strict where 1.0's are not. The same flows a CopilotKit app runs — a reply, an
// approval interrupt answered, shared state, and a frontend tool that runs in the app and whose result the agent
// uses (the app adds the tool message and starts a follow-up run, as CopilotKit does) — driven with both the
// 0.0.59 HttpAgent (installed under the alias ag-ui-client-0059) and the 1.0 one, each event checked against
// that version's own schema. Events are collected in onEvent and checked after runAgent settles: the client
// catches what a subscriber throws, so an assertion inside onEvent could never fail a test.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { HttpAgent } from '@ag-ui/client'
import { EventSchema } from '@ag-ui/core/schemas'
import { EventSchemas as LegacyEventSchema, HttpAgent as LegacyHttpAgent } from 'ag-ui-client-0059'
import { startServer, type TestServer } from './harness.js'

type Event = Record<string, unknown>

/** What these tests use of either HttpAgent version. */
interface AnyAgent {
  readonly threadId: string
  readonly state: unknown
  readonly messages: ReadonlyArray<{ role: string; toolCalls?: Array<{ id: string; function: { name: string } }> }>
  addMessage(message: { id: string; role: 'user' | 'tool'; content: string; toolCallId?: string }): void
  runAgent(
    params?: Record<string, unknown>,
    subscriber?: { onEvent?(p: { event: Event }): void; onRunFailed?(p: { error: Error }): void },
  ): Promise<unknown>
}

const CLIENTS = [
  {
    version: '0.0.59 (pinned by CopilotKit 1.75)',
    agent: (url: string) => new LegacyHttpAgent({ url: `${url}/agui`, threadId: randomUUID() }) as unknown as AnyAgent,
    schema: LegacyEventSchema as { safeParse(e: unknown): { success: boolean; error?: { message: string } } },
  },
  {
    version: '1.0',
    agent: (url: string) => new HttpAgent({ url: `${url}/agui`, threadId: randomUUID() }) as unknown as AnyAgent,
    schema: EventSchema as { safeParse(e: unknown): { success: boolean; error?: { message: string } } },
  },
]

/** The frontend tool the app offers, as CopilotKit's useFrontendTool sends it. */
const TOOLS = [{ name: 'get_client_info', description: 'Information about the client', parameters: { type: 'object', properties: {} } }]

/** One run: every event the client handed to onEvent, and the error the run failed with, if any. */
async function run(
  agent: AnyAgent,
  text: string | null,
  params: Record<string, unknown> = {},
): Promise<{ events: Event[]; failure: string | undefined }> {
  if (text !== null) agent.addMessage({ id: randomUUID(), role: 'user', content: text })
  const events: Event[] = []
  let failure: string | undefined
  await agent
    .runAgent(params, {
      onEvent: ({ event }) => void events.push(event),
      onRunFailed: ({ error }) => void (failure = error.message),
    })
    .catch((err: Error) => void (failure ??= err.message))
  return { events, failure }
}

const textOf = (events: Event[]) =>
  events
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => String(e.delta))
    .join('')

let server: TestServer

before(async () => {
  server = await startServer()
})

after(() => server.close())

for (const client of CLIENTS) {
  describe(`@ag-ui/client ${client.version}`, { concurrency: true }, () => {
    /** The run ended well: no failure, no RUN_ERROR, RUN_FINISHED last, every event valid for this version's schema. */
    const assertClean = ({ events, failure }: { events: Event[]; failure: string | undefined }) => {
      assert.equal(failure, undefined, `the run failed: ${failure}`)
      assert.deepEqual(
        events.filter((e) => e.type === 'RUN_ERROR'),
        [],
      )
      assert.equal(events.at(-1)?.type, 'RUN_FINISHED', events.map((e) => e.type).join(' '))
      for (const e of events) {
        const parsed = client.schema.safeParse(e)
        assert.ok(parsed.success, `${client.version} rejects ${JSON.stringify(e)}: ${parsed.error?.message ?? ''}`)
      }
    }

    test('a reply', async () => {
      const r = await run(client.agent(server.url), 'hello copilot')
      assertClean(r)
      assert.equal(textOf(r.events), 'Echo: hello copilot')
    })

    test('an approval interrupt, answered with approve in the next run', async () => {
      const agent = client.agent(server.url)
      const first = await run(agent, 'delete the notes')
      assertClean(first)
      const outcome = first.events.at(-1)!.outcome as { type: string; interrupts: Array<{ id: string }> }
      assert.equal(outcome.type, 'interrupt')
      const second = await run(agent, null, { resume: [{ interruptId: outcome.interrupts[0]!.id, status: 'resolved', payload: { approved: true } }] })
      assertClean(second)
      assert.equal(textOf(second.events), 'Done: deleted notes/demo.txt.')
    })

    // CopilotKit answers an interrupt in a new request that reuses the interrupted run's runId (issue 44): that
    // request is a resume, not a retry of the finished run, and `status: "cancelled"` refuses the approval.
    for (const [status, said] of [
      ['resolved', 'Done: deleted notes/demo.txt.'],
      ['cancelled', 'Not approved, so notes/demo.txt was not deleted.'],
    ] as const) {
      test(`an approval answered ${status} in a request reusing the interrupted run's runId, as CopilotKit does`, async () => {
        const agent = client.agent(server.url)
        const first = await run(agent, 'delete the notes', { runId: 'copilot-run-1' })
        assertClean(first)
        const outcome = first.events.at(-1)!.outcome as { type: string; interrupts: Array<{ id: string }> }
        assert.equal(outcome.type, 'interrupt')
        const resume = [{ interruptId: outcome.interrupts[0]!.id, status, ...(status === 'resolved' ? { payload: { approved: true } } : {}) }]
        const second = await run(agent, null, { runId: 'copilot-run-1', resume })
        assertClean(second)
        assert.equal(textOf(second.events), said)
        assert.equal((second.events.at(-1)!.outcome as { type: string } | undefined)?.type ?? 'success', 'success')
        // The thread is usable afterwards: the next message gets its answer.
        const third = await run(agent, 'hello after the approval')
        assertClean(third)
        assert.equal(textOf(third.events), 'Echo: hello after the approval')
      })
    }

    test('two approvals in one thread, each answered in a request that reuses its run id', async () => {
      const agent = client.agent(server.url)
      for (const [i, approved] of [true, false].entries()) {
        const runId = `copilot-two-${i}`
        const asked = await run(agent, `delete the notes (${i})`, { runId })
        assertClean(asked)
        const outcome = asked.events.at(-1)!.outcome as { type: string; interrupts: Array<{ id: string }> }
        assert.equal(outcome.type, 'interrupt', `approval ${i} asked`)
        const answered = await run(agent, null, {
          runId,
          resume: [{ interruptId: outcome.interrupts[0]!.id, status: 'resolved', payload: { approved } }],
        })
        assertClean(answered)
        assert.equal(textOf(answered.events), approved ? 'Done: deleted notes/demo.txt.' : 'Not approved, so notes/demo.txt was not deleted.')
      }
    })

    test("shared state: the agent's snapshot and delta reach agent.state, and the next run sends it back unchanged", async () => {
      const agent = client.agent(server.url)
      const first = await run(agent, 'state')
      assertClean(first)
      assert.deepEqual(
        first.events.filter((e) => String(e.type).startsWith('STATE_')).map((e) => e.type),
        ['STATE_SNAPSHOT', 'STATE_DELTA'],
      )
      assert.deepEqual(agent.state, { counter: 1 })
      const second = await run(agent, 'hello again')
      assertClean(second)
      assert.equal(textOf(second.events), 'Echo: hello again')
      assert.deepEqual(agent.state, { counter: 1 })
    })

    test('a frontend tool: the run ends at the call, the app runs it and sends the result in a follow-up run, the agent uses it', async () => {
      const agent = client.agent(server.url)
      const first = await run(agent, 'client', { tools: TOOLS })
      assertClean(first)
      const start = first.events.find((e) => e.type === 'TOOL_CALL_START')
      assert.equal(start?.toolCallName, 'get_client_info')
      // What CopilotKit does next: the call is in the agent's messages; the handler's result goes in as a tool message.
      const call = agent.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.id === start?.toolCallId)
      assert.equal(call?.function.name, 'get_client_info', 'the client recorded the call')
      agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: call.id, content: JSON.stringify({ app: 'copilot', version: client.version }) })
      const second = await run(agent, null, { tools: TOOLS })
      assertClean(second)
      assert.equal(textOf(second.events), `Client info: ${JSON.stringify({ app: 'copilot', version: client.version })}`)
    })
  })
}
