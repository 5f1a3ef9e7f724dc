import type { Message, Tool } from '@ag-ui/client'
import { toolJsonSchema, type RunContext, type ToolDefinition } from '../../agent-api/index.js'
import { bridgedErrorCode, ParlanceError, stringOf, toolResultOf, type HistoryMessage, type Json } from '../../core/index.js'
import { CUSTOM, toAguiMessage as toWire } from '../../dialects/agui/index.js'

/**
 * Names of the CUSTOM events Parlance's own AG-UI endpoint uses for canonical events AG-UI has no event for:
 * the codec's table, so a bridge in front of another Parlance reads exactly what that one writes.
 */
export const PARLANCE_CUSTOM = CUSTOM

/** A canonical history message as an AG-UI message (the codec's conversion, typed for `@ag-ui/client`). */
export const toAguiMessage = (m: HistoryMessage): Message => toWire(m) as Message

/** The conversation the remote agent gets: the history, plus the triggering text of a context update (not part of the history). */
export function remoteMessages(ctx: RunContext, newId: () => string): Message[] {
  const messages = ctx.history.map(toAguiMessage)
  if (ctx.input.kind === 'context') messages.push({ id: ctx.input.messageId || newId(), role: 'user', content: ctx.input.text })
  return messages
}

/** The tools offered to the remote agent as frontend tools: the bridge's own, then those the Parlance client offered. */
export function offeredTools(ctx: RunContext, own: Readonly<Record<string, ToolDefinition>>): Tool[] {
  const out = new Map<string, Tool>()
  const add = (name: string, description: string | undefined, parameters: Json | undefined) =>
    out.set(name, { name, description: description ?? '', parameters: parameters ?? { type: 'object', properties: {} } })
  for (const [name, t] of Object.entries(own)) add(name, t.description, toolJsonSchema(name, t))
  for (const t of ctx.input.clientTools) add(t.name, t.description, t.parameters)
  return [...out.values()]
}

/** A TOOL_CALL_RESULT's content as the tool's result: JSON when it parses, else the text. */
export function parseContent(content: unknown): Json {
  return typeof content === 'string' ? toolResultOf(content) : ((content ?? null) as Json)
}

/** A RUN_ERROR of the agent (`who`: 'the remote AG-UI agent') as the Parlance run's error. */
export function remoteRunError(who: string, details: Record<string, Json>, message: string, code: string | undefined): ParlanceError {
  return new ParlanceError(bridgedErrorCode(code), `${who} failed: ${message}`, { ...details, ...(code !== undefined ? { remoteCode: code } : {}) })
}

/** A failed request to the remote agent (no connection, an HTTP error status) as the bridge run's error. */
export function requestError(url: string, err: unknown): ParlanceError {
  const e = err as { status?: unknown; payload?: unknown; message?: unknown; cause?: { message?: unknown; code?: unknown } }
  if (typeof e?.status === 'number') {
    const payload = e.payload as { error?: { message?: unknown } } | undefined
    const detail = typeof payload?.error?.message === 'string' ? payload.error.message : stringOf(e.message)
    return new ParlanceError(
      e.status >= 500 ? 'unavailable' : 'execution_error',
      `the remote AG-UI agent at ${url} answered HTTP ${e.status}: ${detail}`,
      { remote: url, status: e.status },
      { cause: err },
    )
  }
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err)
  return new ParlanceError(
    'unavailable',
    `the remote AG-UI agent at ${url} could not be reached (${stringOf(cause)})`,
    { remote: url },
    { cause: err },
  )
}

/**
 * Where to cancel a thread's run on a remote Parlance server (`POST …/agui/threads/:id/cancel`), derived
 * from a run URL ending in `/agui` or `/agui/:agent`; null for other servers (aborting the request is all
 * AG-UI defines).
 */
export function parlanceCancelUrl(runUrl: string): ((threadId: string) => string) | null {
  const u = new URL(runUrl)
  const m = /^(.*\/agui)(?:\/[A-Za-z0-9_.-]{1,64})?\/?$/.exec(u.pathname)
  if (!m) return null
  const base = `${u.origin}${m[1]}/threads/`
  return (threadId) => `${base}${encodeURIComponent(threadId)}/cancel`
}
