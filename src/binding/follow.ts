import { ParlanceError, type Command, type StoredEvent } from '../core/index.js'
import { RAW_EVENTS, type Session } from '../session/index.js'
import { carryOut } from './carry-out.js'

/** What `follow` reports. */
export interface FollowHandlers {
  /** Each event of the followed run, in order (from the command on). */
  event(e: StoredEvent): void
  /** The command was refused, the run did not start, or a queued message was withdrawn. */
  failed(err: Error): void
  /** The message was queued behind the active run (the `enqueue` policy); its run starts when the queue reaches it. */
  queued?(e: Extract<StoredEvent, { type: 'message.queued' }>): void
}

/** A following in progress: the run once it is known, and a way to stop. */
export interface Follower {
  runId(): string | null
  close(): void
}

/**
 * Carries out `cmd` and follows the one run that answers it, for request/response dialects that answer one run
 * per call (MCP tool calls, A2A tasks, HugAI tasks). Every committed event of that run, from the command on,
 * goes to `handlers.event` in order. The run is found one of two ways:
 *
 * - a user message carrying a `messageId`: by the `message.user` event with that id, so a message queued behind
 *   someone else's run is followed when its own run starts (`queued` says it waits; a withdrawal fails it). A
 *   history cut recorded just before that event (`history.rewound` of a rollback) belongs to the run and is
 *   delivered first;
 * - any other command (an answer, a regenerate): `runId` when the caller knows it, else the run `carryOut`
 *   reports; events committed before the run is known are held, then filtered by it.
 */
export function follow(session: Session, cmd: Command, label: string, handlers: FollowHandlers, runId: string | null = null): Follower {
  const messageId = cmd.type === 'user.message' ? (cmd.messageId ?? null) : null
  let following = messageId === null ? runId : null
  let closed = false
  // Events seen before the run is known. By message, only history cuts may precede its message.user (see
  // Writer.startRun): at most two. By run, everything since the command, filtered once the run is known.
  let held: StoredEvent[] = []
  const fail = (err: unknown): void => {
    if (!closed) handlers.failed(err instanceof Error ? err : new Error(String(err)))
  }
  const byMessage = (e: StoredEvent): void => {
    if (e.type === 'message.queued' && e.messageId === messageId) {
      handlers.queued?.(e)
    } else if (e.type === 'message.withdrawn' && e.messageId === messageId) {
      closed = true
      sub.close()
      handlers.failed(new ParlanceError('cancelled', `the queued message was withdrawn: ${e.reason}`, { messageId: e.messageId }))
    } else if (e.type === 'history.rewound') {
      held = held[0]?.runId === e.runId ? [...held, e] : [e]
    } else if (e.type === 'message.user' && e.messageId === messageId) {
      following = e.runId
      for (const cut of held) if (!closed && cut.runId === following) handlers.event(cut)
      held = []
      if (!closed) handlers.event(e)
    }
  }
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
          } else if (messageId !== null) byMessage(e)
          else held.push(e)
        }
        return true
      },
    },
    session.lastSeq,
  )
  if (messageId !== null) {
    void (async () => session.handle(cmd))().catch(fail)
  } else {
    carryOut(session, [cmd]).then(({ follow: started }) => {
      if (closed || following !== null) return
      if (started === null) return handlers.failed(new ParlanceError('internal', 'the run did not start'))
      following = started
      for (const e of held.splice(0)) if (!closed && e.runId === started) handlers.event(e)
    }, fail)
  }
  return {
    runId: () => following,
    close() {
      closed = true
      sub.close()
    },
  }
}
