import { randomUUID } from 'node:crypto'
import type { AbstractAgent, Message, State } from '@ag-ui/client'
import type { AgentDefinition, ToolDefinition } from '../../agent-api/index.js'
import { ParlanceError } from '../../core/index.js'
import { remoteMessages } from './convert.js'
import { aguiRunner } from './runner.js'

/** Options of `aguiAgent`. */
export interface AguiAgentOptions {
  /** Registry name. @default the agent's `agentId` when it is a valid name, else 'agui' */
  name?: string
  /** @default the agent's `description`, else 'AG-UI agent <name>' */
  description?: string
  /**
   * Tools offered to the agent as frontend tools (AG-UI `tools`): with `execute` they run in this process when the
   * agent calls them; without, the Parlance client runs them (as do the tools the Parlance client offers).
   */
  tools?: Record<string, ToolDefinition>
  /** Agent runs per Parlance run (each client tool answer or approval answer is one more) before it fails. @default 32 */
  maxRounds?: number
  /** The AG-UI `threadId` of a Parlance session. @default the session id */
  threadId?: (sessionId: string) => string
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/

/**
 * Serves an `@ag-ui/client` agent that runs in this process — an `AbstractAgent` subclass of your own, or a
 * framework's (LangGraph, Mastra, …) — over every Parlance dialect, through the same relay as the HTTP bridge
 * (`aguiBridgeAgent` is this agent's `HttpAgent` case). Each Parlance run drives a per-run view of `agent`: its own
 * `threadId` (the session's), messages (the conversation) and state, while your instance's own fields and
 * middlewares are shared. Its events become RunContext calls (text, reasoning, steps, state, tool calls); frontend
 * tool calls it leaves pending go to the Parlance client and back in a follow-up run; an `interrupt` becomes
 * `ctx.approve`; a `RUN_ERROR` or a failing `run()` fails the run; cancelling the run unsubscribes from the agent's
 * observable (its teardown runs) after `abortRun()`.
 * @example
 * class Echo extends AbstractAgent { run(input) { return new Observable((s) => { ...; s.complete() }) } }
 * const server = await createServer({ agents: [aguiAgent(new Echo(), { name: 'echo' })] })
 */
export function aguiAgent(agent: AbstractAgent, options: AguiAgentOptions = {}): AgentDefinition {
  if (!agent || typeof (agent as { runAgent?: unknown }).runAgent !== 'function')
    throw new TypeError('aguiAgent needs an @ag-ui/client AbstractAgent (an object with runAgent)')
  const name = options.name ?? (agent.agentId && NAME.test(agent.agentId) ? agent.agentId : 'agui')
  const threadOf = options.threadId ?? ((sessionId: string) => sessionId)
  const where = `the AG-UI agent ${name}`
  return aguiRunner({
    name,
    description: options.description ?? (agent.description || `AG-UI agent ${name}`),
    tools: options.tools ?? {},
    maxRounds: options.maxRounds ?? 32,
    where,
    who: where,
    details: { agent: name },
    failed: (err) =>
      new ParlanceError('execution_error', `${where} failed: ${err instanceof Error ? err.message : String(err)}`, { agent: name }, { cause: err }),
    begin(ctx) {
      const view = runView(agent, threadOf(ctx.sessionId), remoteMessages(ctx, randomUUID), structuredClone(ctx.state) as State)
      return { agent: view, onAbort: () => void view.detachActiveRun().catch(() => {}) }
    },
  })
}

/**
 * A per-run view of `agent`: an object whose prototype is the agent, with the per-run fields `runAgent` writes as
 * its own (thread, messages, state, running flag, pending interrupts, subscribers), so concurrent runs of several
 * sessions never share them and your instance stays as it was. Methods and your subclass's fields are inherited.
 */
function runView(agent: AbstractAgent, threadId: string, messages: Message[], state: State): AbstractAgent {
  const view = Object.create(agent) as AbstractAgent
  const own: Partial<AbstractAgent> = { threadId, messages, isRunning: false, pendingInterrupts: [], subscribers: [...agent.subscribers] }
  Object.assign(view, own)
  view.state = state as unknown
  return view
}
