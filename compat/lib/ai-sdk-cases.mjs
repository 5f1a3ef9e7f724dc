// The cases of Parlance's aiSdkAgent on a given `ai` major (tests/ai-sdk-agent*.test.mjs): the real AI SDK with
// @ai-sdk/openai-compatible against the main suite's fake OpenAI-compatible server on loopback, the agent served
// by Parlance and driven over AG-UI by @ag-ui/client: a streamed reply, a server tool, an approval
// (needsApproval) approved and refused.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { HttpAgent } from '@ag-ui/client'
import { z } from 'zod'
import { load, startParlance } from './parlance.mjs'

/** `ai`: the package's exports (tool, …); `provider`: @ai-sdk/openai-compatible's; `aiSdkAgent` from Parlance. */
export function aiSdkCases(title, { ai, provider, aiSdkAgent }) {
  let llm
  let parlance
  const removed = []
  before(async () => {
    const { fakeOpenAI } = await load('test/support/fake-openai.ts')
    llm = await fakeOpenAI()
    const model = provider.createOpenAICompatible({ name: 'fakeai', baseURL: llm.url, apiKey: 'test' }).chatModel('fake-1')
    const tools = {
      get_weather: ai.tool({
        description: 'Current weather for a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => ({ city, temperature_c: 18 }),
      }),
      delete_file: ai.tool({
        description: 'Deletes a file',
        inputSchema: z.object({ name: z.string() }),
        needsApproval: true,
        execute: ({ name }) => {
          removed.push(name)
          return `deleted ${name}`
        },
      }),
    }
    parlance = await startParlance({ agents: [aiSdkAgent({ name: 'ai', model, tools, maxRetries: 0 })] })
  })
  after(async () => {
    await parlance?.close()
    await llm?.close()
  })

  async function run(agent, text, params = {}) {
    if (text !== null) agent.addMessage({ id: randomUUID(), role: 'user', content: text })
    const events = []
    await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) })
    assert.equal(events.at(-1)?.type, 'RUN_FINISHED', events.map((e) => e.type).join(' '))
    return events
  }
  const textOf = (events) =>
    events
      .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
      .map((e) => e.delta)
      .join('')
  const agent = () => new HttpAgent({ url: `${parlance.url}/agui/ai`, threadId: randomUUID() })

  describe(title, { concurrency: true }, () => {
    test('a streamed reply from the model', async () => {
      assert.equal(textOf(await run(agent(), 'hello model')), 'You said: hello model')
    })

    test('a server tool: the model calls it, the agent runs it, the model answers from its result', async () => {
      const events = await run(agent(), 'weather please')
      assert.ok(events.some((e) => e.type === 'TOOL_CALL_START' && e.toolCallName === 'get_weather'))
      assert.equal(textOf(events), 'The tool said: {"city":"Paris","temperature_c":18}')
    })

    for (const approved of [true, false]) {
      test(`needsApproval: an AG-UI interrupt; ${approved ? 'approved, the tool runs' : 'refused, it does not'}`, async () => {
        const a = agent()
        const name = `file-${randomUUID()}.txt`
        const asked = await run(a, `call:delete_file{"name":"${name}"}`)
        const outcome = asked.at(-1).outcome
        assert.equal(outcome?.type, 'interrupt', JSON.stringify(asked.at(-1)))
        const done = await run(a, null, { resume: [{ interruptId: outcome.interrupts[0].id, status: 'resolved', payload: { approved } }] })
        assert.equal(removed.includes(name), approved)
        if (approved) assert.equal(textOf(done), `The tool said: deleted ${name}`)
      })
    }
  })
}
