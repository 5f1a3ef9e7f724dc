import { Type, type Static } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

/**
 * Inbound HAI messages, one schema each (seed §Message Types 1 and 6, plus two
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

/** Parlance extension: stop the session's active run. */
export const Cancel = Type.Object({
  type: Type.Literal('cancel'),
  session_id: Id,
})

export type UserMessage = Static<typeof UserMessage>
export type ToolApprovalResponse = Static<typeof ToolApprovalResponse>
export type ToolResult = Static<typeof ToolResult>
export type Cancel = Static<typeof Cancel>

/** Compiled checkers by `type`. */
export const inbound = {
  user_message: TypeCompiler.Compile(UserMessage),
  tool_approval_response: TypeCompiler.Compile(ToolApprovalResponse),
  tool_result: TypeCompiler.Compile(ToolResult),
  cancel: TypeCompiler.Compile(Cancel),
} as const

export type InboundType = keyof typeof inbound

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
