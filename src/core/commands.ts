import type { HistoryMessage, Json } from './events.js'
import type { SessionId } from './ids.js'

/**
 * What a new message does while a run is active (issue 19; per message, per agent, per server):
 * - `interrupt`: stop the active run and start the new one (the default);
 * - `enqueue`: run it after the active run (and any queued before it), in order; queued messages are in the log
 *   (`message.queued`) and in the session record, so every client sees them and they survive a restart;
 * - `reject`: refuse it with a `busy` error, the active run untouched;
 * - `rollback`: stop the active run and drop its turn (its input and everything it said) from the history the
 *   agent sees; the log keeps the events, marked by `history.rewound`.
 */
export type OnBusy = 'interrupt' | 'enqueue' | 'reject' | 'rollback'
export const ON_BUSY: readonly OnBusy[] = ['interrupt', 'enqueue', 'reject', 'rollback']

/** `value` as an OnBusy policy, or undefined when it is not one (dialects read it from untyped metadata). */
export function onBusyOf(value: unknown): OnBusy | undefined {
  return typeof value === 'string' && (ON_BUSY as readonly string[]).includes(value) ? (value as OnBusy) : undefined
}

/** Tools a client offers for one run (AG-UI `tools`, HUMA client tools). */
export interface ClientToolSpec {
  name: string
  description?: string
  parameters?: Json
}

/**
 * The canonical client intents a dialect decodes to. Dialects never reach a
 * session directly: they produce one of these and the server routes it.
 */
export type Command =
  | {
      type: 'user.message'
      sessionId: SessionId
      content: string
      messageId?: string
      agent?: string
      clientTools?: ClientToolSpec[]
      metadata?: Record<string, unknown>
      /** What to do if a run is active (else the agent's, else the server's policy). */
      onBusy?: OnBusy
      /**
       * Edit-and-resend: first cut the history the agent sees back to `toMessageId` (kept; null: an empty
       * history). `branch` names the session the replaced branch was forked to, if any (see `forkSession`).
       */
      rewind?: { toMessageId: string | null; branch?: string }
    }
  /**
   * Answer a user turn again: the history is cut back to user message `messageId` (default: the last user
   * message), the answers after it are marked superseded (`history.rewound`) and a new run answers it. An
   * active run is stopped first, unless the policy is `reject` (or `enqueue`, which cannot queue a regenerate).
   */
  | { type: 'run.regenerate'; sessionId: SessionId; messageId?: string; agent?: string; clientTools?: ClientToolSpec[]; onBusy?: OnBusy }
  | {
      type: 'context.update'
      sessionId: SessionId
      name: string
      description: string
      context: Record<string, unknown>
      triggering: boolean
    }
  | {
      type: 'tool.result'
      sessionId?: SessionId
      toolCallId: string
      outcome: 'success' | 'failure' | 'canceled'
      result?: Json
      error?: string
      /** The tool's name as the client echoes it (HUMA). */
      toolName?: string
      /**
       * HUMA `triggering`. Absent or true: a result for a call nobody waits for is `not_found`. false: such a
       * result is only recorded (as `custom` `tool.result.unsolicited`). A waiting call is answered either way.
       */
      triggering?: boolean
    }
  | { type: 'approval.response'; sessionId?: SessionId; approvalId: string; approved: boolean; feedback?: string }
  /**
   * Stops the active run. With `messageId`: cancels what answers that message — its run if active, or, while it
   * waits in the queue, the message itself (withdrawn, recorded as `message.withdrawn`); `not_found` otherwise.
   */
  | { type: 'run.cancel'; sessionId?: SessionId; reason?: string; messageId?: string }
  | { type: 'session.resume'; sessionId: SessionId; afterSeq?: number }
  /** Records an application event in the session's log (an audit entry, addon data); recorded as `custom`. */
  | { type: 'custom.record'; sessionId: SessionId; name: string; value: Json }
  /** Replaces the shared state (AG-UI input `state`, a recovered MyAgent export); recorded as `state.snapshot`. */
  | { type: 'state.replace'; sessionId: SessionId; state: Json }
  /** Replaces the message history (a client that owns its history, a recovered export); recorded as `messages.snapshot`. */
  | { type: 'history.replace'; sessionId: SessionId; messages: HistoryMessage[] }
  | { type: 'ack'; sessionId?: SessionId; lastSeq: number }
  /**
   * In-flight data for a server-side addon tool (HUMA `addon-tool-event`). The messaging addon reads
   * `{messageIndex, success, context?, error?}` as a delivery confirmation of burst `toolCallId`.
   */
  | { type: 'addon.event'; sessionId?: SessionId; toolCallId: string; data: Record<string, unknown> }

export type CommandType = Command['type']
