// (A2A, MCP) Streaming through the two agent protocols' official SDKs: Parlance's A2A and MCP endpoints against
// the same SDKs' own server pieces streaming the same events, measured with the same SDK clients, in one run.
import { join } from 'node:path'
import { interleaved } from './lib/interleave.js'
import { machine, rowOf, table, type BenchContext, type BenchResult, type Table } from './lib/result.js'

export const title = 'A2A and MCP streaming (official SDKs)'

export async function run(ctx: BenchContext): Promise<BenchResult> {
  // A2A: the SDK's reference server (its InMemoryTaskStore) deep-copies the task per update, so its cost per event
  // grows with the task; N is kept where its run takes seconds, not minutes. Parlance's no longer does (issue 50).
  const nA2a = ctx.quick ? 500 : 2_000
  const n = ctx.quick ? 2_000 : 20_000
  const samples = (o: { eventsPerSecond: number[] }) => o.eventsPerSecond
  const parlance = (store: 'memory' | 'sqlite', dir: string) => ({
    script: 'bench/servers/parlance.ts',
    args: store === 'memory' ? ['--store', 'memory'] : ['--store', 'sqlite', '--data', join(ctx.tmp, dir)],
  })
  const a2a = (path: string) => (port: number) => ({
    script: 'bench/load/a2a-stream.ts',
    args: [`http://127.0.0.1:${port}${path}`, String(nA2a), '1'],
  })
  const mcp = (port: number) => ({ script: 'bench/load/mcp-stream.ts', args: [`http://127.0.0.1:${port}/mcp`, String(n), '1'] })
  const a2aRows = await interleaved(ctx, [
    {
      name: 'A2A SDK reference server',
      server: { script: 'bench/servers/ref-a2a.ts', args: [] },
      load: a2a('/.well-known/agent-card.json'),
      samples,
    },
    { name: 'Parlance A2A, memory store', server: parlance('memory', ''), load: a2a('/a2a/demo/.well-known/agent-card.json'), samples },
    { name: 'Parlance A2A, SQLite store', server: parlance('sqlite', 'a2a'), load: a2a('/a2a/demo/.well-known/agent-card.json'), samples },
  ])
  const mcpRows = await interleaved(ctx, [
    { name: 'MCP SDK reference server', server: { script: 'bench/servers/ref-mcp.ts', args: [] }, load: mcp, samples },
    { name: 'Parlance MCP, memory store', server: parlance('memory', ''), load: mcp, samples },
    { name: 'Parlance MCP, SQLite store', server: parlance('sqlite', 'mcp'), load: mcp, samples },
  ])
  const tables: Table[] = [
    table(`A2A SendStreamingMessage, count ${nA2a.toLocaleString('en-US')}`, 'text chunks/s', true, a2aRows),
    table(`MCP tools/call with progress, count ${n.toLocaleString('en-US')}`, 'progress notifications/s', true, mcpRows),
  ]
  const ratio = (t: Table, name: string) => rowOf(t, name).ratio.toFixed(2)
  return {
    name: 'sdk-streams',
    title,
    command: `npm run bench -- sdk-streams${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { a2aEvents: nA2a, mcpEvents: n, repetitions: ctx.reps },
    description:
      'A2A: the `@a2a-js/sdk` client, built from the agent card, sends `count N` with `SendStreamingMessage` and counts the text artifact updates until the task completes. ' +
      "Baseline: the SDK's own `DefaultRequestHandler` + `JsonRpcTransportHandler` on node:http (bench/servers/ref-a2a.ts) with an executor publishing the same events (task, working, N appended chunks, last chunk, completed). " +
      'MCP: the `@modelcontextprotocol/sdk` Client over `StreamableHTTPClientTransport` calls `ask_demo` with `count N` and a progress token and counts the progress notifications until the result. ' +
      "Baseline: the SDK's own `McpServer` + `StreamableHTTPServerTransport` (bench/servers/ref-mcp.ts) with a tool sending the same notifications. Parlance runs the demo agent in both.",
    tables,
    targets: [
      {
        text: 'A2A streaming vs the SDK reference server (SQLite store; no number set)',
        measured: `${ratio(tables[0]!, 'Parlance A2A, SQLite store')}× (memory ${ratio(tables[0]!, 'Parlance A2A, memory store')}×)`,
        met: null,
      },
      {
        text: 'MCP progress vs the SDK reference server (SQLite store; no number set)',
        measured: `${ratio(tables[1]!, 'Parlance MCP, SQLite store')}× (memory ${ratio(tables[1]!, 'Parlance MCP, memory store')}×)`,
        met: null,
      },
    ],
    limits:
      "Both sides run the SDKs' own server pipelines (the A2A request handler's result manager and task store per event; the MCP transport's JSON-RPC framing per notification), so the ratio is what Parlance adds: the agent, the session log and its store commits, and the mapping of canonical events.",
    notes: [
      "The A2A figures fall as N grows on both sides alike (about 670 chunks/s at N = 500 in a quick run, about 270 at N = 2,000 here): the cost per event grows with the task the SDK's request handler keeps folding each update into, so the ratio, not the rate, is the comparison. " +
        "Since issue 50 Parlance's side keeps each update's cost flat (its task store no longer deep-copies the task per update; `npm run bench -- long-answer`); the reference server's still grows.",
    ],
  }
}
