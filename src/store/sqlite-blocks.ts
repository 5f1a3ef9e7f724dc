import type { StoredEvent } from '../core/index.js'

// The body of an SQLite event block: a JSON array of consecutive events of one session, each written without
// `sessionId` (the block's key holds it) and without `runId` when it is the previous event's. A streamed token
// is ~115 bytes instead of ~188 (its session id and run id were 40 % of it), which the store writes, the WAL
// and checkpoints copy, and a replay parses. Blocks an older version wrote carry both on every event and read
// the same way: a field present is kept.

/** The body of a block holding `events[from..to)` (one session's, consecutive). */
export function encodeBlock(events: readonly StoredEvent[], from: number, to: number): string {
  const out = new Array<Record<string, unknown>>(to - from)
  let run: string | undefined
  for (let i = from; i < to; i++) {
    const e = events[i]! as unknown as Record<string, unknown>
    const r: Record<string, unknown> = {}
    for (const k in e) {
      if (k === 'sessionId') continue
      if (k === 'runId') {
        if (e.runId === run) continue
        run = e.runId as string
      }
      r[k] = e[k]
    }
    out[i - from] = r
  }
  return JSON.stringify(out)
}

/** The events of a block of `sessionId`, whole again. */
export function decodeBlock(body: string, sessionId: string): StoredEvent[] {
  const events = JSON.parse(body) as Array<Partial<StoredEvent>>
  let run = ''
  for (const e of events) {
    if (e.runId === undefined) e.runId = run
    else run = e.runId
    if (e.sessionId === undefined) e.sessionId = sessionId
  }
  return events as StoredEvent[]
}
