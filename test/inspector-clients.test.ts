// The client pieces the inspector relies on, in Node: AiSdkClient (send, approval, client tool) and every
// client's `tap`, which feeds the wire view with the frames as the dialect carries them.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AguiClient, AiSdkClient, HaiClient, HugaiClient, HumaClient, MyAgentClient, type AiSdkChunk } from '../src/client/index.js'
import { startServer } from './harness.js'

async function collect(stream: AsyncGenerator<AiSdkChunk>): Promise<AiSdkChunk[]> {
  const out: AiSdkChunk[] = []
  for await (const c of stream) out.push(c)
  return out
}

const text = (chunks: AiSdkChunk[]) => chunks.flatMap((c) => (c.type === 'text-delta' ? [String(c.delta)] : [])).join('')

test('AiSdkClient: a message streams, an approval and a client tool are answered by the next request', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const taps: Array<['in' | 'out', unknown]> = []
  const client = new AiSdkClient({ url: s.url, tap: (d, f) => taps.push([d, f]) })
  const chat = 'chat-inspector-1'

  const hello = await collect(client.send(chat, 'hello'))
  assert.equal(hello[0]?.type, 'start')
  assert.equal(text(hello), 'Echo: hello')
  assert.deepEqual(hello.at(-1), { type: 'finish', finishReason: 'stop' })
  assert.deepEqual(taps[0], [
    'out',
    {
      http: 'POST /api/chat',
      body: {
        id: chat,
        trigger: 'submit-message',
        messages: [
          {
            id: (taps[0]![1] as { body: { messages: Array<{ id: string }> } }).body.messages[0]!.id,
            role: 'user',
            parts: [{ type: 'text', text: 'hello' }],
          },
        ],
      },
    },
  ])
  assert.equal(taps.at(-1)?.[1], '[DONE]')

  const asked = await collect(client.send(chat, 'delete it'))
  const request = asked.find((c): c is Extract<AiSdkChunk, { type: 'tool-approval-request' }> => c.type === 'tool-approval-request')!
  const input = asked.find(
    (c): c is Extract<AiSdkChunk, { type: 'tool-input-available' }> => c.type === 'tool-input-available' && c.toolCallId === request.toolCallId,
  )!
  const done = await collect(
    client.approve(chat, { toolCallId: String(request.toolCallId), toolName: String(input.toolName), input: input.input }, true),
  )
  assert.match(text(done), /Done: deleted notes\/demo.txt/)

  const call = await collect(client.send(chat, 'client'))
  assert.deepEqual(call.at(-1), { type: 'finish', finishReason: 'tool-calls' })
  const tool = call.find((c) => c.type === 'tool-input-available')!
  const answered = await collect(
    client.toolOutput(chat, { toolCallId: String(tool.toolCallId), toolName: String(tool.toolName), input: tool.input }, { output: { os: 'node' } }),
  )
  assert.match(text(answered), /Client info: \{"os":"node"\}/)
})

test('every client taps the frames it sends and receives', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const seen = (taps: Array<['in' | 'out', unknown]>) => [taps.some(([d]) => d === 'out'), taps.some(([d]) => d === 'in')]

  const haiTaps: Array<['in' | 'out', unknown]> = []
  const hai = await HaiClient.connect({ url: s.url, tap: (d, f) => haiTaps.push([d, f]) })
  hai.say('hello')
  await hai.untilCompleted()
  hai.close()
  assert.deepEqual(seen(haiTaps), [true, true])
  assert.equal((haiTaps[0]![1] as { type: string }).type, 'user_message')

  const aguiTaps: Array<['in' | 'out', unknown]> = []
  const agui = new AguiClient({ url: s.url, tap: (d, f) => aguiTaps.push([d, f]) })
  for await (const _ of agui.run({ threadId: 'thread-tap', runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'hello' }] })) void _
  assert.deepEqual(seen(aguiTaps), [true, true])
  assert.equal((aguiTaps[0]![1] as { http: string }).http, 'POST /agui')

  const humaTaps: Array<['in' | 'out', unknown]> = []
  const huma = await HumaClient.connect({ url: s.url, tap: (d, f) => humaTaps.push([d, f]) })
  huma.contextUpdate('hello')
  await huma.nextMessaging('message_sent')
  huma.close()
  assert.deepEqual(seen(humaTaps), [true, true])
  assert.equal((humaTaps[0]![1] as { channel: string }).channel, 'session', 'the handshake reply is tapped too')

  const myTaps: Array<['in' | 'out', unknown]> = []
  const my = await MyAgentClient.connect({ url: s.url, tap: (d, f) => myTaps.push([d, f]) })
  await my.createSession()
  my.close()
  assert.deepEqual(seen(myTaps), [true, true])

  const rpcTaps: Array<['in' | 'out', unknown]> = []
  const rpc = await HugaiClient.connect({ url: s.url, tap: (d, f) => rpcTaps.push([d, f]) })
  await rpc.call('initialize', { processId: 1, agentId: 'tap-test', capabilities: {}, governanceLevel: 'supervised' })
  rpc.close()
  assert.deepEqual(seen(rpcTaps), [true, true])
})
