// Type-level (issue 46): an MCP server's tools mix with AI SDK tools in `aiSdkAgent({ tools })`, as the README says;
// `npx tsc -p tsconfig.json` (the suite's type check) fails on `mixed` without the fix. The run-time half: the
// spread holds the tools alone (close is not enumerable) and close stays callable.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tool } from 'ai'
import { z } from 'zod'
import { aiSdkAgent } from '../src/agents/ai-sdk/index.js'
import type { McpTools } from '../src/agents/mcp/index.js'

const aiTools = { add: tool({ description: 'adds', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a + b }) }

/** The README's mix: compiles only if an `McpTools` spread is assignable to `aiSdkAgent`'s tools. */
function mixed(model: Parameters<typeof aiSdkAgent>[0]['model'], mcp: McpTools) {
  return aiSdkAgent({ model, tools: { ...aiTools, ...mcp } })
}

test('McpTools spreads into aiSdkAgent tools beside AI SDK tools (type-level), and close() stays typed', () => {
  const mcp = Object.defineProperty({ echo: { description: 'echoes', execute: (args: Record<string, unknown>) => args.text as string } }, 'close', {
    value: () => Promise.resolve(),
    enumerable: false,
  }) as unknown as McpTools
  assert.deepEqual(Object.keys({ ...aiTools, ...mcp }), ['add', 'echo'])
  assert.equal(typeof mcp.close, 'function')
  assert.equal(typeof mixed, 'function')
})
