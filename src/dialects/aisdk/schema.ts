import { Type, type Static } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

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
})
export type ChatRequest = Static<typeof ChatRequest>
export type UIPart = Record<string, unknown> & { type: string }
export const chatRequestChecker = TypeCompiler.Compile(ChatRequest)
