import OpenAI from 'openai'
import { defineAgent, toolJsonSchema, type AgentDefinition, type RunContext, type ToolDefinition } from '../../agent-api/index.js'
import { ParlanceError, toolResultText, type HistoryMessage, type Json } from '../../core/index.js'
import { endChatSpan, failSpan, serverOf, startChatSpan, type ChatOutcome } from '../../telemetry/index.js'

/** Options of `openaiAgent`. */
export interface OpenAIAgentOptions {
  /** Model name, e.g. `gpt-4o-mini` or whatever the compatible server serves. */
  model: string
  /** @default 'openai' */
  name?: string
  /** @default env OPENAI_BASE_URL, else the OpenAI API */
  baseURL?: string
  /** @default env OPENAI_API_KEY ('none' when unset, for local servers) */
  apiKey?: string
  /** System prompt. */
  system?: string
  /** Tools the model may call: with `execute` they run here, without they go to the client. */
  tools?: Record<string, ToolDefinition>
  /** Model calls per run, tool rounds included; the run fails clearly beyond it. @default 8 */
  maxSteps?: number
}

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam
type ToolCall = { id: string; name: string; arguments: string }

function toChat(m: HistoryMessage): ChatMessage {
  if (m.role === 'user') return { role: 'user', content: m.content }
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.error ? `error: ${m.error}` : m.content }
  return m.toolCalls?.length
    ? {
        role: 'assistant',
        content: m.content || null,
        tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
      }
    : { role: 'assistant', content: m.content }
}

/** The model client and what the agent was told about it (for error hints). */
interface ModelServer {
  client: OpenAI
  urlGiven: boolean
  keyGiven: boolean
}

/**
 * An agent backed by any OpenAI-compatible chat completions API (the official `openai` client): streams
 * text as it arrives, runs server tools and sends client tools through `ctx.callTool` in a multi-step loop,
 * aborts the upstream request when the run is cancelled, and turns upstream failures into run errors.
 */
export function openaiAgent(options: OpenAIAgentOptions): AgentDefinition {
  const baseURL = options.baseURL ?? process.env.OPENAI_BASE_URL
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY
  const client = new OpenAI({ baseURL, apiKey: apiKey ?? 'none', maxRetries: 0 })
  const server: ModelServer = { client, urlGiven: baseURL !== undefined, keyGiven: apiKey !== undefined }
  const maxSteps = options.maxSteps ?? 8
  const tools = options.tools ?? {}
  return defineAgent({
    name: options.name ?? 'openai',
    description: `OpenAI-compatible model ${options.model}`,
    tools,
    async run(ctx) {
      const messages: ChatMessage[] = [...(options.system ? [{ role: 'system' as const, content: options.system }] : []), ...ctx.history.map(toChat)]
      if (ctx.input.kind === 'context') messages.push({ role: 'user', content: ctx.input.text })
      const offered = [
        ...Object.entries(tools).map(([name, t]) => ({ name, description: t.description, parameters: toolJsonSchema(name, t) })),
        ...ctx.input.clientTools,
      ]
      const fns = offered.map((t) => ({
        type: 'function' as const,
        function: {
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          parameters: (t.parameters ?? { type: 'object', properties: {} }) as Record<string, unknown>,
        },
      }))
      for (let step = 1; step <= maxSteps; step++) {
        const calls = await streamStep(server, ctx, { model: options.model, messages, ...(fns.length ? { tools: fns } : {}) })
        if (calls.length === 0) return
        messages.push({
          role: 'assistant',
          content: null,
          tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
        })
        for (const c of calls) messages.push({ role: 'tool', tool_call_id: c.id, content: await runTool(ctx, c) })
      }
      throw new ParlanceError('execution_error', `stopped after ${maxSteps} model calls without a final answer (maxSteps)`, { maxSteps })
    },
  })
}

type ChatBody = { model: string; messages: ChatMessage[]; tools?: OpenAI.Chat.Completions.ChatCompletionTool[] }

/** One model call inside its `chat <model>` span (GenAI conventions: the models, the token usage, the finish reason). */
async function streamStep(server: ModelServer, ctx: RunContext, body: ChatBody): Promise<ToolCall[]> {
  const span = startChatSpan('openai', body.model, serverOf(server.client.baseURL))
  const outcome: ChatOutcome = {}
  let calls: ToolCall[]
  try {
    calls = await streamCall(server, ctx, body, outcome)
  } catch (err) {
    failSpan(span, err)
    throw err
  }
  endChatSpan(span, outcome)
  return calls
}

/** One model call, streamed: text goes to the client as it arrives; the tool calls it asked for are returned. */
async function streamCall(server: ModelServer, ctx: RunContext, body: ChatBody, outcome: ChatOutcome): Promise<ToolCall[]> {
  let stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>
  try {
    stream = await server.client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal: ctx.signal })
  } catch (err) {
    throw upstream(err, ctx, server)
  }
  const calls: ToolCall[] = []
  let usage: OpenAI.CompletionUsage | undefined
  async function* text(): AsyncGenerator<string> {
    try {
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage
        if (outcome.responseId === undefined) {
          outcome.responseId = chunk.id
          outcome.responseModel = chunk.model
        }
        const choice = chunk.choices[0]
        if (choice?.finish_reason) outcome.finishReason = choice.finish_reason
        const delta = choice?.delta
        if (delta?.content) yield delta.content
        for (const t of delta?.tool_calls ?? []) {
          const c = (calls[t.index] ??= { id: '', name: '', arguments: '' })
          if (t.id) c.id = t.id
          if (t.function?.name) c.name += t.function.name
          if (t.function?.arguments) c.arguments += t.function.arguments
        }
      }
    } catch (err) {
      throw upstream(err, ctx, server)
    }
  }
  const it = text()
  const first = await it.next()
  if (!first.done) {
    await ctx.say(
      (async function* () {
        yield first.value
        yield* it
      })(),
    )
  }
  if (usage) {
    outcome.inputTokens = usage.prompt_tokens
    outcome.outputTokens = usage.completion_tokens
    await ctx.usage({
      model: body.model,
      provider: new URL(server.client.baseURL).host,
      inputTokens: usage.prompt_tokens,
      outputTokens: usage.completion_tokens,
      ...(usage.completion_tokens_details?.reasoning_tokens != null ? { reasoningTokens: usage.completion_tokens_details.reasoning_tokens } : {}),
      ...(usage.prompt_tokens_details?.cached_tokens != null ? { cachedInputTokens: usage.prompt_tokens_details.cached_tokens } : {}),
    })
  }
  return calls.filter(Boolean)
}

async function runTool(ctx: RunContext, c: ToolCall): Promise<string> {
  let args: Record<string, unknown>
  try {
    args = c.arguments ? (JSON.parse(c.arguments) as Record<string, unknown>) : {}
  } catch {
    return `error: the arguments were not valid JSON: ${c.arguments.slice(0, 200)}`
  }
  try {
    const result: Json = await ctx.callTool(c.name, args)
    return toolResultText(result)
  } catch (err) {
    if (ctx.signal.aborted) throw err
    // The model sees the failure and may recover; the run goes on.
    return `error: ${(err as Error).message}`
  }
}

/**
 * A model call's failure as a run error that says where and why: the server's URL, the network cause
 * (ECONNREFUSED…) when it could not be reached, and the key setting when it refused the credentials.
 */
function upstream(err: unknown, ctx: RunContext, server: ModelServer): unknown {
  if (ctx.signal.aborted) return ctx.signal.reason
  const url = server.client.baseURL
  // APIConnectionError extends APIError with no status: test it first, or "Connection error." hides the URL.
  if (err instanceof OpenAI.APIConnectionError || !(err instanceof OpenAI.APIError)) {
    const cause = networkCause(err)
    const hint = server.urlGiven ? '' : " (set OPENAI_BASE_URL, or the agent's baseURL, to your model server)"
    return new ParlanceError('unavailable', `cannot reach the model server at ${url}: ${cause}${hint}`, { url }, { cause: err })
  }
  const keyHint = err.status === 401 || err.status === 403 ? (server.keyGiven ? ' (check OPENAI_API_KEY)' : ' (OPENAI_API_KEY is not set)') : ''
  const said = err.message.replace(/^\d{3} /, '') // the client's message starts with the status again
  return new ParlanceError(
    'execution_error',
    `the model server at ${url} answered ${err.status ?? 'an error'}: ${said}${keyHint}`,
    { status: err.status ?? null, url },
    { cause: err },
  )
}

/** The innermost cause's code or message (fetch wraps ECONNREFUSED in "fetch failed" in "Connection error."). */
function networkCause(err: unknown): string {
  let e: unknown = err
  for (let i = 0; i < 5 && e instanceof Error && e.cause !== undefined; i++) e = e.cause
  const code = (e as { code?: unknown } | undefined)?.code
  const message = e instanceof Error ? e.message : String(e)
  return typeof code === 'string' ? `${code} (${message.replace(/^connect /, '')})` : message
}
