// The AG-UI bridge through the other dialects: MyAgent (plan, approval) and the AI SDK UI stream (server tool,
// client tool). HAI and HUMA have their own files.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai'
import { MyAgentClient, type MyAgentServerEvent } from '../src/client/index.js'
import { startBridgePair, type BridgePair } from './agui-bridge-support.js'

let pair: BridgePair
before(async () => {
  pair = await startBridgePair()
})
after(() => pair.close())

const answer = (e: MyAgentServerEvent) => e.event === 'agent.final_answer'

test('MyAgent: the remote plan arrives as plan and solver events; the remote approval as agent.user_confirm', async (t) => {
  const c = await MyAgentClient.connect({ url: pair.bridge.url })
  t.after(() => c.close())
  await c.createSession()
  c.message('make a plan')
  await c.next((e) => e.event === 'solver.completed')
  const events = c.received
  assert.deepEqual(
    events.filter((e) => e.event === 'solver.progress').map((e) => e.metadata.progress_percent),
    [33, 66, 100],
  )
  assert.deepEqual(((events.find((e) => e.event === 'plan.completed')?.content as { tasks: Array<Record<string, unknown>> }).tasks ?? []).length, 3)
  const final = events.find(answer) ?? (await c.next(answer))
  assert.equal((final.content as { answer: string }).answer, 'The plan is complete: requirements gathered, answer drafted and reviewed.')

  c.message('delete it')
  const confirm = await c.next('agent.user_confirm')
  assert.equal(confirm.metadata.critical, true)
  c.respond(confirm.step_id!, false, 'not today')
  const rejected = await c.next(answer)
  assert.equal((rejected.content as { answer: string }).answer, 'Not approved, so notes/demo.txt was not deleted. (not today)')
})

type Part = UIMessage['parts'][number] & Record<string, unknown>
const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })
const textOf = (m: UIMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')
const toolParts = (m: UIMessage) => m.parts.filter((p) => p.type === 'dynamic-tool') as Part[]

async function send(chatId: string, messages: UIMessage[], continueFrom?: UIMessage): Promise<UIMessage> {
  const transport = new DefaultChatTransport({ api: `${pair.bridge.url}/api/chat` })
  const stream = await transport.sendMessages({ chatId, trigger: 'submit-message', messageId: undefined, messages, abortSignal: undefined })
  let last: UIMessage | undefined
  for await (const m of readUIMessageStream({ stream, ...(continueFrom ? { message: continueFrom } : {}), terminateOnError: false })) last = m
  assert.ok(last)
  return last
}

test('AI SDK: the remote server tool is a tool part with its output; the remote frontend tool is answered by the next request', async () => {
  const weather = await send('bridge-chat-1', [user('u1', 'weather in Kyoto')])
  const [call] = toolParts(weather)
  assert.deepEqual(
    [call?.toolName, call?.state, call?.output],
    ['get_weather', 'output-available', { city: 'Kyoto', temperature_c: 18, conditions: 'cloudy' }],
  )
  assert.equal(textOf(weather), 'The weather in Kyoto is cloudy at 18 °C.')

  const first = await send('bridge-chat-2', [user('u1', 'client')])
  const pending = toolParts(first)[0]!
  assert.deepEqual([pending.toolName, pending.state], ['get_client_info', 'input-available'])
  const answered: UIMessage = {
    ...first,
    parts: first.parts.map((p) => (p === pending ? ({ ...pending, state: 'output-available', output: { os: 'aisdk' } } as never) : p)),
  }
  const second = await send('bridge-chat-2', [user('u1', 'client'), answered], answered)
  assert.match(textOf(second), /Client info: \{"os":"aisdk"\}/)
})
