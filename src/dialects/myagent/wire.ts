// The MyAgent wire, both directions: the only definition of its event types. Browser-safe (schemas and types
// only; the server compiles the inbound checkers in decode.ts), imported by the codec, the client, the
// inspector and the tests.
import { Type, type Static } from '@sinclair/typebox'

/**
 * Inbound MyAgent events (seed: "User Events" and the validation rules table). Open objects: the seed's
 * clients send optional metadata freely.
 */
const SessionId = Type.String({ minLength: 1, maxLength: 256 })
const Meta = Type.Optional(Type.Record(Type.String(), Type.Unknown()))

export const inbound = {
  'user.create_session': Type.Object({
    event: Type.Literal('user.create_session'),
    content: Type.Optional(
      Type.Object({
        project_name: Type.Optional(Type.String({ maxLength: 256 })),
        session_name: Type.Optional(Type.String({ maxLength: 256 })),
        config: Meta,
      }),
    ),
    metadata: Meta,
  }),
  'user.message': Type.Object({ event: Type.Literal('user.message'), session_id: SessionId, content: Type.String({ minLength: 1 }), metadata: Meta }),
  'user.response': Type.Object({
    event: Type.Literal('user.response'),
    session_id: SessionId,
    step_id: Type.String({ minLength: 1, maxLength: 256 }),
    content: Type.Object({ approved: Type.Boolean(), feedback: Type.Optional(Type.String({ maxLength: 10_000 })), data: Meta }),
    metadata: Meta,
  }),
  'user.ack': Type.Object({
    event: Type.Literal('user.ack'),
    session_id: SessionId,
    content: Type.Optional(Type.Object({ last_seq: Type.Integer({ minimum: 0 }) })),
    metadata: Meta,
  }),
  /**
   * Parlance extension: answer user message `content.message_id` (default: the session's last one) again; the
   * answers after it leave the history the agent sees. `metadata.onBusy` as on `user.message`.
   */
  'user.regenerate': Type.Object({
    event: Type.Literal('user.regenerate'),
    session_id: SessionId,
    content: Type.Optional(Type.Object({ message_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) })),
    metadata: Meta,
  }),
  'user.cancel': Type.Object({
    event: Type.Literal('user.cancel'),
    session_id: SessionId,
    content: Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000 })) })),
  }),
  'user.reconnect': Type.Object({
    event: Type.Literal('user.reconnect'),
    content: Type.Object({ session_id: SessionId, last_seq: Type.Optional(Type.Integer({ minimum: 0 })) }),
  }),
  'user.reconnect_with_state': Type.Object({
    event: Type.Literal('user.reconnect_with_state'),
    content: Type.Object({
      signed_state: Type.String({ minLength: 1 }),
      last_seq: Type.Integer({ minimum: 0 }),
      last_event_id: Type.Optional(Type.String()),
    }),
    metadata: Meta,
  }),
  'user.request_state': Type.Object({ event: Type.Literal('user.request_state'), session_id: SessionId, metadata: Meta }),
  /** System events are bidirectional (seed: "System Events"): a client's are accepted as the seed shapes them. */
  'system.heartbeat': Type.Object({ event: Type.Literal('system.heartbeat') }),
  'system.connected': Type.Object({
    event: Type.Literal('system.connected'),
    connection_id: Type.Optional(Type.String({ maxLength: 256 })),
    metadata: Meta,
  }),
  'system.error': Type.Object({
    event: Type.Literal('system.error'),
    session_id: Type.Optional(SessionId),
    content: Type.String({ maxLength: 10_000 }),
    metadata: Type.Optional(
      Type.Object({
        error_code: Type.Optional(Type.String({ maxLength: 256 })),
        severity: Type.Optional(Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('error')])),
      }),
    ),
  }),
} as const

export type InboundEvent = keyof typeof inbound

/** Events whose optional `content` may also be `null` (the seed's base structure allows it): checked as absent. */
export const NULLABLE_CONTENT: ReadonlySet<string> = new Set([
  'user.create_session',
  'user.ack',
  'user.cancel',
  'user.regenerate',
  'system.heartbeat',
  'system.connected',
])

/** A client event, by its `event` name. */
export type MyAgentClientEvent = { [K in InboundEvent]: Static<(typeof inbound)[K]> }[InboundEvent]

/**
 * What each server event carries as `content`, by its name: every event the server sends (the encoder's and
 * the binding's connection-level ones), and nothing else.
 */
export interface MyAgentServerContent {
  // The answer.
  'agent.partial_answer': string
  'agent.final_answer': { answer: string; answer_type: 'text' }
  'agent.thinking': string
  'agent.tool_call': { tool_name: string; tool_description: string; arguments: unknown }
  'agent.tool_result': { result: unknown; status: 'success' | 'failed' }
  'agent.user_confirm': { message: string; confirmation_type: 'approve'; options: { id: string; label: string }[] }
  /** A state snapshot (`metadata.kind` 'snapshot') or a JSON Patch (`kind` 'delta'). */
  'agent.state': unknown
  /** `ctx.emit(name, value)` with a name MyAgent has no event for. */
  'agent.custom': { name: string; value: unknown }
  /** Extension: a message waiting for the active run; the message's text. */
  'agent.message_queued': string
  /** Extension: the history the agent sees was rewound. */
  'agent.history_rewound': string
  // The plan.
  'plan.start': { question: string }
  'plan.completed': { tasks: { id: string; title: string; description: string }[] }
  'plan.step_completed': { step_name: string; step_result: unknown }
  'plan.validation_error': unknown
  'solver.start': null
  'solver.progress': { current_task: string; status: 'processing' | 'completed' }
  'solver.step_failed': { error_message: string; step_name: string }
  'solver.completed': { task_results: { task_id: string; result: unknown; status: 'success' | 'partial' }[] }
  'solver.retry': unknown
  // Errors (the message) and recovery.
  'error.validation': string
  'error.execution': string
  'error.timeout': string
  'error.retry': unknown
  'error.recovery_started': string
  'error.recovery_success': string
  'error.recovery_failed': string
  // The connection and its session.
  'system.connected': { server_version: string; server_time: string }
  'system.heartbeat': { server_time: string }
  'system.error': string
  'agent.session_created': { session_id: string; project_name: string | null; session_name: string | null }
  'agent.session_ended': string
  'agent.state_export': { signed_state: string; last_seq: number }
}

/** A server event's name. */
export type MyAgentServerEventName = keyof MyAgentServerContent

/**
 * A server event (seed: EventProtocol base structure), discriminated by `event`. Every event that comes from
 * the session log carries `metadata.seq` (when one canonical event becomes several MyAgent events, only the
 * last does, so `last_seq` always marks a whole event); connection-level events (system.*,
 * agent.session_created…) carry none.
 */
export type MyAgentServerEvent = { [K in MyAgentServerEventName]: MyAgentServerEventOf<K> }[MyAgentServerEventName]

/** The server event named `K`. */
export interface MyAgentServerEventOf<K extends MyAgentServerEventName> {
  session_id?: string
  connection_id: string
  step_id?: string
  event: K
  timestamp: string
  content: MyAgentServerContent[K]
  metadata: { seq?: number; [key: string]: unknown }
}
