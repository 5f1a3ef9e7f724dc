// The AG-UI wire, both directions. Client → server: `RunAgentInput`, as TypeBox schemas (Parlance validates
// with them and names the bad field). Server → client: the official `@ag-ui/core` event types (type-only, so
// this file stays browser-safe), plus the CUSTOM event names Parlance emits. Imported by the codec, the
// client, the inspector and the tests; the only definition of these names and types.
import { Type, type Static } from '@sinclair/typebox'
import type { AGUIEvent } from '@ag-ui/core'

/**
 * An AG-UI event as the server sends it: the `@ag-ui/core` union, narrowed by `type`, which is the string it is
 * on the wire ('TEXT_MESSAGE_CONTENT') rather than the package's `EventType` enum (a runtime value this type-only
 * file does not import, and a client compares with strings).
 */
export type AguiEvent = AGUIEvent extends infer E ? (E extends { type: infer T extends string } ? Omit<E, 'type'> & { type: `${T}` } : never) : never

/** CUSTOM event names for canonical events AG-UI has no event for (documented in docs/dialects/agui.md). */
export const CUSTOM = {
  approvalRequested: 'parlance.approval_requested',
  approvalResolved: 'parlance.approval_resolved',
  status: 'parlance.status',
  plan: 'parlance.plan',
  progress: 'parlance.progress',
  typing: 'parlance.typing',
  context: 'parlance.context_update',
  delivery: 'parlance.message_delivery',
  error: 'parlance.error',
  messageQueued: 'parlance.message_queued',
  historyRewound: 'parlance.history_rewound',
  usage: 'parlance.usage',
} as const

/**
 * AG-UI `RunAgentInput` (protocol 1.0, the `@ag-ui/core` types).
 * Open objects like the reference Zod schemas (`looseObject`): unknown fields
 * pass. Content parts are accepted as objects; only their text is used.
 */
const Id = Type.String({ minLength: 1, maxLength: 256 })
const Metadata = Type.Optional(Type.Record(Type.String(), Type.Unknown()))
const Content = Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.String() }))])

const ToolCall = Type.Object({
  id: Id,
  type: Type.Literal('function'),
  function: Type.Object({ name: Type.String({ minLength: 1 }), arguments: Type.String() }),
})

/** Each message role's schema: `Message` is their union, and decode names the exact bad field of a message through its role's. */
export const MessageByRole = {
  user: Type.Object({ id: Id, role: Type.Literal('user'), content: Content, metadata: Metadata }),
  assistant: Type.Object({
    id: Id,
    role: Type.Literal('assistant'),
    content: Type.Optional(Type.String()),
    toolCalls: Type.Optional(Type.Array(ToolCall)),
    metadata: Metadata,
  }),
  tool: Type.Object({
    id: Id,
    role: Type.Literal('tool'),
    toolCallId: Id,
    content: Content,
    error: Type.Optional(Type.String()),
    metadata: Metadata,
  }),
  system: Type.Object({ id: Id, role: Type.Literal('system'), content: Type.String(), metadata: Metadata }),
  developer: Type.Object({ id: Id, role: Type.Literal('developer'), content: Type.String(), metadata: Metadata }),
  reasoning: Type.Object({ id: Id, role: Type.Literal('reasoning'), content: Type.String(), metadata: Metadata }),
  activity: Type.Object({ id: Id, role: Type.Literal('activity') }),
}

const R = MessageByRole
export const Message = Type.Union([R.user, R.assistant, R.tool, R.system, R.developer, R.reasoning, R.activity])

export const RunAgentInput = Type.Object({
  threadId: Id,
  runId: Id,
  protocolVersion: Type.Optional(Type.String()),
  parentRunId: Type.Optional(Type.String()),
  state: Type.Optional(Type.Unknown()),
  messages: Type.Array(Message),
  tools: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 256 }),
        description: Type.Optional(Type.String()),
        parameters: Type.Optional(Type.Unknown()),
      }),
    ),
  ),
  context: Type.Optional(Type.Array(Type.Object({ description: Type.String(), value: Type.String() }))),
  forwardedProps: Type.Optional(Type.Unknown()),
  resume: Type.Optional(
    Type.Array(
      Type.Object({
        interruptId: Id,
        status: Type.Union([Type.Literal('resolved'), Type.Literal('cancelled')]),
        payload: Type.Optional(Type.Unknown()),
      }),
    ),
  ),
})

export type AguiMessage = Static<typeof Message>
export type AguiRunInput = Static<typeof RunAgentInput>
