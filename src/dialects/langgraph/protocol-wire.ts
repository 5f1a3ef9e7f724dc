// LangGraph's agent streaming protocol (`@langchain/protocol`), the part Parlance serves at `/langgraph`: the commands
// `POST /threads/{id}/commands` takes, the body of `POST /threads/{id}/stream/events`, and the envelopes sent back
// (CommandResponse, ErrorResponse, Event). TypeBox schemas, validated by protocol-decode.ts; objects are open, since
// the SDK sends fields Parlance has no use for. Reference: `@langchain/protocol` protocol.ts (0.0.21) and the SDK's
// `client/stream` (ProtocolSseTransportAdapter, ThreadStream), 1.11–1.15. Browser-safe.
import { Type, type Static } from '@sinclair/typebox'

/** The methods Parlance carries out; the rest of the protocol's are answered `not_supported`. */
export const SERVED_METHODS = ['run.start', 'input.respond', 'state.get'] as const
/** Methods the protocol defines that Parlance does not serve (subscriptions are the SSE stream's filter instead). */
export const UNSERVED_METHODS = [
  'subscription.subscribe',
  'subscription.unsubscribe',
  'subscription.reconnect',
  'agent.getTree',
  'input.inject',
  'state.listCheckpoints',
  'state.fork',
] as const

/** A command's envelope: `{id, method, params}`. */
export const CommandEnvelope = Type.Object({
  id: Type.Integer({ minimum: 0 }),
  method: Type.String({ minLength: 1, maxLength: 64 }),
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
})
export type CommandEnvelope = Static<typeof CommandEnvelope>

const Namespace = Type.Array(Type.String({ maxLength: 256 }), { maxItems: 32 })

/** `run.start`: a new input on the thread (`multitaskStrategy` as `useStream` sends it, or snake_case). */
export const RunStartParams = Type.Object({
  assistant_id: Type.String({ minLength: 1, maxLength: 256 }),
  input: Type.Optional(Type.Unknown()),
  config: Type.Optional(Type.Unknown()),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  multitaskStrategy: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
  multitask_strategy: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
})
export type RunStartParams = Static<typeof RunStartParams>

const RespondEntry = Type.Object({
  namespace: Type.Optional(Namespace),
  interrupt_id: Type.String({ minLength: 1, maxLength: 256 }),
  response: Type.Unknown(),
})

/** `input.respond`: one answer (`interrupt_id`, `response`) or several (`responses`). */
export const InputRespondParams = Type.Union([Type.Object({ responses: Type.Array(RespondEntry, { minItems: 1, maxItems: 64 }) }), RespondEntry])
export type InputRespondParams = Static<typeof InputRespondParams>

/** The channels a stream may ask for (`custom:<name>`: one custom event name). */
export const CHANNELS = ['values', 'updates', 'messages', 'tools', 'lifecycle', 'input', 'checkpoints', 'tasks', 'custom'] as const
export type Channel = (typeof CHANNELS)[number] | `custom:${string}`

/** `POST /threads/{id}/stream/events`: the filter, and `since` (a seq: the events after it). */
export const EventStreamRequest = Type.Object({
  channels: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 32 }),
  namespaces: Type.Optional(Type.Array(Namespace, { maxItems: 32 })),
  depth: Type.Optional(Type.Integer({ minimum: 0 })),
  since: Type.Optional(Type.Integer({ minimum: 0 })),
})
export type EventStreamRequest = Static<typeof EventStreamRequest>

/** The protocol's error codes (`ErrorResponse.error`). */
export type ProtocolErrorCode =
  | 'invalid_argument'
  | 'unknown_command'
  | 'unknown_error'
  | 'no_such_run'
  | 'no_such_subscription'
  | 'no_such_namespace'
  | 'no_such_interrupt'
  | 'no_such_checkpoint'
  | 'permission_denied'
  | 'not_supported'

export interface ErrorResponse {
  type: 'error'
  id: number | null
  error: ProtocolErrorCode
  message: string
}

export interface CommandResponse {
  type: 'success'
  id: number
  result: Record<string, unknown>
  meta?: { applied_through_seq?: number }
}

/** An event on the wire: `seq` the log seq it came from; `event_id` unique per event (`<seq>` or `<seq>.<n>`). */
export interface ProtocolEvent {
  type: 'event'
  event_id: string
  seq: number
  method: 'lifecycle' | 'messages' | 'values' | 'updates' | 'tools' | 'input.requested' | 'custom'
  params: { namespace: string[]; timestamp: number; node?: string; data: unknown }
}
