import { createHash, randomUUID } from 'node:crypto'
import { HttpAgent } from '@ag-ui/client'
import type { AgentDefinition, ToolDefinition } from '../../agent-api/index.js'
import { ParlanceError } from '../../core/index.js'
import { parlanceCancelUrl, remoteMessages, requestError } from './convert.js'
import { aguiRunner, type AguiRun } from './runner.js'
import { withTraceHeaders } from '../../telemetry/index.js'

export { aguiAgent, type AguiAgentOptions } from './inprocess.js'

/** Options of `aguiBridgeAgent`. */
export interface AguiBridgeOptions {
  /** The remote agent's AG-UI run URL (HTTP POST answering Server-Sent Events), e.g. `http://127.0.0.1:9000/agui`. */
  url: string
  /** Headers sent with every request to the remote agent (e.g. `Authorization`). */
  headers?: Record<string, string>
  /** Registry name. @default 'agui' */
  name?: string
  /** @default 'AG-UI agent at <url>' */
  description?: string
  /**
   * Tools offered to the remote agent as frontend tools (AG-UI `tools`). With `execute` they run in this
   * process when the remote calls them; without, the Parlance client runs them. A tool the remote asks the
   * client to run that is not listed here is sent to the Parlance client as well.
   */
  tools?: Record<string, ToolDefinition>
  /** Remote runs per Parlance run (each client tool answer or approval answer is one more) before it fails. @default 32 */
  maxRounds?: number
  /**
   * How a cancelled Parlance run stops the remote run, besides aborting the request (which a Parlance
   * remote does not treat as a cancel): 'auto' posts to Parlance's `…/agui/threads/:id/cancel` when the URL
   * ends in `/agui` or `/agui/:agent`; a function returns the URL to POST to; false only aborts.
   * @default 'auto'
   */
  cancelUrl?: 'auto' | false | ((threadId: string) => string)
  /**
   * The remote `threadId` of a Parlance session. 'derived' (the default): a stable id of its own per bridge and
   * session (`pl-` + a hash of the bridge's name, URL and the session id), so a session resumed after a restart
   * stays on its remote thread, while the remote never receives an id that already names a session of this
   * server or of another bridge (two Parlance processes sharing a store would otherwise write one session from
   * both sides). 'session': the session id itself (when the remote must see the caller's id). A function: your own
   * mapping, which must be stable for a session to keep its remote thread.
   * @default 'derived'
   */
  remoteThreadId?: 'derived' | 'session' | ((sessionId: string) => string)
  /** How long to wait for the remote's response to start (its HTTP status), per request; the stream itself may last. @default 30000 */
  responseTimeoutMs?: number
}

/** Longest a remote cancel request may take (ms); the next run of the same session waits for it. */
const CANCEL_TIMEOUT_MS = 5_000

/**
 * An agent that is a remote AG-UI agent: every Parlance run becomes one or more runs of the remote agent
 * through `@ag-ui/client`'s `HttpAgent` (a threadId of its own per session, see `remoteThreadId`; the
 * conversation and state as input) — the `HttpAgent` case of `aguiAgent`, plus what HTTP adds: a response
 * timeout, a clear error when the remote cannot be reached or its stream dies, and a remote cancel.
 * Text and reasoning stream, steps, state snapshots and deltas, Parlance's plan/progress/status events and
 * custom events pass through; the remote's own tool calls are reported with `ctx.externalTool`; frontend
 * tool calls it leaves pending go to the Parlance client (`ctx.callTool`) and their results back in a
 * follow-up run; an `interrupt` outcome becomes `ctx.approve` and a follow-up run with `resume`;
 * `RUN_ERROR` fails the run; cancelling the Parlance run aborts the remote one.
 * @example
 * const server = await createServer({ agents: [aguiBridgeAgent({ url: 'http://127.0.0.1:9000/agui' })] })
 */
export function aguiBridgeAgent(options: AguiBridgeOptions): AgentDefinition {
  const url = checkUrl(options.url)
  const headers = { ...options.headers }
  const name = options.name ?? 'agui'
  const cancelUrl = options.cancelUrl === false ? null : typeof options.cancelUrl === 'function' ? options.cancelUrl : parlanceCancelUrl(url)
  const responseTimeoutMs = options.responseTimeoutMs ?? 30_000
  const threadOf = remoteThreads(options.remoteThreadId ?? 'derived', name, url)
  /** Remote cancels still in flight, by session: the session's next run waits for its own cancel to land first. */
  const cancelling = new Map<string, Promise<void>>()

  function cancelRemote(threadId: string): void {
    if (!cancelUrl) return
    const p: Promise<void> = fetch(cancelUrl(threadId), {
      method: 'POST',
      headers: withTraceHeaders(headers),
      signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS),
    })
      .then((r) => r.body?.cancel())
      .catch(() => {})
      .finally(() => {
        if (cancelling.get(threadId) === p) cancelling.delete(threadId)
      })
    cancelling.set(threadId, p)
  }

  return aguiRunner({
    name,
    description: options.description ?? `AG-UI agent at ${url}`,
    tools: options.tools ?? {},
    maxRounds: options.maxRounds ?? 32,
    where: `the remote AG-UI agent at ${url}`,
    who: 'the remote AG-UI agent',
    details: { remote: url },
    failed: (err) => requestError(url, err),
    async begin(ctx): Promise<AguiRun> {
      const threadId = threadOf(ctx.sessionId)
      await cancelling.get(threadId)
      let streamFailure: unknown
      const fetchRemote = fetchWithin(responseTimeoutMs, (err) => (streamFailure ??= err))
      return {
        // The run's trace context (traceparent/tracestate) goes to the remote agent, under the registered propagator.
        agent: new HttpAgent({
          url,
          headers: withTraceHeaders(headers),
          fetch: fetchRemote,
          threadId,
          initialMessages: remoteMessages(ctx, randomUUID),
          initialState: ctx.state,
        }),
        takeStreamFailure() {
          const f = streamFailure
          streamFailure = undefined
          return f
        },
        onAbort: (active) => active && cancelRemote(threadId),
        onFailure: () => cancelRemote(threadId),
      }
    },
  })
}

/**
 * `fetch` that gives up when the response has not started within `ms` (a remote that accepts the connection
 * and never answers would otherwise hold the run until it is cancelled). The body is not limited.
 */
function fetchWithin(ms: number, onStreamFailure: (err: unknown) => void): (url: string, init: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const ac = new AbortController()
    const outer = init.signal
    const onAbort = () => ac.abort(outer?.reason)
    if (outer?.aborted) onAbort()
    else outer?.addEventListener('abort', onAbort, { once: true })
    const timer = setTimeout(() => ac.abort(new Error(`no response within ${ms} ms`)), ms)
    try {
      return endQuietly(await fetch(url, { ...init, signal: ac.signal }), onStreamFailure)
    } finally {
      clearTimeout(timer)
    }
  }
}

/**
 * The response with a body that ends instead of erroring when the connection dies mid-stream, the failure going
 * to `onFailure` (the run then fails as `unavailable`). `@ag-ui/client` cancels the body reader when a run ends
 * and rethrows any rejection other than an AbortError from a `.catch` handler; cancelling an errored stream
 * rejects with its error, so an upstream that died mid-stream (undici's `TypeError: terminated`) became an
 * unhandled rejection that killed the process (issue 22, finding 1).
 */
function endQuietly(res: Response, onFailure: (err: unknown) => void): Response {
  const source = res.body
  if (!source) return res
  const reader = source.getReader()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = (await reader.read()) as { done: boolean; value?: Uint8Array }
        if (chunk.done || !chunk.value) controller.close()
        else controller.enqueue(chunk.value)
      } catch (err) {
        onFailure(err)
        controller.close()
      }
    },
    cancel: (reason) => reader.cancel(reason).catch(() => {}),
  })
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
}

/** The run URL, checked: an absolute http(s) URL. */
function checkUrl(raw: string): string {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new ParlanceError('invalid_message', `the AG-UI agent URL "${raw}" is not a valid URL (expected e.g. http://127.0.0.1:9000/agui)`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ParlanceError('invalid_message', `the AG-UI agent URL "${raw}" must be http: or https:, not ${u.protocol}`)
  return u.toString()
}

/** The session → remote threadId mapping of `AguiBridgeOptions.remoteThreadId`. */
function remoteThreads(mode: NonNullable<AguiBridgeOptions['remoteThreadId']>, name: string, url: string): (sessionId: string) => string {
  if (typeof mode === 'function') return mode
  if (mode === 'session') return (sessionId) => sessionId
  if (mode !== 'derived') throw new TypeError(`remoteThreadId must be 'derived', 'session' or a function, not ${JSON.stringify(mode)}`)
  return (sessionId) => derivedRemoteThreadId(name, url, sessionId)
}

/**
 * The remote `threadId` that a bridge named `name` for `url` uses for `sessionId` under the default
 * `remoteThreadId: 'derived'`: `pl-` + 32 base64url characters of SHA-256(name, url, session id). Use it to find
 * a session's thread on the remote side (its logs, its store). `name` defaults to 'agui' in the bridge; `url` is
 * its URL as given.
 */
export function derivedRemoteThreadId(name: string, url: string, sessionId: string): string {
  return `pl-${createHash('sha256')
    .update(`${name}\n${checkUrl(url)}\n${sessionId}`)
    .digest('base64url')
    .slice(0, 32)}`
}
