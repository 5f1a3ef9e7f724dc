// The AG-UI bridge beyond the demo agent: reasoning and custom events, frontend tools offered by the bridge's
// own AG-UI client, and tools the bridge itself offers to the remote agent.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { HttpAgent } from '@ag-ui/client'
import { aguiBridgeAgent } from '../src/agents/agui/index.js'
import { textOf } from '../src/client/index.js'
import { defineAgent } from '../src/index.js'
import { startBridgePair, type BridgePair } from './agui-bridge-support.js'
import { last, run, text } from './agui-support.js'
import { startServer } from './harness.js'
import { watch } from './huma-support.js'

/** A remote agent that reasons, emits a custom event and, when offered, calls the frontend tool pick_color. */
const thinker = defineAgent({
  name: 'thinker',
  async run(ctx) {
    await ctx.think(['Let me ', 'think.'])
    await ctx.emit('mood', { happy: true })
    const color = ctx.input.clientTools.some((t) => t.name === 'pick_color') ? await ctx.callTool('pick_color', { palette: 'warm' }) : 'none'
    await ctx.say(`Thought about ${ctx.input.text}; color ${JSON.stringify(color)}`)
  },
})

let pair: BridgePair
before(async () => {
  pair = await startBridgePair({}, [thinker])
})
after(() => pair.close())

test('reasoning and custom events of the remote agent are relayed', async (t) => {
  const s = await startServer({ agents: [aguiBridgeAgent({ url: `${pair.remote.url}/agui/thinker` })] })
  t.after(() => s.close())
  const c = await s.hai()
  const w = await watch(s, c.sessionId)
  c.say('tea')
  assert.equal(textOf(await c.untilCompleted()), 'Thought about tea; color "none"')
  await w.runEnd()
  const reasoning = w.events.filter((e) => e.type === 'reasoning.delta').map((e) => (e.type === 'reasoning.delta' ? e.delta : ''))
  assert.deepEqual(reasoning, ['Let me ', 'think.'])
  assert.deepEqual(
    w.events.filter((e) => e.type.startsWith('reasoning.')).map((e) => e.type),
    ['reasoning.start', 'reasoning.delta', 'reasoning.delta', 'reasoning.end'],
  )
  const custom = w.events.find((e) => e.type === 'custom')
  assert.deepEqual(custom?.type === 'custom' ? [custom.name, custom.value] : null, ['mood', { happy: true }])
})

test('a frontend tool offered by an AG-UI client of the bridge is offered to the remote agent and answered through both', async (t) => {
  const s = await startServer({ agents: [aguiBridgeAgent({ url: `${pair.remote.url}/agui/thinker` })] })
  t.after(() => s.close())
  const client = new HttpAgent({ url: `${s.url}/agui`, threadId: randomUUID() })
  const tools = [
    { name: 'pick_color', description: 'Asks the user for a color', parameters: { type: 'object', properties: { palette: { type: 'string' } } } },
  ]
  const first = await run(client, 'paint', { tools })
  const call = first.find((e) => e.type === 'TOOL_CALL_START')!
  assert.equal(call.toolCallName, 'pick_color')
  assert.equal(first.find((e) => e.type === 'TOOL_CALL_ARGS')?.delta, '{"palette":"warm"}')
  assert.deepEqual(last(first).outcome, { type: 'success' }) // the call has no result: the client's (no pendingToolCallIds, which AG-UI 0.0.x rejects)
  client.addMessage({ id: randomUUID(), role: 'tool', toolCallId: String(call.toolCallId), content: '"red"' })
  const second = await run(client, null, { tools })
  assert.equal(text(second), 'Thought about paint; color "red"')
  assert.equal(last(second).type, 'RUN_FINISHED')
})

test('tools of the bridge itself: offered to the remote agent, run in the bridge when it calls them', async (t) => {
  const s = await startServer({
    agents: [
      aguiBridgeAgent({
        url: `${pair.remote.url}/agui/thinker`,
        tools: { pick_color: { description: 'Picks a color', execute: (args) => `blue (${String(args.palette)})` } },
      }),
    ],
  })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('the sky')
  const msgs = await c.untilCompleted()
  const start = msgs.find((m) => m.type === 'tool_call_start')
  assert.deepEqual(start?.type === 'tool_call_start' ? [start.tool_name, start.parameters, start.metadata?.target] : null, [
    'pick_color',
    { palette: 'warm' },
    'server',
  ])
  assert.equal(textOf(msgs), 'Thought about the sky; color "blue (warm)"')
})

/**
 * A minimal third-party AG-UI server (not Parlance): chunk events, a server tool with its result inside a
 * step, a frontend tool it leaves pending without naming it (RUN_FINISHED without an outcome), then an answer
 * built from the tool message of the follow-up run.
 */
async function scriptedAgui(): Promise<{ url: string; inputs: Array<Record<string, unknown>>; close(): Promise<void> }> {
  const inputs: Array<Record<string, unknown>> = []
  const server = createHttpServer(
    (req, res) =>
      void (async () => {
        let body = ''
        for await (const c of req) body += c
        const input = JSON.parse(body) as { threadId: string; runId: string; messages: Array<{ role: string; content?: string }> }
        inputs.push(input)
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        const send = (e: Record<string, unknown>) => res.write(`data: ${JSON.stringify(e)}\n\n`)
        send({ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId })
        const lastMessage = input.messages[input.messages.length - 1]!
        if (lastMessage.role === 'tool') {
          send({ type: 'TEXT_MESSAGE_START', messageId: 'm2', role: 'assistant' })
          send({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: `User said: ${lastMessage.content}` })
          send({ type: 'TEXT_MESSAGE_END', messageId: 'm2' })
        } else {
          send({ type: 'TEXT_MESSAGE_CHUNK', messageId: 'm1', role: 'assistant', delta: 'Hel' })
          send({ type: 'TEXT_MESSAGE_CHUNK', messageId: 'm1', delta: 'lo' })
          send({ type: 'TOOL_CALL_START', toolCallId: 't1', toolCallName: 'search' })
          send({ type: 'TOOL_CALL_ARGS', toolCallId: 't1', delta: '{"q":' })
          send({ type: 'TOOL_CALL_ARGS', toolCallId: 't1', delta: '"x"}' })
          send({ type: 'TOOL_CALL_END', toolCallId: 't1' })
          send({ type: 'STEP_STARTED', stepName: 'searching' })
          send({ type: 'TOOL_CALL_RESULT', messageId: 'r1', toolCallId: 't1', role: 'tool', content: '{"hits":2}' })
          send({ type: 'STEP_FINISHED', stepName: 'searching' })
          send({ type: 'STATE_DELTA', delta: [{ op: 'add', path: '/searched', value: true }] })
          send({ type: 'TOOL_CALL_START', toolCallId: 't2', toolCallName: 'confirm_with_user' })
          send({ type: 'TOOL_CALL_ARGS', toolCallId: 't2', delta: '{"question":"ok?"}' })
          send({ type: 'TOOL_CALL_END', toolCallId: 't2' })
        }
        send({ type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId })
        res.end()
      })(),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/run`, inputs, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

test('a third-party AG-UI server: chunks, a server tool in a step, state, and a frontend tool it leaves pending', async (t) => {
  const remote = await scriptedAgui()
  t.after(() => remote.close())
  const s = await startServer({ agents: [aguiBridgeAgent({ url: remote.url })] })
  t.after(() => s.close())
  const c = await s.hai()
  const w = await watch(s, c.sessionId)
  c.say('go')
  const call = await c.next((m) => m.type === 'tool_call_start' && m.tool_name === 'confirm_with_user')
  assert.equal(call.type === 'tool_call_start' ? call.metadata?.target : null, 'client')
  assert.deepEqual(call.type === 'tool_call_start' ? call.parameters : null, { question: 'ok?' })
  c.toolResult(call.type === 'tool_call_start' ? call.tool_call_id : '', { result: 'yes' })
  await c.untilCompleted()
  const msgs = c.received
  assert.equal(textOf(msgs), 'HelloUser said: yes')
  const search = msgs.find((m) => m.type === 'tool_call_start' && m.tool_name === 'search')
  assert.deepEqual(search?.type === 'tool_call_start' ? [search.parameters, search.metadata?.target] : null, [{ q: 'x' }, 'server'])
  const searched = msgs.find((m) => m.type === 'tool_call_end' && m.tool_name === 'search')
  assert.equal(searched?.type === 'tool_call_end' ? searched.result : null, '{"hits":2}')
  await w.runEnd()
  assert.deepEqual(
    w.events.filter((e) => ['step.started', 'tool.call', 'tool.result', 'step.finished', 'state.delta'].includes(e.type)).map((e) => e.type),
    ['tool.call', 'step.started', 'tool.result', 'step.finished', 'state.delta', 'tool.call', 'tool.result'],
  )
  assert.deepEqual(w.session.model.state, { searched: true })
  // The follow-up run carried the remote's own tool call id and the client's answer, in the same thread.
  // The remote thread is the bridge's own id for the session, not the session id (issue 22): stable per session.
  const first = remote.inputs[0] as { threadId: string }
  const second = remote.inputs[1] as { threadId: string; messages: Array<{ role: string; toolCallId?: string; content?: string }> }
  assert.match(second.threadId, /^pl-[\w-]{32}$/)
  assert.notEqual(second.threadId, c.sessionId)
  assert.equal(second.threadId, first.threadId)
  assert.deepEqual(second.messages.at(-1), { ...second.messages.at(-1), role: 'tool', toolCallId: 't2', content: 'yes' })
})

test('remoteThreadId: the derived id is stable per session and bridge, "session" sends the session id itself', async (t) => {
  const remote = await scriptedAgui()
  t.after(() => remote.close())
  const derived = aguiBridgeAgent({ url: remote.url, name: 'derived', maxRounds: 1 })
  const asSession = aguiBridgeAgent({ url: remote.url, name: 'same', remoteThreadId: 'session', maxRounds: 1 })
  const s = await startServer({ agents: [derived, asSession] })
  t.after(() => s.close())
  const threads: string[] = []
  for (const agent of ['derived', 'derived', 'same']) {
    const c = await s.hai({ sessionId: 'fixed-session' })
    c.say('go', { agent })
    await c.next((m) => m.type === 'tool_call_start' && m.tool_name === 'confirm_with_user')
    threads.push((remote.inputs.at(-1) as { threadId: string }).threadId)
    c.cancel()
    await c.untilCompleted()
    c.close()
  }
  assert.equal(threads[0], threads[1], 'the same session keeps its remote thread')
  assert.notEqual(threads[0], 'fixed-session')
  assert.equal(threads[2], 'fixed-session')
  assert.throws(() => aguiBridgeAgent({ url: remote.url, remoteThreadId: 'other' as 'session' }), /remoteThreadId must be/)
})
