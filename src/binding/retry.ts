import type { StoredEvent } from '../core/index.js'
import type { Session } from '../session/index.js'

/** A run a retried request re-attaches to: its id and the seq of its first event (its `message.user`). */
export interface AnsweringRun {
  runId: string
  seq: number
  /** The `message.user` metadata the run's request recorded (AG-UI: the client's `runId`). */
  metadata?: Record<string, unknown>
}

/**
 * The run that answers user message `messageId` now: the run its `message.user` started, or the latest
 * regenerate of that message since. With `tag` (a metadata key and value the request recorded on its
 * `message.user`, such as AG-UI's run id), only the run whose message carries it. Read from the session's
 * committed log (so on any node and after a restart), a page at a time: only requests that resend a stored
 * message (retries, regenerates) pay for it. Null when the log has no such run.
 */
export async function runAnswering(
  session: Session,
  messageId: string,
  pageSize: number,
  tag?: readonly [string, unknown],
): Promise<AnsweringRun | null> {
  let found: AnsweringRun | null = null
  const end = session.committedSeq
  for (let after = 0; after < end;) {
    const page: StoredEvent[] = await session.deps.store.read(session.id, after, Math.min(pageSize, end - after))
    if (page.length === 0) break
    for (const e of page) {
      if (e.type === 'message.user' && e.messageId === messageId) {
        if (!tag || e.metadata?.[tag[0]] === tag[1]) found = { runId: e.runId, seq: e.seq, ...(e.metadata ? { metadata: e.metadata } : {}) }
      } else if (!tag && e.type === 'history.rewound' && e.reason === 'regenerate' && e.toMessageId === messageId && e.runId !== '') {
        // A regenerate's first event is its cut back to the message, recorded under the new run's id.
        found = { runId: e.runId, seq: e.seq }
      }
    }
    after = page.at(-1)!.seq
  }
  return found
}
