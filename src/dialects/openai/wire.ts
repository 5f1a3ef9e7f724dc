// OpenAI's HTTP API as Parlance serves it (`/v1`): the request bodies of Chat Completions and Responses (TypeBox
// schemas, validated by decode.ts; open objects, since the SDKs send many fields Parlance ignores) and the shapes
// Parlance sends back. Browser-safe; the only definition of these types. Reference: the `openai` package's
// `resources/chat/completions` and `resources/responses` types, and https://platform.openai.com/docs/api-reference.
import { Type, type Static } from '@sinclair/typebox'

const Text = Type.String({ maxLength: 10_000_000 })
/** A content part of a message (`{type: 'text', text}` / `input_text` / `output_text`; others are refused by decode). */
const ContentPart = Type.Object({ type: Type.String({ minLength: 1 }), text: Type.Optional(Type.String()) })
const Content = Type.Union([Text, Type.Array(ContentPart), Type.Null()])

const FunctionTool = Type.Object({
  type: Type.Literal('function'),
  function: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 128 }),
    description: Type.Optional(Type.String()),
    parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
})

const ToolCall = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 1024 }),
  type: Type.Optional(Type.Literal('function')),
  function: Type.Object({ name: Type.String(), arguments: Type.String() }),
})

export const ChatMessage = Type.Union([
  Type.Object({ role: Type.Union([Type.Literal('system'), Type.Literal('developer')]), content: Content }),
  Type.Object({ role: Type.Literal('user'), content: Content }),
  Type.Object({ role: Type.Literal('assistant'), content: Type.Optional(Content), tool_calls: Type.Optional(Type.Array(ToolCall)) }),
  Type.Object({ role: Type.Literal('tool'), content: Content, tool_call_id: Type.String({ minLength: 1, maxLength: 1024 }) }),
])
export type ChatMessage = Static<typeof ChatMessage>

/** `POST /v1/chat/completions`. `metadata.parlance_session` (or the `x-parlance-session` header) names the session. */
export const ChatCompletionRequest = Type.Object({
  model: Type.String({ minLength: 1, maxLength: 256 }),
  messages: Type.Array(ChatMessage, { minItems: 1 }),
  stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  stream_options: Type.Optional(Type.Union([Type.Object({ include_usage: Type.Optional(Type.Boolean()) }), Type.Null()])),
  tools: Type.Optional(Type.Array(FunctionTool)),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
  n: Type.Optional(Type.Union([Type.Literal(1), Type.Null()])),
})
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>

const InputMessage = Type.Object({
  type: Type.Optional(Type.Literal('message')),
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system'), Type.Literal('developer')]),
  content: Type.Union([Text, Type.Array(ContentPart)]),
  id: Type.Optional(Type.String()),
})
const ApprovalResponse = Type.Object({
  type: Type.Literal('mcp_approval_response'),
  approval_request_id: Type.String({ minLength: 1, maxLength: 1024 }),
  approve: Type.Boolean(),
  reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
})
const FunctionCallOutput = Type.Object({
  type: Type.Literal('function_call_output'),
  call_id: Type.String({ minLength: 1, maxLength: 1024 }),
  output: Type.Union([Type.String(), Type.Array(ContentPart)]),
})
/** An earlier output item sent back as input (a client that keeps its own history): kept, not acted on. */
const EchoedItem = Type.Object({ type: Type.String({ minLength: 1 }) })
export const InputItem = Type.Union([InputMessage, ApprovalResponse, FunctionCallOutput, EchoedItem])
export type InputItem = Static<typeof InputItem>

const ResponseTool = Type.Object({
  type: Type.String({ minLength: 1 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  parameters: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
})

/** `POST /v1/responses`. */
export const ResponseRequest = Type.Object({
  model: Type.String({ minLength: 1, maxLength: 256 }),
  input: Type.Union([Text, Type.Array(InputItem)]),
  instructions: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  previous_response_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()])),
  stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  background: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  store: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  tools: Type.Optional(Type.Array(ResponseTool)),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
})
export type ResponseRequest = Static<typeof ResponseRequest>

/** Response headers of a streamed answer (both APIs). */
export { SSE_HEADERS } from '../../core/sse.js'

/** OpenAI's error body. */
export interface OpenAiError {
  error: { message: string; type: string; param: string | null; code: string | null }
}

/** Token counts in Chat Completions' shape. */
export interface ChatUsage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
}

/** A tool call as Chat Completions sends it. */
export interface ChatToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** A non-streamed chat completion. */
export interface ChatCompletion {
  id: string
  object: 'chat.completion'
  created: number
  model: string
  choices: Array<{
    index: 0
    message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: ChatToolCall[] }
    finish_reason: 'stop' | 'tool_calls' | 'length' | 'content_filter'
    logprobs: null
  }>
  usage?: ChatUsage
}

/** An output item of a response (the kinds Parlance produces). */
export type OutputItem =
  | {
      type: 'message'
      id: string
      status: 'in_progress' | 'completed' | 'incomplete'
      role: 'assistant'
      content: Array<{ type: 'output_text'; text: string; annotations: []; logprobs: [] }>
    }
  | { type: 'reasoning'; id: string; status: 'in_progress' | 'completed'; summary: []; content: Array<{ type: 'reasoning_text'; text: string }> }
  | { type: 'function_call'; id: string; call_id: string; name: string; arguments: string; status: 'in_progress' | 'completed' }
  | { type: 'mcp_approval_request'; id: string; server_label: string; name: string; arguments: string }

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'incomplete'

/** A response object (`GET /v1/responses/{id}`, and inside the streamed `response.*` events). */
export interface ResponseObject {
  id: string
  object: 'response'
  created_at: number
  status: ResponseStatus
  background: boolean
  error: { code: string; message: string } | null
  incomplete_details: null
  instructions: string | null
  model: string
  output: OutputItem[]
  output_text?: string
  parallel_tool_calls: boolean
  previous_response_id: string | null
  store: boolean
  tool_choice: 'auto'
  tools: unknown[]
  metadata: Record<string, string>
  usage: {
    input_tokens: number
    output_tokens: number
    total_tokens: number
    input_tokens_details: { cached_tokens: number }
    output_tokens_details: { reasoning_tokens: number }
  } | null
}
