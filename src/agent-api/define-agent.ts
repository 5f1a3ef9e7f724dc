import { ON_BUSY, type OnBusy } from '../core/index.js'
import type { AgentDefinition, RunContext, ToolDefinition, ToolSet } from './types.js'

/**
 * An agent's tools as `defineAgent` infers them: per name, the `inputSchema` (`Schemas`) and the result of
 * `execute` (`Results`), so that each `execute` gets typed arguments and `ctx.callTool` is typed by name.
 */
export type ToolsOf<Schemas, Results> = { [K in keyof Schemas & keyof Results]: ToolDefinition<Schemas[K], Results[K]> }

/** What `defineAgent` takes. */
export interface AgentOptions<Tools extends ToolSet = ToolSet> {
  /** Registry name (`POST /agui/<name>`, HugAI `targetAgent`). Letters, digits, `-`, `_`, `.`. */
  name: string
  description?: string
  /**
   * Tools by name: `{ description, inputSchema, execute? }` (see `ToolDefinition`). A Standard Schema
   * `inputSchema` (zod 4, valibot, ArkType…) types `execute`'s arguments and `ctx.callTool(name, args)`.
   */
  tools?: Tools
  /**
   * What a message that arrives while a run is active does (README "Concurrent messages, regenerate and forks"):
   * 'interrupt' the run, 'enqueue' the message, 'reject' it (`busy`), or 'rollback' the run. A message may say
   * otherwise where its dialect carries it. @default the server's `onBusy` ('interrupt')
   */
  onBusy?: OnBusy
  run(ctx: RunContext<Tools>): Promise<void> | void
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/

/**
 * Declares an agent.
 * @example
 * const echo = defineAgent({ name: 'echo', run: (ctx) => ctx.say(`You said: ${ctx.input.text}`).then(() => {}) })
 */
export function defineAgent<
  Schemas extends Record<string, unknown> = Record<never, never>,
  Results extends Record<string, unknown> = Record<never, never>,
>(options: AgentOptions<ToolsOf<Schemas, Results>>): AgentDefinition {
  if (!NAME.test(options.name)) throw new TypeError(`invalid agent name "${options.name}": use 1-64 of A-Z a-z 0-9 _ . -`)
  if (typeof options.run !== 'function') throw new TypeError(`agent "${options.name}" needs a run(ctx) function`)
  if (options.onBusy !== undefined && !ON_BUSY.includes(options.onBusy)) {
    throw new TypeError(`agent "${options.name}": onBusy must be one of ${ON_BUSY.join(', ')}; got "${String(options.onBusy)}"`)
  }
  return Object.freeze({
    name: options.name,
    description: options.description ?? '',
    tools: Object.freeze({ ...options.tools }),
    ...(options.onBusy ? { onBusy: options.onBusy } : {}),
    // The context callTool validates and types by the same tools; only its static type differs.
    run: (ctx: RunContext) => options.run(ctx as RunContext<ToolsOf<Schemas, Results>>),
  })
}

/** Is `value` an agent made by `defineAgent` (or shaped like one)? */
export function isAgent(value: unknown): value is AgentDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AgentDefinition).name === 'string' &&
    typeof (value as AgentDefinition).run === 'function'
  )
}

const PARLANCE_TOOL = Symbol.for('parlance.tool')

/**
 * Declares one tool outside `defineAgent` with its types inferred, as the AI SDK's `tool()` does:
 * `const add = tool({ inputSchema: z.object({ a: z.number() }), execute: ({ a }) => a + 1 })`. Bridges that
 * also take AI SDK tools (`aiSdkAgent`) tell a Parlance tool with an `inputSchema` apart by it.
 */
export function tool<Schema, Result>(definition: ToolDefinition<Schema, Result>): ToolDefinition<Schema, Result> {
  return Object.defineProperty({ ...definition }, PARLANCE_TOOL, { value: true })
}

/** Was `t` made by `tool()`? */
export function isParlanceTool(t: object): boolean {
  return PARLANCE_TOOL in t
}
