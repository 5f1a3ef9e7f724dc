import type { StoredEvent } from '../core/index.js'

// The body of an SQLite event block: a JSON array of consecutive events of one session, each written without
// `sessionId` (the block's key holds it) and without `runId` when it is the previous event's. A streamed token
// is ~115 bytes instead of ~188 (its session id and run id were 40 % of it), which the store writes, the WAL
// and checkpoints copy, and a replay parses. Blocks an older version wrote carry both on every event and read
// the same way: a field present is kept.
//
// Streamed deltas — nearly every event of a stream — are serialized by hand: their shape is fixed (`type`,
// `messageId`, `delta`, then the stored fields), so no copy of the event without its ids is needed, and the
// part before the text is made once per message (0.44 instead of 0.66 µs per event, the insert included,
// before that memo). Every other event is copied and JSON.stringify'd.
// (The journal row stays JSON.stringify of the whole events: built by hand, the string costs as much to
// flatten for the insert as JSON.stringify saves.)

const json = JSON.stringify

/** The body of a block holding `events[from..to)` (one session's, consecutive). */
export function encodeBlock(events: readonly StoredEvent[], from: number, to: number): string {
  let s = '['
  let run: string | undefined
  // A delta's JSON up to its text, made once per streamed message instead of once per token.
  let headType = ''
  let headId = ''
  let head = ''
  for (let i = from; i < to; i++) {
    const e = events[i]!
    const newRun = e.runId !== run
    run = e.runId
    if (i > from) s += ','
    if (e.type === 'text.delta' || e.type === 'reasoning.delta') {
      if (e.type !== headType || e.messageId !== headId) {
        headType = e.type
        headId = e.messageId
        head = `{"type":"${e.type}","messageId":${json(e.messageId)},"delta":`
      }
      s += `${head}${json(e.delta)}${newRun ? `,"runId":${json(run)}` : ''},"seq":${e.seq},"ts":${e.ts}}`
    } else s += json(withoutIds(e, newRun))
  }
  return s + ']'
}

/** `e` without `sessionId`, and without `runId` unless `keepRun`. */
function withoutIds(e: StoredEvent, keepRun: boolean): Record<string, unknown> {
  const src = e as unknown as Record<string, unknown>
  const r: Record<string, unknown> = {}
  for (const k in src) {
    if (k === 'sessionId' || (k === 'runId' && !keepRun)) continue
    r[k] = src[k]
  }
  return r
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
