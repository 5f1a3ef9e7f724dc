import { addUsage, type TokenUsage } from '../../src/core/events.js'
import type { CanonicalEvent } from './api.js'
import { brief } from './dom.js'

/** The event without the fields every row shows anyway (seq, type) or that are the same on every row of a session. */
export function eventBody(e: CanonicalEvent): Record<string, unknown> {
  const { seq: _s, ts: _t, sessionId: _i, runId: _r, type: _y, ...rest } = e
  return rest
}

/** A message's text by its id (for naming the message a rewind kept), when known. */
export type MessageText = (messageId: string) => string | undefined

/**
 * A canonical event in words, for the events that read badly as JSON: a queued or withdrawn message, a rewound history.
 * Undefined for the others (callers show their JSON).
 */
export function describeEvent(e: CanonicalEvent, textOf: MessageText = () => undefined): string | undefined {
  if (e.type === 'message.queued') return `queued: ${brief(String(e.content), 120)}`
  if (e.type === 'message.withdrawn') {
    const id = String(e.messageId)
    return `withdrawn from the queue: ${quote(textOf(id)) ?? id} (${String(e.reason)})`
  }
  if (e.type === 'history.rewound') {
    const to = typeof e.toMessageId === 'string' ? e.toMessageId : null
    const kept = to === null ? 'the start (nothing kept)' : (quote(textOf(to)) ?? to)
    const extra = [
      typeof e.droppedRunId === 'string' ? `dropped run ${e.droppedRunId}` : '',
      typeof e.branch === 'string' ? `old branch in ${e.branch}` : '',
    ]
      .filter(Boolean)
      .join(', ')
    return `history cut back to ${kept} (${String(e.reason)})${extra ? `; ${extra}` : ''}`
  }
  if (e.type === 'usage') return `tokens: ${usageText(e)} (${e.model})`
  return undefined
}

/** Token counts in words: "20 in (2 cached), 7 out (3 reasoning)"; the counts a report lacks are left out. */
export function usageText(u: TokenUsage): string {
  const n = (k: keyof TokenUsage): number | undefined => u[k]
  const part = (count: number | undefined, what: string, detail: number | undefined, of: string) =>
    count === undefined ? [] : [`${count} ${what}${detail ? ` (${detail} ${of})` : ''}`]
  return (
    [...part(n('inputTokens'), 'in', n('cachedInputTokens'), 'cached'), ...part(n('outputTokens'), 'out', n('reasoningTokens'), 'reasoning')].join(
      ', ',
    ) || 'none reported'
  )
}

/** The `usage` events' counts summed, kind by kind, and how many model calls reported. */
export function usageTotal(events: readonly CanonicalEvent[]): { calls: number; total: TokenUsage } {
  let total: TokenUsage = {}
  let calls = 0
  for (const e of events) {
    if (e.type !== 'usage') continue
    calls++
    total = addUsage(total, e)
  }
  return { calls, total }
}

function quote(text: string | undefined): string | undefined {
  return text === undefined ? undefined : `“${brief(text, 60)}”`
}

/** Collects each message's text as the events go by (user messages, queued ones, streamed and whole answers). */
export class MessageTexts {
  private readonly texts = new Map<string, string>()

  add(e: CanonicalEvent): void {
    if ((e.type === 'message.user' || e.type === 'message.queued') && typeof e.messageId === 'string') this.texts.set(e.messageId, String(e.content))
    else if (e.type === 'text.delta' && typeof e.messageId === 'string')
      this.texts.set(e.messageId, (this.texts.get(e.messageId) ?? '') + String(e.delta))
  }

  readonly get: MessageText = (id) => this.texts.get(id)
}
