// HugAI `tool/integration` reaching a configured integration: an MCP server's tools (`mcpTools`) given to
// `createServer({ integrations })`, driven over the HugAI client (WebSocket and HTTP) with the seed's own example.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mcpTools } from '../src/agents/mcp/index.js'
import { defineAgent } from '../src/index.js'
import { startMcpHttp } from './fixtures-mcp/server.js'
import { startServer } from './harness.js'
import { connect, post, rpcCode, seed, type RpcAnswer, type RpcResult } from './hugai-support.js'

/** An agent with no tools of its own: nothing but the integration can answer `ci-pipeline` / `run-tests`. */
const plain = defineAgent({ name: 'plain', run: async (ctx) => void (await ctx.say('ok')) })

test("tool/integration: the seed's ci-pipeline / run-tests reaches the configured MCP integration (progress and result as events); direct calls, tool errors, unknown actions and integrations; closed with the server", async (t) => {
  const mcp = await startMcpHttp()
  t.after(() => mcp.stop())
  const ci = await mcpTools({ url: mcp.url })
  const s = await startServer({ agents: [plain], integrations: { 'ci-pipeline': ci } })
  let closed = false
  t.after(() => (closed ? undefined : s.close()))
  const c = await connect(s)
  t.after(() => c.close())

  // §3.7 exactly as the seed writes it: callback "event" → accepted at once, then progress and the result as events.
  c.sendRaw(seed('tool-integration'))
  const accepted = (await c.nextRaw()) as RpcResult<{ accepted: boolean; invocationId: string; callback: string }>
  assert.equal(accepted.id, 5)
  assert.deepEqual([accepted.result.accepted, accepted.result.callback], [true, 'event'])
  const progress = []
  for (let i = 0; i < 3; i++) progress.push((await c.nextNotification((n) => n.params.event === 'tool-progress')).params.data)
  assert.deepEqual(
    progress.map((p) => [p!.invocationId, p!.percent, p!.message]),
    [
      [accepted.result.invocationId, 33, 'suite 1 of 3'],
      [accepted.result.invocationId, 67, 'suite 2 of 3'],
      [accepted.result.invocationId, 100, 'suite 3 of 3'],
    ],
  )
  const done = await c.nextNotification((n) => n.params.event === 'tool-result')
  assert.deepEqual(done.params.data, {
    invocationId: accepted.result.invocationId,
    tool: 'ci-pipeline',
    action: 'run-tests',
    status: 'success',
    result: { branch: 'feature-x', passed: 12, failed: 0 },
  })
  assert.deepEqual(mcp.log.calls, ['run-tests'], 'the MCP server ran it')

  // Without a callback: the result is the answer. A result marked isError is a tool error with the server's text.
  const echoed = await c.call<{ result: unknown; status: string }>('tool/integration', { tool: 'ci-pipeline', action: 'echo', data: { text: 'hi' } })
  assert.deepEqual([echoed.status, echoed.result], ['success', 'echo: hi'])
  await assert.rejects(
    c.call('tool/integration', { tool: 'ci-pipeline', action: 'fail' }),
    (e) => rpcCode(-32011)(e) && /the build is broken/.test(e.message),
  )
  // An integration without that action, and an unknown integration: not found (-32002), as before integrations.
  await assert.rejects(
    c.call('tool/integration', { tool: 'ci-pipeline', action: 'deploy' }),
    (e) => rpcCode(-32002)(e) && /integration ci-pipeline has no action deploy/.test(e.message),
  )
  await assert.rejects(c.call('tool/integration', { tool: 'jenkins', action: 'deploy' }), rpcCode(-32002))

  // Over HTTP the callback cannot be delivered: the seed's request is answered directly.
  const http = await post<RpcAnswer<{ result: unknown }>>(s, seed('tool-integration'))
  assert.deepEqual(http.body.result?.result, { branch: 'feature-x', passed: 12, failed: 0 })

  // Closing the server closes the integration's MCP connection.
  c.close()
  closed = true
  await s.close()
  await assert.rejects(Promise.resolve(ci.echo!.execute!({ text: 'late' }, undefined as never)), /were closed/)
})
