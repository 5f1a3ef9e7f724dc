import type { IncomingMessage, ServerResponse } from 'node:http'
import { context, extractTraceContext, failSpan, ROOT_CONTEXT, startRequestSpan, type Span } from '../telemetry/index.js'
import type { Endpoint } from './endpoint.js'

/** Methods that only read (a stream resumed, a poll, a page): they start no work and get no span. */
const READS: ReadonlySet<string | undefined> = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Offers an HTTP request to the endpoints in order (the first that claims it owns it); true when one did. A
 * request that may start work (any method but GET, HEAD and OPTIONS) gets a `parlance.request <dialect>` server
 * span, child of the trace context it carried in (`traceparent`/`tracestate`, read by the registered propagator),
 * active while the endpoint carries it out, so the runs it starts are its children; it ends when the response
 * does. With no tracing SDK registered the span is a no-op.
 */
export function offerRequest(endpoints: readonly Endpoint[], req: IncomingMessage, res: ServerResponse, url: URL): boolean {
  if (READS.has(req.method)) {
    for (const e of endpoints) if (e.request?.(req, res, url)) return true
    return false
  }
  const { span, ctx } = startRequestSpan('http', extractTraceContext(req.headers), {
    'http.request.method': req.method ?? '',
    'url.path': url.pathname,
  })
  const offer = (): boolean => {
    for (const e of endpoints) {
      if (!e.request?.(req, res, url)) continue
      span.updateName(`parlance.request ${e.dialect}`)
      span.setAttribute('parlance.dialect', e.dialect)
      if (res.writableFinished) endHttpSpan(span, res)
      else res.once('close', () => endHttpSpan(span, res))
      return true
    }
    span.end()
    return false
  }
  try {
    return context.with(ctx, offer)
  } catch (err) {
    // An endpoint that throws breaks its contract; the server answers it, and the span says so.
    failSpan(span, err)
    throw err
  }
}

function endHttpSpan(span: Span, res: ServerResponse): void {
  if (span.isRecording()) span.setAttribute('http.response.status_code', res.statusCode)
  if (res.statusCode >= 500) failSpan(span, new Error(`HTTP ${res.statusCode}`))
  else span.end()
}

/** Client commands that start or steer work: a turn, a tool result, an approval answer, a cancel, a triggering update. */
const WORK: ReadonlySet<unknown> = new Set(['user.message', 'run.regenerate', 'tool.result', 'approval.response', 'run.cancel', 'context.update'])

/**
 * The command type of a decoded socket frame when it starts work (a canonical command, or MyAgent's
 * `{ kind: 'command', command }`), else null: acks, heartbeats and resumes get no span.
 */
export function workOf(decoded: unknown): string | null {
  const d = decoded as { type?: unknown; kind?: unknown; command?: { type?: unknown } }
  const type = d.kind === 'command' ? d.command?.type : d.type
  return WORK.has(type) ? (type as string) : null
}

/**
 * Carries out one socket frame that starts work inside a `parlance.request <dialect>` span (a new trace: a long-lived
 * socket's frames are not children of its handshake); a throw fails the span and is rethrown for the runner to answer.
 */
export async function tracedFrame(dialect: string, command: string, handle: () => Promise<void> | void): Promise<void> {
  const { span, ctx } = startRequestSpan(dialect, ROOT_CONTEXT, { 'parlance.command': command })
  try {
    await context.with(ctx, handle)
  } catch (err) {
    failSpan(span, err)
    throw err
  }
  span.end()
}
