import type { StoredEvent } from '../core/index.js'
import type { Session } from '../session/index.js'

/** The last run of a session, when a stop cut it off (a crash, a restart, a node lost): its id and first seq. */
export interface CutRun {
  readonly runId: string
  /** seq of its `run.started`. */
  readonly startSeq: number
}

/** Session-level events (runId '') a session may record after its last run ended: skipped when looking for it. */
const TAIL = 16

/**
 * The session's last run, when it ended `interrupted` (the process running it stopped: after a restart the
 * session load closes it so) no longer than `windowMs` ago and nothing ran since: what a client that asks to
 * re-attach without a seq (useChat's `resume`, AG-UI's events GET) replays, so it sees the stored part and the
 * interrupted end instead of nothing. Older cuts are history, read by seq like any other run.
 */
export async function cutRun(session: Session, windowMs: number, now = Date.now()): Promise<CutRun | null> {
  if (session.activeRunId !== null) return null
  // A session loaded by this request closed its cut run just now: wait until that end is stored.
  if (session.committedSeq < session.lastSeq) await session.deps.store.flush()
  const end = session.committedSeq
  if (end === 0) return null
  const read = (after: number, limit: number): Promise<StoredEvent[]> => session.deps.store.read(session.id, after, limit)
  const tail = await read(Math.max(0, end - TAIL), TAIL)
  const last = tail.findLast((e) => e.runId !== '')
  if (last?.type !== 'run.error' || last.code !== 'interrupted' || now - last.ts >= windowMs) return null
  // Back to its run.started, a page at a time (a run is usually far shorter than a page).
  const page = session.deps.limits.replayPageSize
  for (let upTo = last.seq; upTo > 0; upTo -= page) {
    const events = await read(Math.max(0, upTo - page), Math.min(page, upTo))
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!
      if (e.runId === last.runId && e.type === 'run.started') return { runId: last.runId, startSeq: e.seq }
    }
  }
  return null
}
