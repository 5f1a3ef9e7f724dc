import { ON_BUSY, type OnBusy } from '../core/index.js'
import type { AgentDefinition, RunContext, ToolDefinition } from './types.js'

/** What `defineAgent` takes. */
export interface AgentOptions {
  /** Registry name (`POST /agui/<name>`, HugAI `targetAgent`). Letters, digits, `-`, `_`, `.`. */
  name: string
  description?: string
  tools?: Record<string, ToolDefinition>
  /**
   * What a message that arrives while a run is active does (README "Concurrent messages, regenerate and forks"):
   * 'interrupt' the run, 'enqueue' the message, 'reject' it (`busy`), or 'rollback' the run. A message may say
   * otherwise where its dialect carries it. @default the server's `onBusy` ('interrupt')
   */
  onBusy?: OnBusy
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
  if (options.onBusy !== undefined && !ON_BUSY.includes(options.onBusy)) {
    throw new TypeError(`agent "${options.name}": onBusy must be one of ${ON_BUSY.join(', ')}; got "${String(options.onBusy)}"`)
  }
  return Object.freeze({
    name: options.name,
    description: options.description ?? '',
    tools: Object.freeze({ ...options.tools }),
    ...(options.onBusy ? { onBusy: options.onBusy } : {}),
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
