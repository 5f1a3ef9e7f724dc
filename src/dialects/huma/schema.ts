import { Type, type Static } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

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

/** Compiled checkers by `type`. */
export const inbound = {
  'context-update': TypeCompiler.Compile(ContextUpdate),
  'tool-result': TypeCompiler.Compile(ToolResult),
  'addon-tool-event': TypeCompiler.Compile(AddonToolEvent),
} as const

export type InboundType = keyof typeof inbound

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
