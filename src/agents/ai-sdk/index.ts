import { APICallError, RetryError, stepCountIs, streamText, type LanguageModel, type ModelMessage } from 'ai'
import { defineAgent, type AgentDefinition, type RunContext } from '../../agent-api/index.js'
import { ParlanceError, type OnBusy } from '../../core/index.js'
import { toModelMessages } from './messages.js'
import { StreamReader, type ModelName } from './stream.js'
import { runTools, toolDefinitions, type AnyTool, type ApprovalOptions } from './tools.js'

export type { AnyTool, ApprovalOptions } from './tools.js'
export { toModelMessages } from './messages.js'

type StreamTextOptions = Parameters<typeof streamText>[0]

/** The `streamText` settings `aiSdkAgent` passes through as given. */
type Passed = Pick<
  StreamTextOptions,
  | 'providerOptions'
  | 'temperature'
  | 'maxOutputTokens'
  | 'topP'
  | 'topK'
  | 'presencePenalty'
  | 'frequencyPenalty'
  | 'seed'
  | 'stopSequences'
  | 'headers'
  | 'maxRetries'
  | 'toolChoice'
  | 'stopWhen'
  | 'prepareStep'
  | 'experimental_context'
>

/** Options of `aiSdkAgent`: a model, and `streamText`'s own settings. */
export interface AiSdkAgentOptions extends Passed {
  /** Any AI SDK language model: `openai('gpt-4o-mini')`, `anthropic(…)`, `createOpenAICompatible(…)(…)`, a gateway id. */
  model: LanguageModel
  /** @default 'ai-sdk' */
  name?: string
  /** @default 'AI SDK model <provider>/<model>' */
  description?: string
  /** System prompt. */
  system?: string
  /**
   * Tools exactly as written for `streamText` (`tool({ description, inputSchema, execute?, needsApproval? })`),
   * or Parlance `ToolDefinition`s (`{ description, parameters, execute? }`, as `mcpTools` gives them; one with an
   * `inputSchema` made with Parlance's `tool()`, which tells it apart from an AI SDK tool). With
   * `execute` a tool runs here as a server tool; without, it goes to the client (`ctx.callTool`).
   */
  tools?: Record<string, AnyTool>
  /** Model calls per run, tool rounds included, when `stopWhen` is not given; beyond it the run fails clearly. @default 8 */
  maxSteps?: number
  /** How `needsApproval` tools ask through `ctx.approve`. */
  approval?: ApprovalOptions
  /** What a message does while a run is active (see `defineAgent`). */
  onBusy?: OnBusy
}

/**
 * An agent on the AI SDK's `streamText` (the `ai` package, a peer dependency: yours). The conversation comes
 * from the session's history (text, tool calls and their results); text and reasoning stream to every client;
 * tools run through `ctx` so every dialect shows their calls and results, approvals included; the SDK loops
 * over model calls and tool rounds (`stopWhen`, default `maxSteps` 8); cancelling the run aborts the model
 * request; provider failures end the run with an error naming the provider, the HTTP status and the message.
 * Each model call's token usage is recorded (`usage` events).
 */
export function aiSdkAgent(options: AiSdkAgentOptions): AgentDefinition {
  const tools = options.tools ?? {}
  const maxSteps = options.maxSteps ?? 8
  const name = modelName(options.model)
  const { model, name: _n, description, system, tools: _t, maxSteps: _m, approval, onBusy, ...passed } = options
  return defineAgent({
    name: options.name ?? 'ai-sdk',
    description: description ?? `AI SDK model ${name.provider ? `${name.provider}/` : ''}${name.model}`,
    tools: toolDefinitions(tools),
    ...(onBusy ? { onBusy } : {}),
    async run(ctx) {
      const messages: ModelMessage[] = toModelMessages(ctx.history)
      if (ctx.input.kind === 'context') messages.push({ role: 'user', content: ctx.input.text })
      const reader = new StreamReader(ctx, name)
      let result: ReturnType<typeof streamText>
      try {
        result = streamText({
          stopWhen: stepCountIs(maxSteps),
          ...passed,
          model,
          ...(system !== undefined ? { system } : {}),
          messages,
          tools: runTools(tools, ctx, reader, approval ?? {}),
          abortSignal: ctx.signal,
          onError: () => {}, // reported as the run's error below, not logged by the SDK
        })
      } catch (err) {
        throw runError(err, ctx, name)
      }
      const outcome = await reader.read(result.fullStream)
      if (ctx.signal.aborted) throw ctx.signal.reason
      if (outcome.error !== undefined) throw runError(outcome.error, ctx, name)
      if (options.stopWhen === undefined && outcome.lastCalls > 0 && outcome.steps >= maxSteps) {
        throw new ParlanceError('execution_error', `stopped after ${maxSteps} model calls without a final answer (maxSteps)`, { maxSteps })
      }
    },
  })
}

/** The model's id and provider, for usage reports and errors. */
function modelName(model: LanguageModel): ModelName {
  if (typeof model === 'string') return { model, provider: 'gateway' }
  return { model: model.modelId, provider: model.provider }
}

/**
 * A model call's failure as a run error that says where and why: the provider, the HTTP status and what the
 * provider said (the SDK's `APICallError`, also inside a `RetryError` once retries ran out); a failure to reach
 * it is `unavailable`.
 */
function runError(err: unknown, ctx: RunContext, name: ModelName): unknown {
  if (ctx.signal.aborted) return ctx.signal.reason
  if (err instanceof ParlanceError) return err
  const provider = name.provider ?? 'the model provider'
  const e = RetryError.isInstance(err) ? err.lastError : err
  if (APICallError.isInstance(e)) {
    const status = e.statusCode
    if (status === undefined) {
      return new ParlanceError('unavailable', `cannot reach ${provider} at ${e.url}: ${causeOf(e)}`, { provider, url: e.url }, { cause: err })
    }
    return new ParlanceError(
      'execution_error',
      `${provider} at ${e.url} answered ${status}: ${e.message}`,
      { provider, status, url: e.url },
      { cause: err },
    )
  }
  const message = e instanceof Error ? e.message : String(e)
  return new ParlanceError('execution_error', `${provider} failed: ${message}`, { provider }, { cause: err })
}

/** The innermost cause's code and message (fetch wraps ECONNREFUSED in "fetch failed"). */
function causeOf(err: Error): string {
  let e: unknown = err
  for (let i = 0; i < 5 && e instanceof Error && e.cause !== undefined; i++) e = e.cause
  const code = (e as { code?: unknown } | undefined)?.code
  const message = e instanceof Error ? e.message : String(e)
  return typeof code === 'string' ? `${code} (${message})` : message
}
