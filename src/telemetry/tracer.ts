import { readFileSync } from 'node:fs'
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapSetter,
} from '@opentelemetry/api'

/**
 * Parlance's OpenTelemetry tracing, through `@opentelemetry/api` only: no SDK is bundled, the application registers
 * its own (see docs/tracing.md). Until one is registered, `trace.getTracer` hands out a no-op tracer whose spans
 * record nothing, `propagation.inject`/`extract` do nothing, and `context.with` just calls its function. Spans are
 * made per request, run, model call, tool call and approval, never per token or per event.
 */

/** The package version, for the tracer's instrumentation scope; undefined if package.json cannot be read. */
function packageVersion(): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name?: unknown; version?: unknown }
    return pkg.name === 'parlance-gateway' && typeof pkg.version === 'string' ? pkg.version : undefined
  } catch {
    return undefined
  }
}

/** The tracer of every Parlance span. A proxy: it follows a provider registered after this module loaded. */
export const tracer = trace.getTracer('parlance-gateway', packageVersion())

/** The context key under which a request span is kept, so the session can name it (`nameRequest`). */
const REQUEST_SPAN = Symbol.for('parlance.request.span')

/** The request span active in this context (one started by `startRequestSpan`), if any. */
export function requestSpan(ctx: Context = context.active()): Span | undefined {
  return ctx.getValue(REQUEST_SPAN) as Span | undefined
}

/**
 * Starts a `parlance.request <dialect>` server span under `parent` and returns it with the context to run the
 * request's work in (the span active and marked as the request's, see `nameRequest`).
 */
export function startRequestSpan(dialect: string, parent: Context, attributes?: Attributes): { span: Span; ctx: Context } {
  const span = tracer.startSpan(
    `parlance.request ${dialect}`,
    { kind: SpanKind.SERVER, attributes: { 'parlance.dialect': dialect, ...attributes } },
    parent,
  )
  return { span, ctx: trace.setSpan(parent, span).setValue(REQUEST_SPAN, span) }
}

/**
 * Tells the request span active here, if any and recording, which session and agent its command went to, and the
 * command's type. Called by the session for every client command; with no SDK registered it reads one context
 * value and returns.
 */
export function nameRequest(sessionId: string, agent: string, command: string): void {
  const span = requestSpan()
  if (!span?.isRecording()) return
  span.setAttribute('parlance.session.id', sessionId)
  span.setAttribute('gen_ai.conversation.id', sessionId)
  span.setAttribute('parlance.agent', agent)
  span.setAttribute('parlance.command', command)
}

/** Ends `span` as failed with `err` (its message, and `error.type`: the ParlanceError code or the class name). */
export function failSpan(span: Span, err: unknown): void {
  if (span.isRecording()) {
    const code = (err as { code?: unknown } | null)?.code
    span.setAttribute('error.type', typeof code === 'string' ? code : err instanceof Error ? err.constructor.name : 'Error')
    if (err instanceof Error) span.recordException(err)
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) })
  }
  span.end()
}

/** The parent for a span made at `ctx`: `ctx` itself when it holds a span, else `fallback` (the run's context). */
export function parentOf(fallback: Context, ctx: Context = context.active()): Context {
  return trace.getSpan(ctx) ? ctx : fallback
}

/** Sets a header on a fetch `Headers` object. */
const headersSetter: TextMapSetter<Headers> = {
  set: (carrier, key, value) => carrier.set(key, value),
}

/**
 * `headers` with the trace context of `ctx` added (W3C `traceparent`/`tracestate` under the usual propagator) for
 * a request to another service: a copy when there is something to add, else `headers` itself.
 */
export function withTraceHeaders(headers: Record<string, string>, ctx: Context = context.active()): Record<string, string> {
  if (!trace.getSpan(ctx)) return headers
  const added: Record<string, string> = {}
  propagation.inject(ctx, added)
  for (const _ in added) return { ...headers, ...added }
  return headers
}

/** Adds the trace context of `ctx` to a fetch `Headers` object (see `withTraceHeaders`). */
export function injectTraceHeaders(headers: Headers, ctx: Context = context.active()): void {
  if (trace.getSpan(ctx)) propagation.inject(ctx, headers, headersSetter)
}

/** The trace context a request carried in (`traceparent`/`tracestate`), as a parent context; ROOT when none. */
export function extractTraceContext(headers: Readonly<Record<string, string | string[] | undefined>>): Context {
  return propagation.extract(ROOT_CONTEXT, headers)
}

export { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span }
