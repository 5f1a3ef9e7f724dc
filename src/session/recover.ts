import type { EventBody, SessionId, StoredEvent } from '../core/index.js'
import type { SessionRecord } from '../store/index.js'

/** Reads committed events; the store's `read` in practice. */
type Read = (sessionId: SessionId, afterSeq: number, limit: number) => Promise<StoredEvent[]>

/**
 * The events that close what a run left open when the process died: text
 * and reasoning messages without an end, client tool calls without a result,
 * approvals without an answer. Scans the log backwards from `lastSeq` to the
 * run's `run.started`, one page at a time (restarts are rare; the scan is
 * bounded by the run's length).
 */
export async function closingEvents(read: Read, sessionId: SessionId, runId: string, lastSeq: number, pageSize = 1000): Promise<EventBody[]> {
  const ended = new Set<string>()
  const closing: EventBody[] = []
  for (let upTo = lastSeq; upTo > 0; upTo -= pageSize) {
    const from = Math.max(0, upTo - pageSize)
    const page = await read(sessionId, from, upTo - from)
    for (let i = page.length - 1; i >= 0; i--) {
      const e = page[i]!
      if (e.runId !== runId) continue
      switch (e.type) {
        case 'run.started':
          return closing.reverse()
        case 'text.end':
        case 'reasoning.end':
          ended.add(e.messageId)
          break
        case 'text.start':
          if (!ended.has(e.messageId)) closing.push({ type: 'text.end', messageId: e.messageId, cut: true })
          break
        case 'reasoning.start':
          if (!ended.has(e.messageId)) closing.push({ type: 'reasoning.end', messageId: e.messageId })
          break
        case 'tool.result':
        case 'tool.error':
        case 'tool.cancel':
          ended.add(e.toolCallId)
          break
        case 'tool.call':
          if (e.target === 'client' && !ended.has(e.toolCallId)) {
            closing.push({ type: 'tool.cancel', toolCallId: e.toolCallId, toolName: e.toolName, reason: 'the server stopped' })
          }
          break
        case 'typing':
          // A messaging burst the run left open gets its typing indicator turned off.
          if (e.toolCallId !== undefined) {
            if (!e.active) ended.add(e.toolCallId)
            else if (!ended.has(e.toolCallId)) closing.push({ type: 'typing', active: false, toolCallId: e.toolCallId, reason: 'canceled' })
          }
          break
        case 'approval.resolved':
          ended.add(e.approvalId)
          break
        case 'approval.requested':
          if (!ended.has(e.approvalId)) closing.push({ type: 'approval.resolved', approvalId: e.approvalId, approved: false, by: 'cancel' })
          break
      }
    }
  }
  return closing.reverse()
}

/**
 * The events of run `runId` (its user message or `run.started` through `lastSeq`), ascending: scanned back
 * from `lastSeq` while events belong to the run. For a replica attaching clients to a run active elsewhere:
 * where the run starts, and what it waits for.
 */
export async function runEvents(read: Read, sessionId: SessionId, runId: string, lastSeq: number, pageSize = 1000): Promise<StoredEvent[]> {
  const pages: StoredEvent[][] = []
  for (let upTo = lastSeq; upTo > 0; upTo -= pageSize) {
    const from = Math.max(0, upTo - pageSize)
    const page = await read(sessionId, from, upTo - from)
    let i = page.length
    while (i > 0 && page[i - 1]!.runId === runId) i--
    pages.unshift(i === 0 ? page : page.slice(i))
    if (i > 0 || page.length === 0) break
  }
  return pages.flat()
}

/** Why a fork's record shows a run active: the fork was cut while it ran (its log ends at the fork point). */
export function forkCutMessage(record: SessionRecord): string | undefined {
  const f = record.forkedFrom
  if (!f || !record.activeRunId || record.lastSeq !== f.atSeq) return undefined
  return `this session was forked from ${f.sessionId} at seq ${f.atSeq} while this run was active`
}
