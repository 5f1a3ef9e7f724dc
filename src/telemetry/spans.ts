import { context, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api'
import { failSpan, parentOf, tracer } from './tracer.js'

/**
 * The spans of a run and of what it waits for. Names and attributes follow the OpenTelemetry GenAI semantic
 * conventions where they have one (`invoke_agent`, `execute_tool`, `chat`; `gen_ai.*`), else `parlance.*`.
 */

/** A run's span and the context its work runs in (the span active). */
export interface RunTrace {
  readonly span: Span
  readonly ctx: Context
}

/** Starts the span of run `runId` of `agent` in session `sessionId`, child of `parent` (the request that started it). */
export function startRunSpan(agent: string, sessionId: string, runId: string, parent: Context): RunTrace {
  const span = tracer.startSpan(
    `invoke_agent ${agent}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': agent,
        'gen_ai.conversation.id': sessionId,
        'parlance.session.id': sessionId,
        'parlance.run.id': runId,
      },
    },
    parent,
  )
  return { span, ctx: trace.setSpan(parent, span) }
}

/** Ends a run's span with how the run ended: `finished`, or its error code (`cancelled`, `interrupted`, …). */
export function endRunSpan(span: Span, outcome: string, message?: string): void {
  if (span.isRecording()) {
    span.setAttribute('parlance.run.outcome', outcome)
    if (outcome !== 'finished') {
      span.setAttribute('error.type', outcome)
      span.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined ? { message } : {}) })
    }
  }
  span.end()
}

/**
 * Runs `fn` inside an `execute_tool <name>` span (its result ends it; a throw ends it as an error). The span's
 * parent is the span active where the tool was called, else the run's.
 */
export async function inToolSpan<T>(name: string, toolCallId: string, target: 'server' | 'client', run: Context, fn: () => Promise<T>): Promise<T> {
  const parent = parentOf(run)
  const span = tracer.startSpan(
    `execute_tool ${name}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': name,
        'gen_ai.tool.call.id': toolCallId,
        'gen_ai.tool.type': target === 'server' ? 'extension' : 'function',
        'parlance.tool.target': target,
      },
    },
    parent,
  )
  let out: T
  try {
    out = await context.with(trace.setSpan(parent, span), fn)
  } catch (err) {
    failSpan(span, err)
    throw err
  }
  span.end()
  return out
}

/** Starts the span of an approval wait, from the request to the answer (`endApprovalSpan`). */
export function startApprovalSpan(toolName: string, approvalId: string, run: Context): Span {
  return tracer.startSpan(
    `parlance.approval ${toolName}`,
    { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.tool.name': toolName, 'parlance.approval.id': approvalId } },
    parentOf(run),
  )
}

/** Ends an approval wait's span with the decision: approved or not, and by whom (`user`, `timeout`, `cancel`). */
export function endApprovalSpan(span: Span, approved: boolean, by: string): void {
  if (span.isRecording()) {
    span.setAttribute('parlance.approval.approved', approved)
    span.setAttribute('parlance.approval.by', by)
  }
  span.end()
}

/** What a model call's span says about the call once it is over (what the provider reported). */
export interface ChatOutcome {
  responseModel?: string
  responseId?: string
  finishReason?: string
  inputTokens?: number
  outputTokens?: number
}

/**
 * Starts the `chat <model>` client span of one model call (GenAI conventions: `gen_ai.operation.name` chat,
 * the provider under both `gen_ai.provider.name` and the older `gen_ai.system`, the requested model, the server),
 * started now or at `startTime` (ms since the epoch: when the request was sent, if the call is seen later).
 */
export function startChatSpan(provider: string, model: string, server?: { address: string; port?: number }, startTime?: number): Span {
  return tracer.startSpan(`chat ${model}`, {
    kind: SpanKind.CLIENT,
    ...(startTime !== undefined ? { startTime } : {}),
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': provider,
      'gen_ai.system': provider,
      'gen_ai.request.model': model,
      ...(server ? { 'server.address': server.address, ...(server.port !== undefined ? { 'server.port': server.port } : {}) } : {}),
    },
  })
}

/** Ends a model call's span with what the provider reported: response model and id, finish reason, token usage. */
export function endChatSpan(span: Span, o: ChatOutcome): void {
  if (span.isRecording()) {
    if (o.responseModel) span.setAttribute('gen_ai.response.model', o.responseModel)
    if (o.responseId) span.setAttribute('gen_ai.response.id', o.responseId)
    if (o.finishReason) span.setAttribute('gen_ai.response.finish_reasons', [o.finishReason])
    if (o.inputTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', o.inputTokens)
    if (o.outputTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', o.outputTokens)
  }
  span.end()
}

/** The server a model client talks to, for `server.address`/`server.port`; undefined for a URL that does not parse. */
export function serverOf(url: string): { address: string; port?: number } | undefined {
  try {
    const u = new URL(url)
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : undefined
    return { address: u.hostname.replace(/^\[(.*)\]$/, '$1'), ...(port !== undefined ? { port } : {}) }
  } catch {
    return undefined
  }
}
