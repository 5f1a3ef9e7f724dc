import assert from 'node:assert/strict'
import { test } from 'node:test'
import { z } from 'zod'
import { defineAgent, tool, type StandardSchemaV1 } from '../src/index.js'
import { toolJsonSchema } from '../src/agent-api/index.js'
import { textOf } from '../src/client/index.js'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { aiSdkAgent } from '../src/agents/ai-sdk/index.js'
import { openaiAgent } from '../src/agents/openai/index.js'
import { startServer } from './harness.js'
import { fakeOpenAI } from './support/fake-openai.js'

/** A hand-written Standard Schema, as valibot or ArkType would give: no zod anywhere in it. */
const shoutInput: StandardSchemaV1<{ text: string }> = {
  '~standard': {
    version: 1,
    vendor: 'handmade',
    validate: (value) => {
      const text = (value as { text?: unknown } | null)?.text
      return typeof text === 'string' && text.length > 0
        ? { value: { text } }
        : { issues: [{ message: 'expected a non-empty string', path: [{ key: 'text' }] }] }
    },
  },
}

interface Sum {
  sum: number
  note?: string
}

/** Calls the tool the message names (`{"tool": ..., "args": ...}`), as a model would, then goes on. */
const typed = defineAgent({
  name: 'typed',
  tools: {
    add: {
      description: 'Adds a and b',
      inputSchema: z.object({ a: z.number(), b: z.coerce.number() }),
      execute: ({ a, b }): Sum => ({ sum: a + b }),
    },
    shout: tool({
      inputSchema: shoutInput,
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      execute: async ({ text }) => text.toUpperCase(),
    }),
    legacy: { parameters: { type: 'object', properties: { x: { type: 'number' } } }, execute: (args) => ({ got: args as Record<string, string> }) },
  },
  async run(ctx) {
    const { tool: name, args } = JSON.parse(ctx.input.text) as { tool: string; args: Record<string, unknown> }
    try {
      const result = await ctx.callTool<unknown>(name, args)
      await ctx.say(`result: ${JSON.stringify(result)}`)
    } catch (err) {
      await ctx.say(`caught: ${(err as Error).message}`)
    }
    await ctx.say(' and the run goes on')
  },
})

async function turn(c: Awaited<ReturnType<Awaited<ReturnType<typeof startServer>>['hai']>>, tool: string, args: unknown) {
  c.say(JSON.stringify({ tool, args }))
  return c.untilCompleted()
}

test('a zod inputSchema validates the arguments over HAI: bad ones are the tool error, naming the paths; good ones are parsed', async (t) => {
  const s = await startServer({ agents: [typed] })
  t.after(() => s.close())
  const c = await s.hai()

  const bad = await turn(c, 'add', { a: 'one', b: 'x' })
  const err = bad.find((m) => m.type === 'tool_call_error')
  assert.ok(err?.type === 'tool_call_error', JSON.stringify(bad.map((m) => m.type)))
  assert.equal(err.tool_name, 'add')
  assert.match(err.error, /^invalid arguments for tool add: a: .*; b: .*/)
  assert.equal(
    bad.some((m) => m.type === 'tool_call_end'),
    false,
  )
  assert.match(textOf(bad), /caught: tool add failed: invalid arguments.* and the run goes on$/)
  assert.equal(
    bad.some((m) => m.type === 'error'),
    false,
  )

  // z.coerce turns "2" into 2: execute receives the schema's output, the call shows what was sent.
  const good = await turn(c, 'add', { a: 1, b: '2' })
  const start = good.find((m) => m.type === 'tool_call_start')
  assert.ok(start?.type === 'tool_call_start')
  assert.deepEqual(start.parameters, { a: 1, b: '2' })
  const end = good.find((m) => m.type === 'tool_call_end')
  assert.ok(end?.type === 'tool_call_end')
  assert.deepEqual(JSON.parse(end.result), { sum: 3 })
  assert.match(textOf(good), /result: \{"sum":3\} and the run goes on/)
})

test('a hand-written Standard Schema (no zod) validates too; JSON Schema parameters pass the arguments through unchanged', async (t) => {
  const s = await startServer({ agents: [typed] })
  t.after(() => s.close())
  const c = await s.hai()

  const bad = await turn(c, 'shout', { text: 42 })
  const err = bad.find((m) => m.type === 'tool_call_error')
  assert.ok(err?.type === 'tool_call_error')
  assert.equal(err.error, 'invalid arguments for tool shout: text: expected a non-empty string')
  assert.match(textOf(bad), /and the run goes on$/)

  assert.match(textOf(await turn(c, 'shout', { text: 'hi' })), /result: "HI"/)
  // JSON Schema input is not validated here (as before): whatever came is what execute gets.
  assert.match(textOf(await turn(c, 'legacy', { x: 'not a number' })), /result: \{"got":\{"x":"not a number"\}\}/)
})

test('the JSON Schema a tool advertises: from zod, explicit parameters first, a clear error when a schema cannot give one', () => {
  const fromZod = toolJsonSchema('add', typed.tools.add!) as {
    type: string
    properties: Record<string, unknown>
    required: string[]
    $schema?: string
  }
  assert.equal(fromZod.type, 'object')
  assert.deepEqual(Object.keys(fromZod.properties), ['a', 'b'])
  assert.deepEqual(fromZod.required, ['a', 'b'])
  assert.equal(fromZod.$schema, undefined)
  assert.deepEqual(toolJsonSchema('shout', typed.tools.shout!), { type: 'object', properties: { text: { type: 'string' } } })
  assert.deepEqual(toolJsonSchema('legacy', typed.tools.legacy!), { type: 'object', properties: { x: { type: 'number' } } })
  assert.deepEqual(toolJsonSchema('raw', { inputSchema: { type: 'object', properties: { y: { type: 'string' } } } }), {
    type: 'object',
    properties: { y: { type: 'string' } },
  })
  assert.throws(
    () => toolJsonSchema('shout', { inputSchema: shoutInput }),
    /tool "shout": its handmade inputSchema cannot produce a JSON Schema; give the tool an explicit `parameters`/,
  )
})

test('from a model (openaiAgent): the zod schema is the function parameters it sees; its bad arguments come back as the tool error and the run goes on', async (t) => {
  const llm = await fakeOpenAI()
  const add = tool({ description: 'Adds a and b', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b })
  const s = await startServer({ agents: [openaiAgent({ model: 'fake-1', baseURL: llm.url, apiKey: 'test', tools: { add } })] })
  t.after(async () => {
    await s.close()
    await llm.close()
  })
  const c = await s.hai()
  c.say('call:add{"a":"one","b":2}')
  const bad = await c.untilCompleted()
  const fn = (
    llm.requests[0]!.tools as Array<{ function: { name: string; parameters: { properties: Record<string, unknown>; required: string[] } } }>
  )[0]!.function
  assert.deepEqual([fn.name, Object.keys(fn.parameters.properties), fn.parameters.required], ['add', ['a', 'b'], ['a', 'b']])
  const err = bad.find((m) => m.type === 'tool_call_error')
  assert.ok(err?.type === 'tool_call_error')
  assert.match(err.error, /^invalid arguments for tool add: a: /)
  assert.match(textOf(bad), /^The tool said: error: tool add failed: invalid arguments for tool add: a: /)
  assert.equal(
    bad.some((m) => m.type === 'error'),
    false,
  )

  c.say('call:add{"a":1,"b":2}')
  assert.equal(textOf(await c.untilCompleted()), 'The tool said: 3')
})

test('aiSdkAgent takes the same typed tool (made with tool()): its zod schema is what the model sees, Parlance validates it', async (t) => {
  const llm = await fakeOpenAI()
  const add = tool({ description: 'Adds a and b', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b })
  const provider = createOpenAICompatible({ name: 'fakeai', baseURL: llm.url, apiKey: 'test' })
  const s = await startServer({ agents: [aiSdkAgent({ name: 'ai', model: provider.chatModel('fake-1'), tools: { add }, maxRetries: 0 })] })
  t.after(async () => {
    await s.close()
    await llm.close()
  })
  const c = await s.hai()
  c.say('call:add{"a":"one","b":2}')
  const bad = await c.untilCompleted()
  const fn = (llm.requests[0]!.tools as Array<{ function: { name: string; parameters: { properties: Record<string, unknown> } } }>)[0]!.function
  assert.deepEqual([fn.name, Object.keys(fn.parameters.properties)], ['add', ['a', 'b']])
  const err = bad.find((m) => m.type === 'tool_call_error')
  assert.ok(err?.type === 'tool_call_error', JSON.stringify(bad.map((m) => m.type)))
  assert.match(err.error, /^invalid arguments for tool add: a: /)
  assert.match(textOf(bad), /^The tool said: .*invalid arguments for tool add: a: /)

  c.say('call:add{"a":1,"b":2}')
  assert.equal(textOf(await c.untilCompleted()), 'The tool said: 3')
})
