// The HUMA wire, both directions: the only definition of its event types. Browser-safe (schemas and types
// only; the server compiles the inbound checkers in decode.ts), imported by the codec, the client, the
// inspector and the tests.
import { Type, type Static } from '@sinclair/typebox'

/**
 * HUMA client events (seed §Client Events), one schema each. All are
 * passthrough: extra fields are ignored. Lengths counted in characters and the
 * serialized size of `result` are checked in `decode`, not here.
 */
export const MAX_NAME_CHARS = 128
/** Largest `result` of a tool-result, as JSON text (characters). */
export const MAX_RESULT_CHARS = 65_536
const Id = Type.String({ minLength: 1, maxLength: 256 })
const Record = Type.Record(Type.String(), Type.Unknown())

export const ContextUpdate = Type.Object({
  type: Type.Literal('context-update'),
  triggering: Type.Boolean(),
  name: Type.String({ minLength: 1 }),
  context: Record,
  description: Type.String(),
})

export const ToolResult = Type.Object({
  type: Type.Literal('tool-result'),
  triggering: Type.Boolean(),
  toolCallId: Id,
  toolName: Type.String({ minLength: 1, maxLength: 256 }),
  outcome: Type.Union([Type.Literal('success'), Type.Literal('failure'), Type.Literal('canceled')]),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.String({ maxLength: MAX_RESULT_CHARS })),
})

/** Messaging addon confirmation fields, checked when present (other addons may send other data). */
export const AddonToolEvent = Type.Object({
  type: Type.Literal('addon-tool-event'),
  toolCallId: Id,
  data: Type.Object({
    messageIndex: Type.Optional(Type.Integer({ minimum: 0 })),
    success: Type.Optional(Type.Boolean()),
    context: Type.Optional(Record),
    error: Type.Optional(Type.String({ maxLength: MAX_RESULT_CHARS })),
  }),
})

export type ContextUpdate = Static<typeof ContextUpdate>
export type ToolResult = Static<typeof ToolResult>
export type AddonToolEvent = Static<typeof AddonToolEvent>

/** Every client event (emitted on 'message'), by `type`. */
export const INBOUND = { 'context-update': ContextUpdate, 'tool-result': ToolResult, 'addon-tool-event': AddonToolEvent } as const

export type InboundType = keyof typeof INBOUND
export type HumaClientEvent = ContextUpdate | ToolResult | AddonToolEvent

/** What each field must be, for error messages in the seed's words ("context-update requires boolean \"triggering\""). */
export const FIELD_RULES: Readonly<Record<InboundType, Readonly<Record<string, string>>>> = {
  'context-update': {
    triggering: 'boolean',
    name: `a string of 1–${MAX_NAME_CHARS} characters as`,
    context: 'an object as',
    description: 'a string as',
  },
  'tool-result': {
    triggering: 'boolean',
    toolCallId: 'a string of 1–256 characters as',
    toolName: 'a string of 1–256 characters as',
    outcome: '"success", "failure" or "canceled" as',
    error: `a string of at most ${MAX_RESULT_CHARS} characters as`,
  },
  'addon-tool-event': {
    toolCallId: 'a string of 1–256 characters as',
    data: 'an object as',
    'data/messageIndex': 'a non-negative integer as',
    'data/success': 'boolean',
    'data/context': 'an object as',
    'data/error': `a string of at most ${MAX_RESULT_CHARS} characters as`,
  },
}

/** Server → client event types of the seed on the 'event' channel (what `encode` produces there). */
export const OUTBOUND_TYPES = ['tool-call', 'cancel-tool-call', 'messaging'] as const
/** The `event` values of a messaging event. */
export const MESSAGING_EVENTS = ['typing_start', 'message_sent', 'typing_end'] as const

/** The tool name under which an approval reaches a HUMA client as a `tool-call` (answered with a tool-result). */
export const APPROVAL_TOOL = 'request_approval'

/**
 * Server events on the 'event' channel (seed §Server Events). Parlance adds `seq` (the event's place in the
 * session log; reconnect with handshake `auth.afterSeq`). Passthrough: clients ignore fields they do not know.
 */
const Seq = Type.Optional(Type.Integer({ minimum: 1 }))
export const ToolCall = Type.Object({
  type: Type.Literal('tool-call'),
  toolCallId: Type.String(),
  toolName: Type.String(),
  arguments: Record,
  seq: Seq,
})
export const CancelToolCall = Type.Object({
  type: Type.Literal('cancel-tool-call'),
  toolCallId: Type.String(),
  toolName: Type.String(),
  reason: Type.Optional(Type.String()),
  seq: Seq,
})
export const Messaging = Type.Object({
  type: Type.Literal('messaging'),
  event: Type.Union(MESSAGING_EVENTS.map((e) => Type.Literal(e))),
  toolCallId: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  messageIndex: Type.Optional(Type.Integer({ minimum: 0 })),
  messageCount: Type.Optional(Type.Integer({ minimum: 1 })),
  reason: Type.Optional(Type.String()),
  extra_args: Type.Optional(Record),
  seq: Seq,
})
/** What arrives on the 'error' channel (seed §Errors); `code` is the seed's INVALID_EVENT for every validation failure. */
export const ErrorEvent = Type.Object({ type: Type.Literal('error'), message: Type.String(), code: Type.Optional(Type.String()), seq: Seq })

export type ToolCall = Static<typeof ToolCall>
export type CancelToolCall = Static<typeof CancelToolCall>
export type Messaging = Static<typeof Messaging>
export type HumaErrorEvent = Static<typeof ErrorEvent>
/** An event the server emits on 'event'. */
export type HumaServerEvent = ToolCall | CancelToolCall | Messaging
/** The first thing a connected socket receives, on the 'session' channel (Parlance extension). */
export interface HumaSessionAnnouncement {
  sessionId: string
  lastSeq: number
}
