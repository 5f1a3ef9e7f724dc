import type { AgentDefinition, RunContext, ToolDefinition } from './types.js'

/** What `defineAgent` takes. */
export interface AgentOptions {
  /** Registry name (`POST /agui/<name>`, HugAI `targetAgent`). Letters, digits, `-`, `_`, `.`. */
  name: string
  description?: string
  tools?: Record<string, ToolDefinition>
  run(ctx: RunContext): Promise<void> | void
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/

/**
 * Declares an agent.
 * @example
 * const echo = defineAgent({ name: 'echo', run: (ctx) => ctx.say(`You said: ${ctx.input.text}`).then(() => {}) })
 */
export function defineAgent(options: AgentOptions): AgentDefinition {
  if (!NAME.test(options.name)) throw new TypeError(`invalid agent name "${options.name}": use 1-64 of A-Z a-z 0-9 _ . -`)
  if (typeof options.run !== 'function') throw new TypeError(`agent "${options.name}" needs a run(ctx) function`)
  return Object.freeze({
    name: options.name,
    description: options.description ?? '',
    tools: Object.freeze({ ...options.tools }),
    run: (ctx: RunContext) => options.run(ctx),
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
