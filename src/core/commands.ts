import type { HistoryMessage, Json } from './events.js'
import type { SessionId } from './ids.js'

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
    }
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
  | { type: 'run.cancel'; sessionId?: SessionId; reason?: string }
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
