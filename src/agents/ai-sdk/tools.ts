import { asSchema, jsonSchema, type JSONSchema7, type Tool, type ToolExecutionOptions, type ToolResultPart } from 'ai'
import { isParlanceTool, toolJsonSchema, type RunContext, type ToolDefinition } from '../../agent-api/index.js'
import { newId, type Json, type RiskLevel } from '../../core/index.js'

/** A tool as `aiSdkAgent` takes it: written for `streamText` (the `tool()` helper), or a Parlance `ToolDefinition`. */
export type AnyTool = Tool | ToolDefinition

/** How `needsApproval` tools ask (`ctx.approve`). */
export interface ApprovalOptions {
  /** @default 'medium' */
  risk?: RiskLevel
  /** @default the server's approvalTimeoutMs */
  timeoutMs?: number
}

/** What a run's tool wrappers share with the stream reader: it says when the model's call was seen (text before it closed). */
export interface ToolHooks {
  /** Resolves once the reader has passed the `tool-call` part of `toolCallId` (and closed the text open before it). */
  seen(toolCallId: string): Promise<void>
}

/** A refused approval, as a tool's output: `toModelOutput` turns it into the SDK's `execution-denied`. */
class Denied {
  constructor(readonly reason: string | undefined) {}
}

/** An AI SDK tool has an `inputSchema`; so may a Parlance tool, told apart when made with Parlance's `tool()`. */
export function isSdkTool(t: AnyTool): t is Tool {
  return typeof t === 'object' && t !== null && 'inputSchema' in t && !isParlanceTool(t)
}

/** A provider-defined tool (the provider runs it, e.g. a hosted web search): passed through as is. */
function isProviderTool(t: Tool): boolean {
  return (t as { type?: string }).type === 'provider'
}

/**
 * The agent's tools as Parlance sees them (clients, HugAI integrations, `ctx.callTool`): description, JSON Schema
 * of the input (filled in once known when the schema gives it asynchronously), and an `execute` for those that
 * run here. A tool without `execute` is the client's.
 */
export function toolDefinitions(tools: Readonly<Record<string, AnyTool>>): Record<string, ToolDefinition> {
  const defs: Record<string, ToolDefinition> = {}
  for (const [name, t] of Object.entries(tools)) {
    if (!isSdkTool(t)) {
      defs[name] = t
      continue
    }
    if (isProviderTool(t)) continue
    const def: ToolDefinition = {}
    if (t.description !== undefined) def.description = t.description
    const schema = asSchema(t.inputSchema).jsonSchema
    if (isThenable(schema))
      void Promise.resolve(schema).then(
        (s) => (def.parameters = s as Json),
        () => {},
      )
    else def.parameters = schema as Json
    const execute = t.execute
    if (execute)
      def.execute = async (args, ctx) => toJson(await settle(execute(args, { toolCallId: newId('call'), messages: [], abortSignal: ctx.signal })))
    defs[name] = def
  }
  return defs
}

/**
 * The tools handed to `streamText` for one run. Each runs through `ctx`, so every dialect shows it: a tool with
 * `execute` as a server tool (its call, then its result or error), one without as a client tool
 * (`ctx.callTool`, its result fed back to the model), a Parlance tool through `ctx.callTool`, and the tools the
 * client offered for this run as client tools. `needsApproval` asks `ctx.approve` with the tool's arguments
 * first; a refusal reaches the model as the SDK's `execution-denied` output (the tool does not run).
 */
export function runTools(
  tools: Readonly<Record<string, AnyTool>>,
  ctx: RunContext,
  hooks: ToolHooks,
  approval: ApprovalOptions,
): Record<string, Tool> {
  const out: Record<string, Tool> = {}
  for (const [name, t] of Object.entries(tools)) {
    if (isSdkTool(t)) out[name] = isProviderTool(t) ? t : wrapSdkTool(name, t, ctx, hooks, approval)
    else out[name] = clientOrParlance(name, t.description, toolJsonSchema(name, t), ctx, hooks)
  }
  for (const c of ctx.input.clientTools) if (!(c.name in out)) out[c.name] = clientOrParlance(c.name, c.description, c.parameters, ctx, hooks)
  return out
}

/** A tool `ctx.callTool` runs: a Parlance tool (here or on the client) or a tool the client offered. */
function clientOrParlance(name: string, description: string | undefined, parameters: Json | undefined, ctx: RunContext, hooks: ToolHooks): Tool {
  const schema = (parameters ?? { type: 'object', properties: {} }) as JSONSchema7
  return {
    ...(description !== undefined ? { description } : {}),
    inputSchema: jsonSchema(schema),
    execute: async (input: unknown, options: ToolExecutionOptions) => {
      await hooks.seen(options.toolCallId)
      return ctx.callTool(name, argsOf(input))
    },
  }
}

function wrapSdkTool(name: string, t: Tool, ctx: RunContext, hooks: ToolHooks, approval: ApprovalOptions): Tool {
  const own = t.execute
  const toModelOutput = t.toModelOutput
  const wrapped: Tool = {
    ...t,
    needsApproval: false, // asked here, through ctx.approve
    execute: async (input: unknown, options: ToolExecutionOptions) => {
      await hooks.seen(options.toolCallId)
      const args = argsOf(input)
      if (await needsApproval(t, input, options)) {
        const answer = await ctx.approve({
          tool: name,
          args,
          risk: approval.risk ?? 'medium',
          reasoning: `The model asks to run ${name}.`,
          ...(t.description !== undefined ? { description: t.description } : {}),
          ...(approval.timeoutMs !== undefined ? { timeoutMs: approval.timeoutMs } : {}),
        })
        if (!answer.approved) return new Denied(answer.feedback ?? (answer.by === 'timeout' ? 'nobody approved the call in time' : undefined))
      }
      if (!own) return ctx.callTool(name, args)
      return record(name, args, ctx, () => own(input, options))
    },
    toModelOutput: async (o: { toolCallId: string; input: unknown; output: unknown }): Promise<ToolResultPart['output']> => {
      if (o.output instanceof Denied)
        return o.output.reason === undefined ? { type: 'execution-denied' } : { type: 'execution-denied', reason: o.output.reason }
      if (toModelOutput) return toModelOutput(o)
      return typeof o.output === 'string' ? { type: 'text', value: o.output } : { type: 'json', value: toJson(o.output) }
    },
  }
  return wrapped
}

/**
 * Runs the tool's own `execute` as a server tool of the run: `tool.call` is recorded before it starts (so its
 * own events, progress say, follow the call), then its result or error. The SDK gets the output as is.
 */
async function record(name: string, args: Record<string, unknown>, ctx: RunContext, run: () => unknown): Promise<unknown> {
  if (ctx.signal.aborted) throw ctx.signal.reason
  let go!: () => void
  const started = new Promise<void>((resolve) => (go = resolve))
  let output: unknown
  const outcome = started.then(async () => {
    output = await settle(run())
    return toJson(output)
  })
  // externalTool records the call synchronously, before its first await; the tool starts after that.
  const recorded = ctx.externalTool(name, args, outcome)
  outcome.catch(() => {}) // its failure is reported through `recorded`
  go()
  await recorded
  return output
}

async function needsApproval(t: Tool, input: unknown, options: ToolExecutionOptions): Promise<boolean> {
  const n = t.needsApproval
  if (typeof n === 'function') {
    const ask = {
      toolCallId: options.toolCallId,
      messages: options.messages,
      ...(options.experimental_context !== undefined ? { experimental_context: options.experimental_context } : {}),
    }
    return Boolean(await n(input as never, ask))
  }
  return n === true
}

/** A tool's output: awaited, and the last value of a streamed (async iterable) one. */
async function settle(value: unknown): Promise<unknown> {
  const v = await value
  if (v !== null && typeof v === 'object' && Symbol.asyncIterator in v) {
    let last: unknown
    for await (const part of v as AsyncIterable<unknown>) last = part
    return last
  }
  return v
}

function argsOf(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : { input }
}

/** A value as JSON (what the log stores): undefined is null, anything JSON cannot hold its text. */
export function toJson(value: unknown): Json {
  if (value === undefined) return null
  try {
    return (JSON.parse(JSON.stringify(value) ?? 'null') as Json) ?? null
  } catch (err) {
    return `(not JSON: ${(err as Error).message})`
  }
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function'
}
