// The AI SDK UI message stream wire (v1), both directions: the request `useChat` POSTs (TypeBox schemas,
// validated by decode.ts) and the stream chunks Parlance sends. Browser-safe; the only definition of these
// types (the codec, the client, the inspector and the tests import it).
import { Type, type Static } from '@sinclair/typebox'
import { SSE_HEADERS } from '../../core/sse.js'

/**
 * The request body `useChat` / `DefaultChatTransport` POSTs (AI SDK 5/6): the chat id, its UI messages
 * (parts), and the trigger. Open objects: the SDK adds fields per part type.
 */
export const Part = Type.Object({ type: Type.String({ minLength: 1 }) })
export const UIMessage = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 256 }),
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
  parts: Type.Array(Part),
})
export const ChatRequest = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 256 }),
  messages: Type.Array(UIMessage),
  trigger: Type.Optional(Type.Union([Type.Literal('submit-message'), Type.Literal('regenerate-message')])),
  messageId: Type.Optional(Type.String()),
  /**
   * Parlance: what this message does while a run is active (`DefaultChatTransport({ body: { onBusy } })` or
   * `sendMessage(msg, { body: { onBusy } })`); absent: the agent's, else the server's policy.
   */
  onBusy: Type.Optional(Type.Union([Type.Literal('interrupt'), Type.Literal('enqueue'), Type.Literal('reject'), Type.Literal('rollback')])),
})
export type ChatRequest = Static<typeof ChatRequest>
export type UIPart = Record<string, unknown> & { type: string }

/** Response headers of the UI message stream protocol (v1). */
export const UI_STREAM_HEADERS = { ...SSE_HEADERS, 'x-vercel-ai-ui-message-stream': 'v1' } as const

/** The last SSE message of every response. */
export const DONE = 'data: [DONE]\n\n'

type Tool = { toolCallId: string; dynamic?: true }
/**
 * A chunk Parlance sends (the subset of the SDK's `UIMessageChunk` it produces): text and reasoning parts,
 * dynamic tool invocations (an approval is one whose toolCallId is the approval id), `data-*` parts for what the
 * SDK has no part for (state, status, plan, progress, steps, custom events, queued messages, history rewinds), and
 * the stream's start, end and error.
 */
export type UIChunk =
  | { type: 'start'; messageId: string }
  | { type: 'finish'; finishReason: 'stop' | 'error' | 'tool-calls' | 'other' }
  | { type: 'error'; errorText: string }
  | { type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; id: string }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; delta: string }
  | ({ type: 'tool-input-start'; toolName: string } & Tool)
  | ({ type: 'tool-input-delta'; inputTextDelta: string } & Tool)
  | ({ type: 'tool-input-available'; toolName: string; input: unknown; title?: string } & Tool)
  | ({ type: 'tool-output-available'; output: unknown } & Tool)
  | ({ type: 'tool-output-error'; errorText: string } & Tool)
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: `data-${string}`; id?: string; data: unknown; transient?: boolean }
