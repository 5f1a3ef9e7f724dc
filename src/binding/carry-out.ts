import type { Command } from '../core/index.js'
import type { Session } from '../session/index.js'

/**
 * Carries out the commands of one HTTP request (AG-UI, AI SDK) and says what its response streams: events
 * after `from`, of run `follow` (null: up to the session's last event). On one node these are the session's
 * last seq before the commands and its active run after them. On a cluster replica the writer reports both,
 * read as it carried the commands out: by the time this node has caught up, a quick run may be over, and an
 * interrupted run's closing events must not leak into the new run's stream.
 */
export async function carryOut(session: Session, commands: readonly Command[]): Promise<{ from: number; follow: string | null }> {
  let from = session.lastSeq
  let follow: string | null | undefined
  let first = true
  for (const cmd of commands) {
    const outcome = await session.handle(cmd)
    if (outcome) {
      if (first) from = outcome.before
      follow = outcome.runId
    }
    first = false
  }
  return { from, follow: follow !== undefined ? follow : session.activeRunId }
}
