// Conversation control (issue 19) over MCP, with the official SDK's Client over StreamableHTTPClientTransport:
// an `ask_<agent>` call into a session whose run is active, under reject, enqueue and rollback.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Progress } from '@modelcontextprotocol/sdk/types.js'
import type { ServerOptions } from '../src/index.js'
import { gatedAgent } from './conversation-support.js'
import { startServer } from './harness.js'
import { waitFor } from './support/wait.js'

const gated = () => gatedAgent()

async function setup(t: { after(fn: () => Promise<void>): void }, opts: Partial<ServerOptions> = {}) {
  const g = gated()
  const s = await startServer({ agents: [g.agent], ...opts })
  t.after(() => s.close())
  const client = new Client({ name: 'parlance-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`)))
  t.after(() => client.close())
  const ask = (args: Record<string, unknown>, onprogress?: (p: Progress) => void, signal?: AbortSignal) =>
    client.callTool({ name: 'ask_gated', arguments: args }, undefined, { ...(onprogress ? { onprogress } : {}), ...(signal ? { signal } : {}) })
  return { g, s, client, ask }
}

type Out = { sessionId: string; runId: string | null; status: string; code?: string; details?: { activeRunId?: string } }
const textOf = (r: unknown) => (r as { content: Array<{ text?: string }> }).content.map((c) => c.text ?? '').join('')
const out = (r: unknown) => (r as { structuredContent: Out }).structuredContent

test('the tool lists onBusy in its input schema; a value outside the four is refused', async (t) => {
  const { client, ask } = await setup(t)
  const { tools } = await client.listTools()
  const onBusy = (tools[0]!.inputSchema.properties as Record<string, { enum?: string[] }>).onBusy
  assert.deepEqual(onBusy?.enum, ['interrupt', 'enqueue', 'reject', 'rollback'])
  const bad = await ask({ message: 'x', onBusy: 'later' }).catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }))
  assert.equal(bad.isError, true)
  assert.match(textOf(bad), /onBusy/)
})

test('reject: a call into a busy session is a tool error (busy, the active run named); the active run answers once', async (t) => {
  const { g, s, ask } = await setup(t)
  const first = ask({ message: 'one', sessionId: 'mcp-reject' })
  await g.started(1)
  const refused = await ask({ message: 'two', sessionId: 'mcp-reject', onBusy: 'reject' })
  assert.equal(refused.isError, true)
  assert.match(textOf(refused), /^busy: /)
  assert.deepEqual([out(refused).code, out(refused).details?.activeRunId], ['busy', (await s.stored('mcp-reject'))?.activeRunId])
  g.release()
  const r = await first
  assert.deepEqual([r.isError ?? false, textOf(r), out(r).status], [false, 'answer to one', 'completed'])
  assert.equal(g.seen.length, 1, 'the refused message started no run')
  assert.deepEqual(
    (await s.stored('mcp-reject'))!.messages.filter((m) => m.role === 'user').map((m) => m.content),
    ['one'],
  )
})

test('enqueue (server policy): the second call waits for its own queued run and answers with it', async (t) => {
  const { g, ask } = await setup(t, { onBusy: 'enqueue' })
  const first = ask({ message: 'one', sessionId: 'mcp-queue' })
  await g.started(1)
  let queued!: () => void
  const isQueued = new Promise<void>((r) => (queued = r))
  const second = ask({ message: 'two', sessionId: 'mcp-queue' }, (p) => p.message?.startsWith('queued') && queued())
  await isQueued
  assert.equal(g.seen.length, 1, 'the queued message has no run yet')
  g.release()
  const r1 = await first
  assert.equal(textOf(r1), 'answer to one')
  await g.started(2)
  g.release()
  const r2 = await second
  assert.deepEqual([r2.isError ?? false, textOf(r2), out(r2).status], [false, 'answer to two', 'completed'])
  assert.notEqual(out(r2).runId, out(r1).runId, 'each call answers with its own run')
  assert.deepEqual(g.seen[1], ['u:one', 'a:answer to one', 'u:two'])
})

test('rollback (per call): the active run ends interrupted and the next run does not see its turn', async (t) => {
  const { g, ask } = await setup(t)
  const first = ask({ message: 'one', sessionId: 'mcp-rollback' })
  await g.started(1)
  g.release()
  await first
  const second = ask({ message: 'two', sessionId: 'mcp-rollback' })
  await g.started(2)
  const third = ask({ message: 'three', sessionId: 'mcp-rollback', onBusy: 'rollback' })
  const r2 = await second
  assert.deepEqual([r2.isError, out(r2).code], [true, 'interrupted'])
  await g.started(3)
  assert.deepEqual(g.seen[2], ['u:one', 'a:answer to one', 'u:three'], 'run three does not see turn two')
  g.release()
  assert.equal(textOf(await third), 'answer to three')
})

test('cancelling a queued call withdraws its message: the agent never gets it, the active run goes on', async (t) => {
  const { g, s, ask } = await setup(t, { onBusy: 'enqueue' })
  const first = ask({ message: 'one', sessionId: 'mcp-withdraw' })
  await g.started(1)
  const abort = new AbortController()
  let queued!: () => void
  const isQueued = new Promise<void>((r) => (queued = r))
  const second = ask({ message: 'two', sessionId: 'mcp-withdraw' }, (p) => p.message?.startsWith('queued') && queued(), abort.signal)
  await isQueued
  abort.abort()
  await assert.rejects(second, /This operation was aborted/, 'the withdrawn call ends as aborted')
  const log = () => s.log('mcp-withdraw')
  // The withdrawal reaches the server as notifications/cancelled: wait for it in the log.
  await waitFor(async () => (await log()).some((e) => e.type === 'message.withdrawn'), { what: 'the queued message to be withdrawn' })
  g.release()
  assert.equal(textOf(await first), 'answer to one')
  assert.equal(g.seen.length, 1, 'the withdrawn message never ran')
})
