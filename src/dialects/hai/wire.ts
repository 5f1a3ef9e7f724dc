// The HAI wire, both directions: the only definition of its message types. Browser-safe (schemas and types
// only; the server compiles the inbound checkers in decode.ts), imported by the codec, the client, the
// inspector and the tests.
import { Type, type Static } from '@sinclair/typebox'

/**
 * Client → server messages, one schema each (seed §Message Types 1 and 6, plus two
 * documented Parlance extensions). All are passthrough: unknown extra fields
 * are ignored, as the seed's clients send optional metadata freely.
 */
export const MAX_CONTENT_CHARS = 10_000
/** Content length is checked against `limits.maxUserMessageChars` (default MAX_CONTENT_CHARS) in decode, not here, so the limit is configurable both ways. */
const Id = Type.String({ minLength: 1, maxLength: 256 })

export const UserMessage = Type.Object({
  type: Type.Literal('user_message'),
  content: Type.String({ minLength: 1 }),
  session_id: Id,
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
})

export const ToolApprovalResponse = Type.Object({
  type: Type.Literal('tool_approval_response'),
  approval_id: Id,
  approved: Type.Boolean(),
  feedback: Type.Optional(Type.String({ maxLength: MAX_CONTENT_CHARS })),
  session_id: Type.Optional(Id),
})

/** Parlance extension: the result of a client-side tool announced by `tool_call_start` with `metadata.target: "client"`. */
export const ToolResult = Type.Object({
  type: Type.Literal('tool_result'),
  tool_call_id: Id,
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.String({ maxLength: 65_536 })),
  session_id: Type.Optional(Id),
})

/**
 * Parlance extension: stop the session's active run. With `message_id` (a user message's id, see
 * `user_message` `metadata.message_id`): withdraw that message while it is queued, or stop the run answering it.
 */
export const Cancel = Type.Object({
  type: Type.Literal('cancel'),
  session_id: Id,
  message_id: Type.Optional(Id),
})

/**
 * Parlance extension: answer user message `message_id` (default: the session's last one) again. The answers
 * after it leave the history the agent sees (the log keeps them). `metadata.agent` and `metadata.onBusy` as on
 * `user_message`.
 */
export const Regenerate = Type.Object({
  type: Type.Literal('regenerate'),
  session_id: Id,
  message_id: Type.Optional(Id),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
})

export type UserMessage = Static<typeof UserMessage>
export type ToolApprovalResponse = Static<typeof ToolApprovalResponse>
export type ToolResult = Static<typeof ToolResult>
export type Cancel = Static<typeof Cancel>
export type Regenerate = Static<typeof Regenerate>

/** Every client → server message, by `type`. */
export const INBOUND = {
  user_message: UserMessage,
  tool_approval_response: ToolApprovalResponse,
  tool_result: ToolResult,
  cancel: Cancel,
  regenerate: Regenerate,
} as const

export type InboundType = keyof typeof INBOUND
export type HaiClientMessage = UserMessage | ToolApprovalResponse | ToolResult | Cancel | Regenerate

/** Server → client message types of the seed (what `encode` produces). */
export const OUTBOUND_TYPES = [
  'assistant_message',
  'assistant_message_chunk',
  'tool_call_start',
  'tool_call_end',
  'tool_call_error',
  'tool_approval_request',
  'status',
  'error',
] as const

/**
 * Server → client messages (seed §Message Types 2–5 and 7). Every frame names its session and the agent of
 * its run; Parlance adds `seq` (the event's place in the session log; the resume point) to every frame that
 * ends an event. Passthrough: clients must ignore fields they do not know.
 */
const Envelope = { session_id: Type.String(), agent_id: Type.String(), seq: Type.Optional(Type.Integer({ minimum: 1 })) }
const Risk = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('critical')])
const Meta = Type.Optional(Type.Record(Type.String(), Type.Unknown()))

export const AssistantMessage = Type.Object({ type: Type.Literal('assistant_message'), content: Type.String(), metadata: Meta, ...Envelope })
export const AssistantMessageChunk = Type.Object({
  type: Type.Literal('assistant_message_chunk'),
  content: Type.String(),
  message_id: Type.String(),
  is_final: Type.Boolean(),
  ...Envelope,
})
export const ToolCallStart = Type.Object({
  type: Type.Literal('tool_call_start'),
  tool_call_id: Type.String(),
  tool_name: Type.String(),
  parameters: Type.Record(Type.String(), Type.Unknown()),
  /** `target: "client"`: the client runs the tool and answers with `tool_result` (Parlance extension). */
  metadata: Type.Optional(Type.Object({ target: Type.Optional(Type.Union([Type.Literal('server'), Type.Literal('client')])) })),
  ...Envelope,
})
export const ToolCallEnd = Type.Object({
  type: Type.Literal('tool_call_end'),
  tool_call_id: Type.String(),
  tool_name: Type.String(),
  result: Type.String(),
  metadata: Meta,
  ...Envelope,
})
export const ToolCallError = Type.Object({
  type: Type.Literal('tool_call_error'),
  tool_call_id: Type.String(),
  tool_name: Type.String(),
  error: Type.String(),
  metadata: Meta,
  ...Envelope,
})
export const ToolApprovalRequest = Type.Object({
  type: Type.Literal('tool_approval_request'),
  tool_name: Type.String(),
  tool_description: Type.String(),
  parameters: Type.Record(Type.String(), Type.Unknown()),
  reasoning: Type.String(),
  risk_level: Risk,
  approval_id: Type.String(),
  /** How long the server waits for the answer (ms) before the approval times out. */
  timeout_ms: Type.Optional(Type.Integer({ minimum: 0 })),
  ...Envelope,
})
export const Status = Type.Object({
  type: Type.Literal('status'),
  status: Type.Union([Type.Literal('thinking'), Type.Literal('routing'), Type.Literal('executing_tools'), Type.Literal('completed')]),
  message: Type.Optional(Type.String()),
  /** Plan progress in percent, with `status: "executing_tools"` (Parlance extension). */
  progress: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  /** A message waiting for the active run to end (policy `enqueue`), with `status: "thinking"` (Parlance extension). */
  queued: Type.Optional(Type.Object({ message_id: Type.String(), content: Type.String() })),
  /**
   * The history the agent sees was cut back to `to_message_id` (null: nothing kept); the answers after it are
   * superseded. With `status: "thinking"` (Parlance extension).
   */
  rewound: Type.Optional(
    Type.Object({
      to_message_id: Type.Union([Type.String(), Type.Null()]),
      reason: Type.Union([Type.Literal('rollback'), Type.Literal('regenerate'), Type.Literal('edit')]),
      dropped_run_id: Type.Optional(Type.String()),
      branch: Type.Optional(Type.String()),
    }),
  ),
  ...Envelope,
})
/** An error; frames answering a bad inbound frame before any session is known carry no envelope. */
export const ErrorMessage = Type.Object({
  type: Type.Literal('error'),
  error_code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  session_id: Type.Optional(Type.String()),
  agent_id: Type.Optional(Type.String()),
  seq: Type.Optional(Type.Integer({ minimum: 1 })),
})

/**
 * HAI has no plan message: a plan goes out as `status: "thinking"` whose message is this prefix followed by the
 * task titles joined by PLAN_SEPARATOR (a client may split it back into tasks).
 */
export const PLAN_PREFIX = 'Plan: '
export const PLAN_SEPARATOR = ' → '
/** The `message` of the `status` frame that carries `queued`. */
export const QUEUED_MESSAGE = 'Message queued: it is answered when the active run ends'
/** The `message` of the `status` frame that carries `rewound`, by reason. */
export const REWOUND_MESSAGE = {
  rollback: 'The interrupted turn was rolled back',
  regenerate: 'Answering again',
  edit: 'The conversation was rewound to the edited message',
} as const

/** Every server → client message, by `type`. */
export const OUTBOUND = {
  assistant_message: AssistantMessage,
  assistant_message_chunk: AssistantMessageChunk,
  tool_call_start: ToolCallStart,
  tool_call_end: ToolCallEnd,
  tool_call_error: ToolCallError,
  tool_approval_request: ToolApprovalRequest,
  status: Status,
  error: ErrorMessage,
} as const

export type AssistantMessage = Static<typeof AssistantMessage>
export type AssistantMessageChunk = Static<typeof AssistantMessageChunk>
export type ToolCallStart = Static<typeof ToolCallStart>
export type ToolCallEnd = Static<typeof ToolCallEnd>
export type ToolCallError = Static<typeof ToolCallError>
export type ToolApprovalRequest = Static<typeof ToolApprovalRequest>
export type Status = Static<typeof Status>
export type ErrorMessage = Static<typeof ErrorMessage>
/** A message the server sends on HAI. */
export type HaiServerMessage =
  AssistantMessage | AssistantMessageChunk | ToolCallStart | ToolCallEnd | ToolCallError | ToolApprovalRequest | Status | ErrorMessage
