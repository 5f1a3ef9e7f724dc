import { ParlanceError, type Command, type StoredEvent } from '../core/index.js'
import { RAW_EVENTS, type Session } from '../session/index.js'
import { carryOut } from './carry-out.js'

/** What `followRun` reports. */
export interface RunFollowerHandlers {
  /** Each event of the followed run, in order (from the command on). */
  event(e: StoredEvent): void
  /** The command was refused, or the run did not start. */
  failed(err: Error): void
}

/**
 * Carries out `cmd` (a user turn, an answer) and follows the run it starts or continues: every committed event of
 * that run, from the command on, goes to `event` in order; events committed before the run is known are held and
 * then filtered by it. `runId`: the run already known (an answer to it), else the one the command starts. For
 * request/response dialects that answer one run per call (MCP tool calls, A2A tasks). `close` stops following.
 */
export function followRun(session: Session, cmd: Command, label: string, handlers: RunFollowerHandlers, runId: string | null = null): { runId(): string | null; close(): void } {
  let following = runId
  let closed = false
  const early: StoredEvent[] = []
  const sub = session.subscribe(
    {
      codecKey: label,
      encoder: RAW_EVENTS,
      view: null,
      write(frames) {
        for (const e of frames as StoredEvent[]) {
          if (closed) break
          if (following === null) early.push(e)
          else if (e.runId === following) handlers.event(e)
        }
        return true
      },
    },
    session.lastSeq,
  )
  carryOut(session, [cmd]).then(
    ({ follow }) => {
      if (closed || following !== null) return
      if (follow === null) return handlers.failed(new ParlanceError('internal', 'the run did not start'))
      following = follow
      for (const e of early.splice(0)) if (!closed && e.runId === follow) handlers.event(e)
    },
    (err: unknown) => {
      if (!closed) handlers.failed(err instanceof Error ? err : new Error(String(err)))
    },
  )
  return {
    runId: () => following,
    close() {
      closed = true
      sub.close()
    },
  }
}
