// The LangGraph Agent Server API as Parlance serves it (under `/langgraph`): the request bodies the
// `@langchain/langgraph-sdk` Client sends (TypeBox schemas, validated by decode.ts; open objects, since the SDK
// sends many fields Parlance has no use for) and the shapes sent back (Thread, ThreadState, Run, Assistant, the
// LangChain message dicts and interrupts). Browser-safe; the only definition of these types. Reference: the SDK's
// `client/*` and `schema.d.ts` (1.15) and the Agent Server's OpenAPI description.
import { Type, type Static } from '@sinclair/typebox'

const Id = Type.String({ minLength: 1, maxLength: 256 })
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]))
const Metadata = Type.Record(Type.String(), Type.Unknown())

/** A LangChain message as a dict: `{type: 'human', content}` or `{role: 'user', content}`; content a string or content blocks. */
export const MessageDict = Type.Object({
  type: Type.Optional(Type.String({ maxLength: 64 })),
  role: Type.Optional(Type.String({ maxLength: 64 })),
  content: Type.Union([Type.String(), Type.Array(Type.Unknown()), Type.Null()]),
  id: Nullable(Id),
  tool_call_id: Type.Optional(Type.String({ maxLength: 1024 })),
  tool_calls: Type.Optional(Type.Array(Type.Unknown())),
})
export type MessageDict = Static<typeof MessageDict>

/** The stream modes a run may ask for. Served: values, updates, messages-tuple, messages, custom; the rest stream nothing. */
export const STREAM_MODES = ['values', 'updates', 'messages', 'messages-tuple', 'custom', 'events', 'debug', 'tasks', 'checkpoints', 'tools'] as const
export type StreamMode = (typeof STREAM_MODES)[number]
const Mode = Type.Union(STREAM_MODES.map((m) => Type.Literal(m)))

export const MULTITASK = ['reject', 'interrupt', 'rollback', 'enqueue'] as const
export type MultitaskStrategy = (typeof MULTITASK)[number]

/** `POST /threads/{id}/runs/stream` (and `/runs/stream`, `/runs/wait`, `/threads/{id}/runs/wait`). */
export const RunRequest = Type.Object({
  assistant_id: Id,
  input: Nullable(Type.Object({ messages: Type.Optional(Type.Array(MessageDict)) })),
  command: Nullable(
    Type.Object({ resume: Type.Optional(Type.Unknown()), goto: Type.Optional(Type.Unknown()), update: Type.Optional(Type.Unknown()) }),
  ),
  stream_mode: Nullable(Type.Union([Mode, Type.Array(Mode, { maxItems: 16 })])),
  stream_resumable: Nullable(Type.Boolean()),
  on_disconnect: Nullable(Type.Union([Type.Literal('cancel'), Type.Literal('continue')])),
  multitask_strategy: Nullable(Type.Union(MULTITASK.map((m) => Type.Literal(m)))),
  if_not_exists: Nullable(Type.Union([Type.Literal('create'), Type.Literal('reject')])),
  metadata: Nullable(Metadata),
  checkpoint: Nullable(Type.Object({ checkpoint_id: Nullable(Type.String({ maxLength: 256 })) })),
  checkpoint_id: Nullable(Type.String({ maxLength: 256 })),
  interrupt_before: Type.Optional(Type.Unknown()),
  interrupt_after: Type.Optional(Type.Unknown()),
})
export type RunRequest = Static<typeof RunRequest>

/** `POST /threads`. */
export const ThreadCreate = Type.Object({
  thread_id: Nullable(Id),
  metadata: Nullable(Metadata),
  if_exists: Nullable(Type.Union([Type.Literal('raise'), Type.Literal('do_nothing')])),
})
export type ThreadCreate = Static<typeof ThreadCreate>

export const THREAD_STATUSES = ['idle', 'busy', 'interrupted', 'error'] as const
export type ThreadStatus = (typeof THREAD_STATUSES)[number]

/** `POST /threads/search`. */
export const ThreadSearch = Type.Object({
  metadata: Nullable(Metadata),
  ids: Nullable(Type.Array(Id, { maxItems: 1000 })),
  status: Nullable(Type.Union(THREAD_STATUSES.map((s) => Type.Literal(s)))),
  limit: Nullable(Type.Integer({ minimum: 1, maximum: 1000 })),
  offset: Nullable(Type.Integer({ minimum: 0 })),
  sort_by: Nullable(Type.Union([Type.Literal('thread_id'), Type.Literal('status'), Type.Literal('created_at'), Type.Literal('updated_at')])),
  sort_order: Nullable(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
})
export type ThreadSearch = Static<typeof ThreadSearch>

/** `POST /assistants/search`. */
export const AssistantSearch = Type.Object({
  graph_id: Nullable(Type.String({ maxLength: 256 })),
  name: Nullable(Type.String({ maxLength: 256 })),
  metadata: Nullable(Metadata),
  limit: Nullable(Type.Integer({ minimum: 1, maximum: 1000 })),
  offset: Nullable(Type.Integer({ minimum: 0 })),
})
export type AssistantSearch = Static<typeof AssistantSearch>

/** `POST /threads/{id}/history`. */
export const HistoryRequest = Type.Object({
  limit: Nullable(Type.Integer({ minimum: 1, maximum: 1000 })),
  before: Nullable(Type.Union([Type.Object({ checkpoint_id: Nullable(Type.String({ maxLength: 256 })) }), Type.String({ maxLength: 256 })])),
})
export type HistoryRequest = Static<typeof HistoryRequest>

/** Response headers of a streamed run. */
export { SSE_HEADERS } from '../../core/sse.js'

/** The Agent Server's HTTP error body. */
export interface LangGraphError {
  detail: string
}

/** A tool call on an AI message. */
export interface LcToolCall {
  id: string
  name: string
  args: Record<string, unknown>
  type: 'tool_call'
}

/** A message in LangChain's dict shape, as `values` and the thread's state carry it. */
export type LcMessage =
  | { type: 'human'; id: string; content: string }
  | { type: 'ai'; id: string; content: string; tool_calls: LcToolCall[] }
  | { type: 'tool'; id: string; content: string; tool_call_id: string; name?: string; status: 'success' | 'error' }

/** An interrupt as `__interrupt__`, a task and a thread list it. */
export interface LcInterrupt {
  value: unknown
  id: string
}

/** The HITL middleware's interrupt value (what Agent Chat UI renders for an approval). */
export interface HitlRequest {
  action_requests: Array<{ name: string; args: Record<string, unknown>; description: string }>
  review_configs: Array<{ action_name: string; allowed_decisions: string[] }>
}

/** A thread's values: its messages (Parlance's shared state is not carried). */
export interface ThreadValues {
  messages: LcMessage[]
  __interrupt__?: LcInterrupt[]
}

export interface Checkpoint {
  thread_id: string
  checkpoint_ns: ''
  checkpoint_id: string | null
  checkpoint_map: null
}

export interface ThreadTask {
  id: string
  name: string
  error: string | null
  interrupts: LcInterrupt[]
  checkpoint: null
  state: null
  result?: unknown
}

export interface ThreadState {
  values: ThreadValues
  next: string[]
  checkpoint: Checkpoint
  metadata: Record<string, unknown>
  created_at: string | null
  parent_checkpoint: Checkpoint | null
  tasks: ThreadTask[]
  interrupts: LcInterrupt[]
}

export interface Thread {
  thread_id: string
  created_at: string
  updated_at: string
  state_updated_at: string
  metadata: Record<string, unknown>
  status: ThreadStatus
  values: ThreadValues
  interrupts: Record<string, LcInterrupt[]>
  config: Record<string, unknown>
  error: string | null
}

export type RunStatus = 'pending' | 'running' | 'error' | 'success' | 'timeout' | 'interrupted'

export interface Run {
  run_id: string
  thread_id: string
  assistant_id: string
  created_at: string
  updated_at: string
  status: RunStatus
  metadata: Record<string, unknown>
  multitask_strategy: MultitaskStrategy | null
  kwargs: Record<string, unknown>
}

export interface Assistant {
  assistant_id: string
  graph_id: string
  name: string
  description: string | null
  config: Record<string, unknown>
  context: Record<string, unknown>
  metadata: Record<string, unknown>
  version: number
  created_at: string
  updated_at: string
}
