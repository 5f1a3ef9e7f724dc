import { ParlanceError, type Command, type StoredEvent } from '../core/index.js'
import type { RunFollowerHandlers } from './follow-run.js'
import { RAW_EVENTS, type Session } from '../session/index.js'

/** What `followMessage` reports: the run's events, a refusal, and that the message waits in the session's queue. */
export interface MessageFollowerHandlers extends RunFollowerHandlers {
  /** The message was queued behind the active run (the `enqueue` policy); its run starts when the queue reaches it. */
  queued?(e: Extract<StoredEvent, { type: 'message.queued' }>): void
}

/** A user message with the id its run is found by. */
export type IdentifiedMessage = Extract<Command, { type: 'user.message' }> & { messageId: string }

/**
 * Carries out user message `cmd` and follows the run that answers it, found by the `message.user` event carrying
 * its `messageId`: a run started now, or later when the message was queued (`followRun` follows the session's
 * active run, which for a queued message is someone else's). For request/response dialects that answer one user
 * message per call (MCP tool calls, A2A tasks, HugAI tasks). A history cut recorded just before that event
 * (`history.rewound` of a rollback) is part of the run and is delivered first. `close` stops following.
 */
export function followMessage(session: Session, cmd: IdentifiedMessage, label: string, handlers: MessageFollowerHandlers): { runId(): string | null; close(): void } {
  let following: string | null = null
  let closed = false
  // Only history cuts may precede a run's message.user (see Writer.startRun), so only they are held: at most two.
  let cuts: StoredEvent[] = []
  const sub = session.subscribe(
    {
      codecKey: label,
      encoder: RAW_EVENTS,
      view: null,
      write(frames) {
        for (const e of frames as StoredEvent[]) {
          if (closed) break
          if (following !== null) {
            if (e.runId === following) handlers.event(e)
          } else if (e.type === 'message.queued' && e.messageId === cmd.messageId) {
            handlers.queued?.(e)
          } else if (e.type === 'message.withdrawn' && e.messageId === cmd.messageId) {
            closed = true
            sub.close()
            handlers.failed(new ParlanceError('cancelled', `the queued message was withdrawn: ${e.reason}`, { messageId: e.messageId }))
          } else if (e.type === 'history.rewound') {
            cuts = cuts[0]?.runId === e.runId ? [...cuts, e] : [e]
          } else if (e.type === 'message.user' && e.messageId === cmd.messageId) {
            following = e.runId
            for (const cut of cuts) if (!closed && cut.runId === following) handlers.event(cut)
            cuts = []
            if (!closed) handlers.event(e)
          }
        }
        return true
      },
    },
    session.lastSeq,
  )
  void (async () => session.handle(cmd))().catch((err: unknown) => {
    if (!closed) handlers.failed(err instanceof Error ? err : new Error(String(err)))
  })
  return {
    runId: () => following,
    close() {
      closed = true
      sub.close()
    },
  }
}
