import { randomUUID } from 'node:crypto'
import { isInterruptExpired, type AbstractAgent, type Interrupt, type Message, type ResumeEntry } from '@ag-ui/client'
import { openTools } from '../open-tools.js'
import { defineAgent, type AgentDefinition, type RunContext, type ToolDefinition } from '../../agent-api/index.js'
import { ParlanceError, toolResultText, toParlanceError, type Json, type RiskLevel } from '../../core/index.js'
import { offeredTools, remoteRunError } from './convert.js'
import { EventRelay, type PendingCall, type RemoteOutcome } from './relay.js'

/** One Parlance run's AG-UI agent, with what its transport adds (the HTTP bridge's stream failures and remote cancel). */
export interface AguiRun {
  /** The agent this run drives, already holding the session's thread id, conversation and state. */
  readonly agent: AbstractAgent
  /** A transport failure seen outside the event stream (the HTTP body died mid-stream); returned once, then cleared. */
  takeStreamFailure?(): unknown
  /** The run was cancelled: stop the agent's run beyond `abortRun()`. `active`: a run may still go on over there. */
  onAbort?(active: boolean): void
  /** The Parlance run failed while an agent run may go on: stop it. */
  onFailure?(): void
}

/** What `aguiRunner` serves: the agent's name and tools, how errors name it, and how a Parlance run gets its AG-UI agent. */
export interface AguiRunnerSpec {
  name: string
  description: string
  /** Tools offered to the agent as frontend tools (see `AguiBridgeOptions.tools`). */
  tools: Record<string, ToolDefinition>
  /** Agent runs per Parlance run before it fails. */
  maxRounds: number
  /** How error messages name the agent: 'the remote AG-UI agent at <url>'. */
  where: string
  /** How a RUN_ERROR names the agent: 'the remote AG-UI agent' (its message follows). */
  who: string
  /** Added to every error's details: `{ remote: url }`. */
  details: Record<string, Json>
  /** A run that failed outside its events (a request that failed, a stream that died, a throwing `run`) as the run's error. */
  failed(err: unknown): ParlanceError
  /** Sets up one Parlance run. */
  begin(ctx: RunContext): Promise<AguiRun> | AguiRun
}

/**
 * The agent that serves any `@ag-ui/client` agent: every Parlance run becomes one or more runs of it, its events
 * become RunContext calls through the `EventRelay`, frontend tool calls it leaves pending go to the Parlance client
 * and back in a follow-up run, an `interrupt` outcome becomes `ctx.approve` and a follow-up run with `resume`,
 * `RUN_ERROR` fails the run, and cancelling the Parlance run aborts the agent's. The HTTP bridge and in-process
 * agents differ only in `begin`.
 */
export function aguiRunner(spec: AguiRunnerSpec): AgentDefinition {
  const { where, details, maxRounds } = spec
  const declared = spec.tools

  /** One agent run: relays its events; resolves with how it ended. */
  async function runOnce(
    ctx: RunContext,
    run: AguiRun,
    relay: EventRelay,
    resume: ResumeEntry[] | undefined,
    link: { active: boolean },
  ): Promise<RemoteOutcome> {
    const remote = run.agent
    let failed: unknown
    run.takeStreamFailure?.()
    relay.onFailure = () => remote.abortRun()
    await remote.runAgent(
      { runId: randomUUID(), tools: offeredTools(ctx, declared), ...(resume ? { resume } : {}) },
      {
        onEvent: ({ event }) => relay.handle(event),
        onRunFailed: ({ error }) => {
          failed = error
          // Handled here (a clear run error below): without this @ag-ui/client logs the error and rethrows it.
          return { stopPropagation: true } as never
        },
      },
    )
    await relay.settle()
    if (ctx.signal.aborted) throw ctx.signal.reason
    if (relay.failure !== undefined) throw toParlanceError(relay.failure)
    const streamFailure = run.takeStreamFailure?.()
    if (streamFailure !== undefined) {
      link.active = false // the connection died: there is no remote run to cancel
      throw spec.failed(streamFailure)
    }
    if (failed !== undefined) {
      link.active = false // the request itself failed: no remote run to cancel
      throw spec.failed(failed)
    }
    const outcome = relay.takeOutcome()
    if (!outcome) throw new ParlanceError('execution_error', `${where} ended its stream without RUN_FINISHED or RUN_ERROR`, details)
    return outcome
  }

  const agent = defineAgent({
    name: spec.name,
    description: spec.description,
    async run(ctx) {
      const run = await spec.begin(ctx)
      ctx.signal.throwIfAborted()
      /** Whether an agent run may be active (started, not known to have ended): a stop must cancel it. */
      const link = { active: false }
      const clientToolNames = new Set([...Object.keys(declared), ...ctx.input.clientTools.map((t) => t.name)])
      const relay = new EventRelay(ctx, clientToolNames)
      const onAbort = () => {
        run.agent.abortRun()
        run.onAbort?.(link.active)
      }
      ctx.signal.addEventListener('abort', onAbort, { once: true })
      try {
        let resume: ResumeEntry[] | undefined
        for (let round = 1; ; round++) {
          if (round > maxRounds)
            throw new ParlanceError('execution_error', `${where} needed more than ${maxRounds} runs for one answer (maxRounds)`, {
              ...details,
              maxRounds,
            })
          ctx.signal.throwIfAborted()
          link.active = true
          const outcome = await runOnce(ctx, run, relay, resume, link)
          resume = undefined
          if (outcome.type === 'error') {
            link.active = false
            throw remoteRunError(spec.who, details, outcome.message, outcome.code)
          }
          if (outcome.type === 'cancelled') {
            link.active = false
            throw new ParlanceError('cancelled', `${where} cancelled the run`, details)
          }
          if (outcome.type === 'interrupt') {
            resume = await answerInterrupts(ctx, relay, outcome.interrupts)
            continue
          }
          if (outcome.pending.length === 0) {
            link.active = false
            return
          }
          for (const call of outcome.pending) {
            const message = await runClientTool(ctx, call)
            relay.answered(call.id)
            run.agent.addMessage(message)
          }
        }
      } catch (err) {
        // The bridge failed while the agent's run may go on (a bad state patch, a bug): stop it too.
        if (link.active && !ctx.signal.aborted) run.onFailure?.()
        throw err
      } finally {
        ctx.signal.removeEventListener('abort', onAbort)
      }
    },
  })
  return Object.freeze({ ...agent, tools: openTools(declared, 'A tool the AG-UI agent asked the client to run') })
}

/** Runs a tool the agent left for the client; its answer (or failure) as the tool message for the next agent run. */
async function runClientTool(ctx: RunContext, call: PendingCall): Promise<Message> {
  try {
    const result = await ctx.callTool(call.name, call.args)
    return { id: randomUUID(), role: 'tool', toolCallId: call.id, content: toolResultText(result) }
  } catch (err) {
    if (ctx.signal.aborted) throw err
    return { id: randomUUID(), role: 'tool', toolCallId: call.id, content: '', error: err instanceof Error ? err.message : String(err) }
  }
}

const RISKS: ReadonlySet<string> = new Set<RiskLevel>(['low', 'medium', 'high', 'critical'])

/** Asks for each interrupt with `ctx.approve`; the answers as `resume` entries (a timeout or an expired interrupt cancels it). */
async function answerInterrupts(ctx: RunContext, relay: EventRelay, interrupts: readonly Interrupt[]): Promise<ResumeEntry[]> {
  const out: ResumeEntry[] = []
  for (const i of interrupts) {
    const info = relay.approvals.get(i.id)
    const meta = (i.metadata as { parlance?: { toolName?: unknown; args?: unknown; risk?: unknown } } | undefined)?.parlance
    const tool = typeof meta?.toolName === 'string' ? meta.toolName : (info?.toolName ?? i.reason)
    const args =
      meta?.args && typeof meta.args === 'object' && !Array.isArray(meta.args) ? (meta.args as Record<string, unknown>) : (info?.args ?? {})
    const risk = typeof meta?.risk === 'string' && RISKS.has(meta.risk) ? meta.risk : info?.risk && RISKS.has(info.risk) ? info.risk : 'medium'
    const remaining = i.expiresAt ? Date.parse(i.expiresAt) - Date.now() : Number.NaN
    const answer = await ctx.approve({
      tool,
      args,
      risk: risk as RiskLevel,
      reasoning: i.message ?? `The remote agent needs an answer (${i.reason}).`,
      description: info?.toolDescription ?? '',
      ...(remaining > 0 ? { timeoutMs: Math.ceil(remaining) } : {}),
    })
    out.push(
      answer.by === 'timeout' || isInterruptExpired(i)
        ? { interruptId: i.id, status: 'cancelled' }
        : {
            interruptId: i.id,
            status: 'resolved',
            payload: { approved: answer.approved, ...(answer.feedback !== undefined ? { feedback: answer.feedback } : {}) },
          },
    )
  }
  return out
}
