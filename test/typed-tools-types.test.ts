/**
 * Type-level test: `tsc -p tsconfig.json` checks this file; each `@ts-expect-error` proves that a wrong use
 * fails to compile (an unneeded one is itself an error). At run time it only defines the agents.
 */
/* eslint-disable @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call -- the @ts-expect-error lines are wrong on purpose */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { z } from 'zod'
import { defineAgent, tool, type Json, type StandardSchemaV1, type ToolDefinition } from '../src/index.js'

interface Found {
  item: string
  count?: number
}

const agent = defineAgent({
  name: 'typed-types',
  tools: {
    find: {
      inputSchema: z.object({ item: z.string(), limit: z.number().optional() }),
      // Arguments typed from the schema; a result with optional fields (not `Json`) is fine.
      execute: ({ item, limit }): Found => ({ item, count: limit }),
    },
    ask: { description: 'a client tool', inputSchema: z.object({ question: z.string() }) },
    raw: { parameters: { type: 'object' }, execute: (args) => Object.keys(args).length },
  },
  async run(ctx) {
    const found = await ctx.callTool('find', { item: 'pen' })
    const item: string = found.item
    const count: number | undefined = found.count
    const answer: Json = await ctx.callTool('ask', { question: 'why?' })
    const n: number = await ctx.callTool('raw', { anything: true })
    // @ts-expect-error `item` must be a string
    await ctx.callTool('find', { item: 1 })
    // @ts-expect-error `item` is required
    await ctx.callTool('find', {})
    // @ts-expect-error the client tool's `question` must be a string
    await ctx.callTool('ask', { question: 1 })
    // @ts-expect-error the result is a Found, which has no `missing`
    void found.missing
    // A tool the client offered at run time: any name the agent does not declare, result as you say.
    const other = await ctx.callTool<{ ok: boolean }>('client_only', { x: 1 })
    void [item, count, answer, n, other.ok]
  },
})

defineAgent({
  name: 'wrong-args',
  tools: {
    // @ts-expect-error execute's arguments come from the schema: `nope` is not one of them
    wrong: { inputSchema: z.object({ a: z.string() }), execute: ({ nope }) => nope },
  },
  run() {},
})
defineAgent({
  name: 'mistyped-args',
  tools: {
    // @ts-expect-error `a` is a string, not a number
    mistyped: { inputSchema: z.object({ a: z.string() }), execute: ({ a }: { a: number }) => a },
  },
  run() {},
})

// tool(): inference outside defineAgent, for tool records such as openaiAgent's or aiSdkAgent's.
const shout = tool({ inputSchema: z.object({ text: z.string() }), execute: ({ text }) => text.toUpperCase() })
const asDefinition: ToolDefinition = shout
// @ts-expect-error tool() types execute's arguments too
tool({ inputSchema: z.object({ text: z.string() }), execute: ({ text }) => text.toFixed() })

// Any Standard Schema types the arguments, zod or not.
const handmade: StandardSchemaV1<{ n: number }> = {
  '~standard': { version: 1, vendor: 'handmade', validate: (value) => ({ value: value as { n: number } }) },
}
tool({ inputSchema: handmade, parameters: { type: 'object' }, execute: ({ n }) => n + 1 })
// @ts-expect-error `n` is a number
tool({ inputSchema: handmade, execute: ({ n }) => n.toUpperCase() })

test('the typed agents above are plain agents at run time', () => {
  assert.deepEqual(Object.keys(agent.tools), ['find', 'ask', 'raw'])
  assert.equal(typeof asDefinition.execute, 'function')
})
