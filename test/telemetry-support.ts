// Registers an OpenTelemetry SDK in the test process, as an application would: a tracer provider exporting to
// memory, an AsyncLocalStorage context manager and the W3C trace-context propagator. Parlance itself depends on
// @opentelemetry/api only; these three are dev dependencies.
import { randomBytes } from 'node:crypto'
import { context, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { waitFor } from './support/wait.js'

export const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
trace.setGlobalTracerProvider(provider)
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
propagation.setGlobalPropagator(new W3CTraceContextPropagator())

/** A fresh W3C `traceparent` (sampled) and its ids. */
export function inboundTrace(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex')
  const spanId = randomBytes(8).toString('hex')
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` }
}

/** The ended spans so far. */
export const spans = (): ReadableSpan[] => exporter.getFinishedSpans()

/** The id of a span's parent ('' for a root). */
export const parentOf = (s: ReadableSpan): string => s.parentSpanContext?.spanId ?? ''

/** Waits for an ended span matching `pred` (bounded), and returns it. */
export function span(what: string, pred: (s: ReadableSpan) => boolean, timeoutMs = 10_000): Promise<ReadableSpan> {
  return waitFor(() => spans().find(pred), { what: `the span ${what}`, timeoutMs })
}

/** Parses a `traceparent` header into its trace and parent span ids. */
export function parseTraceparent(header: string | string[] | undefined): { traceId: string; spanId: string } {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(header))
  if (!m) throw new Error(`not a traceparent: ${String(header)}`)
  return { traceId: m[1]!, spanId: m[2]! }
}
