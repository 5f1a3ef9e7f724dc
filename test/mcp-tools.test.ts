// `mcpTools`: an MCP server's tools (a server built with the MCP SDK over streamable HTTP and over stdio, and
// Parlance's own /mcp) used by a Parlance agent, driven by a HAI client: progress, results, tool errors, cancel,
// and a connection that drops when the MCP server restarts.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mcpTools, type McpTools } from '../src/agents/mcp/index.js'
import { HaiClient, textOf } from '../src/client/index.js'
import { defineAgent, type AgentDefinition, type Json } from '../src/index.js'
import { startMcpHttp } from './fixtures-mcp/server.js'
import { startServer } from './harness.js'
import { seed, type RpcAnswer } from './hugai-support.js'
import { fakeOpenAI } from './support/fake-openai.js'
import { spawnServe } from './support/serve-process.js'
import { startExample } from './support/run-example.js'
import { waitFor } from './support/wait.js'
import { tsNodeArgs } from './support/node-args.js'

/** An agent that calls the tool named by the message (`tool arg`) and says what came back, or the tool's error. */
function caller(tools: McpTools, name = 'caller'): AgentDefinition {
  return defineAgent({
    name,
    tools,
    async run(ctx) {
      const [tool = '', ...rest] = ctx.input.text.split(' ')
      const arg = rest.join(' ')
      const base = tool.replace(/^ci_/, '')
      const args: Record<string, Json> =
        base === 'run-tests' ? { branch: arg } : base === 'echo' ? { text: arg } : base === 'ask_demo' ? { message: arg } : {}
      try {
        const result = await ctx.callTool(tool, args)
        await ctx.say(`result: ${typeof result === 'string' ? result : JSON.stringify(result)}`)
      } catch (err) {
        if (ctx.signal.aborted) throw err
        await ctx.say(`error: ${(err as Error).message}`)
      }
    },
  })
}

test('mcpTools over streamable HTTP: schema, progress reaching a HAI client, structured result, tool error, cancel, and a restarted server (the next call reconnects)', async (t) => {
  let mcp = await startMcpHttp()
  t.after(() => mcp.stop())
  const tools = await mcpTools({ url: mcp.url })
  t.after(() => tools.close())
  assert.deepEqual(Object.keys(tools), ['run-tests', 'echo', 'fail', 'wait'])
  assert.equal(tools['run-tests']!.description, 'Runs the test suite of a branch')
  assert.deepEqual((tools['run-tests']!.parameters as { required: string[] }).required, ['branch'])

  const s = await startServer({ agents: [caller(tools)] })
  t.after(() => s.close())
  const c = await s.hai()

  c.say('run-tests main')
  let msgs = await c.untilCompleted()
  const progress = msgs.flatMap((m) => (m.type === 'status' && typeof m.progress === 'number' ? [[m.progress, m.message]] : []))
  assert.deepEqual(progress, [
    [33, 'suite 1 of 3'],
    [67, 'suite 2 of 3'],
    [100, 'suite 3 of 3'],
  ])
  const end = msgs.find((m) => m.type === 'tool_call_end')
  assert.deepEqual(end?.type === 'tool_call_end' ? end.metadata?.result : null, { branch: 'main', passed: 12, failed: 0 })
  assert.equal(
    msgs.findIndex((m) => m.type === 'tool_call_end') > msgs.findIndex((m) => m.type === 'status' && m.progress === 100),
    true,
    'progress comes before the result',
  )
  assert.equal(textOf(msgs), 'result: {"branch":"main","passed":12,"failed":0}')

  // isError: a tool error the run reports (tool_call_error), and the agent sees the server's text.
  c.say('fail')
  msgs = await c.untilCompleted()
  const failed = msgs.find((m) => m.type === 'tool_call_error')
  assert.equal(failed?.type === 'tool_call_error' ? failed.error : null, 'the build is broken')
  assert.equal(textOf(msgs), 'error: tool fail failed: the build is broken')

  // Cancelling the run cancels the MCP call (notifications/cancelled reaches the server).
  c.say('wait')
  await c.next('tool_call_start')
  await waitFor(() => mcp.log.calls.includes('wait'), { what: 'the wait call at the MCP server' })
  c.cancel()
  msgs = await c.untilCompleted()
  assert.equal(
    msgs.some((m) => m.type === 'tool_call_end'),
    false,
    'the cancelled call has no result',
  )
  await waitFor(() => mcp.log.cancelled === 1, { what: 'the MCP server to see the call cancelled' })

  // The MCP server restarts on the same port: it does not know the old session; the next call reconnects.
  const port = mcp.port
  await mcp.stop()
  mcp = await startMcpHttp(port)
  c.say('echo back again')
  msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'result: echo: back again')
  assert.deepEqual(mcp.log.calls, ['echo'], 'the restarted server ran it')
})

test('mcpTools over stdio: a child process MCP server (tools renamed with a prefix), its result, its tool error, a process that exits during a call (the next call starts it again); close() stops it', async (t) => {
  const tools = await mcpTools({ command: process.execPath, args: tsNodeArgs('test/fixtures-mcp/stdio.ts'), prefix: 'ci_' })
  let closed = false
  t.after(() => (closed ? undefined : tools.close()))
  assert.deepEqual(Object.keys(tools), ['ci_run-tests', 'ci_echo', 'ci_fail', 'ci_wait', 'ci_crash'])
  const s = await startServer({ agents: [caller(tools)] })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('ci_echo over stdio')
  assert.equal(textOf(await c.untilCompleted()), 'result: echo: over stdio')
  c.say('ci_fail')
  assert.equal(textOf(await c.untilCompleted()), 'error: tool ci_fail failed: the build is broken')
  c.say('ci_crash')
  assert.match(
    textOf(await c.untilCompleted()),
    /^error: tool ci_crash failed: the connection to the MCP server .*stdio\.[jt]s dropped during the call$/,
  )
  c.say('ci_echo after the crash')
  // The call first starts the server process again (seconds on a loaded machine).
  assert.equal(textOf(await c.untilCompleted(60_000)), 'result: echo: after the crash')
  await tools.close()
  closed = true
  c.say('ci_echo late')
  assert.match(textOf(await c.untilCompleted()), /^error: tool ci_echo failed: the MCP tools of .* were closed$/)
})

test("mcpTools on Parlance's own /mcp: a second Parlance server's ask_demo tool used by an agent of the first", async (t) => {
  const other = await startServer()
  t.after(() => other.close())
  const tools = await mcpTools({ url: `${other.url}/mcp` })
  t.after(() => tools.close())
  assert.ok(Object.hasOwn(tools, 'ask_demo'), `ask_demo among ${Object.keys(tools).join(', ')}`)
  const s = await startServer({ agents: [caller(tools)] })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('ask_demo what is the weather in Lima?')
  const msgs = await c.untilCompleted()
  const end = msgs.find((m) => m.type === 'tool_call_end')
  const result = (end?.type === 'tool_call_end' ? end.metadata?.result : null) as { text: string; structuredContent: { sessionId: string } } | null
  assert.equal(result?.text, 'The weather in Lima is cloudy at 18 °C.')
  assert.match(result.structuredContent.sessionId, /\S/)
  // The demo's progress (its run's events, reported by /mcp as progress) reached this run as progress.
  assert.ok(
    msgs.some((m) => m.type === 'status' && typeof m.progress === 'number'),
    'progress from the other server',
  )
})

test('parlance serve --agent openai --mcp URL --integration ci-pipeline=URL: the model calls the MCP tool; HugAI reaches the integration', async (t) => {
  const mcp = await startMcpHttp()
  t.after(() => mcp.stop())
  const llm = await fakeOpenAI()
  t.after(() => llm.close())
  // The spawned server reads them from its environment (a copy of this one); put them back for the other tests.
  const saved = { OPENAI_BASE_URL: process.env.OPENAI_BASE_URL, OPENAI_API_KEY: process.env.OPENAI_API_KEY }
  t.after(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  })
  process.env.OPENAI_BASE_URL = llm.url
  process.env.OPENAI_API_KEY = 'k'
  const served = await spawnServe(t, [
    '--store',
    'memory',
    '--agent',
    'openai',
    '--model',
    'fake-1',
    '--mcp',
    mcp.url,
    '--integration',
    `ci-pipeline=${mcp.url}`,
  ])
  const c = await HaiClient.connect({ url: `${served.url.replace('http', 'ws')}/ws` })
  t.after(() => c.close())
  c.say('call:echo{"text":"from the model"}')
  const msgs = await c.untilCompleted()
  assert.deepEqual(
    msgs.flatMap((m) => (m.type === 'tool_call_end' ? [[m.tool_name, m.result]] : [])),
    [['echo', 'echo: from the model']],
  )
  assert.equal(textOf(msgs), 'The tool said: echo: from the model')
  const offered = (llm.requests[0]?.tools ?? []) as Array<{ function: { name: string } }>
  assert.deepEqual(
    offered.map((f) => f.function.name),
    ['run-tests', 'echo', 'fail', 'wait'],
    'the MCP tools were offered to the model',
  )
  const res = await fetch(`${served.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(seed('tool-integration')),
  })
  const answer = (await res.json()) as RpcAnswer<{ result: unknown }>
  assert.deepEqual(answer.result?.result, { branch: 'feature-x', passed: 12, failed: 0 })
  assert.deepEqual(mcp.log.calls, ['echo', 'run-tests'])
})

test("examples/mcp-tools.ts: an OpenAI-compatible model calling the MCP server's tools, over HAI", async (t) => {
  const mcp = await startMcpHttp()
  t.after(() => mcp.stop())
  const llm = await fakeOpenAI()
  t.after(() => llm.close())
  const url = await startExample(t, 'mcp-tools.ts', { MCP_URL: mcp.url, OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'k', MODEL: 'fake-1' })
  const c = await HaiClient.connect({ url })
  t.after(() => c.close())
  c.say('call:echo{"text":"example"}')
  const msgs = await c.untilCompleted()
  assert.deepEqual(
    msgs.flatMap((m) => (m.type === 'tool_call_end' ? [[m.tool_name, m.result]] : [])),
    [['echo', 'echo: example']],
  )
  assert.equal(textOf(msgs), 'The tool said: echo: example')
})
