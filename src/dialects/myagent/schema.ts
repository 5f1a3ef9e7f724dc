import { Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

/**
 * Inbound MyAgent events (seed: "User Events" and the validation rules table), compiled once. Open objects:
 * the seed's clients send optional metadata freely.
 */
const SessionId = Type.String({ minLength: 1, maxLength: 256 })
const Meta = Type.Optional(Type.Record(Type.String(), Type.Unknown()))

export const inbound = {
  'user.create_session': Type.Object({
    event: Type.Literal('user.create_session'),
    content: Type.Optional(
      Type.Object({ project_name: Type.Optional(Type.String({ maxLength: 256 })), session_name: Type.Optional(Type.String({ maxLength: 256 })), config: Meta }),
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
  'user.ack': Type.Object({ event: Type.Literal('user.ack'), session_id: SessionId, content: Type.Optional(Type.Object({ last_seq: Type.Integer({ minimum: 0 }) })), metadata: Meta }),
  'user.cancel': Type.Object({ event: Type.Literal('user.cancel'), session_id: SessionId, content: Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000 })) })) }),
  'user.reconnect': Type.Object({ event: Type.Literal('user.reconnect'), content: Type.Object({ session_id: SessionId, last_seq: Type.Optional(Type.Integer({ minimum: 0 })) }) }),
  'user.reconnect_with_state': Type.Object({
    event: Type.Literal('user.reconnect_with_state'),
    content: Type.Object({ signed_state: Type.String({ minLength: 1 }), last_seq: Type.Integer({ minimum: 0 }), last_event_id: Type.Optional(Type.String()) }),
    metadata: Meta,
  }),
  'user.request_state': Type.Object({ event: Type.Literal('user.request_state'), session_id: SessionId, metadata: Meta }),
  'system.heartbeat': Type.Object({ event: Type.Literal('system.heartbeat') }),
} as const

export type InboundEvent = keyof typeof inbound

/** Events whose optional `content` may also be `null` (the seed's base structure allows it): checked as absent. */
export const NULLABLE_CONTENT: ReadonlySet<string> = new Set(['user.create_session', 'user.ack', 'user.cancel'])

export const checkers = Object.fromEntries(Object.entries(inbound).map(([k, v]) => [k, TypeCompiler.Compile(v)])) as {
  [K in InboundEvent]: ReturnType<typeof TypeCompiler.Compile<(typeof inbound)[K]>>
}
