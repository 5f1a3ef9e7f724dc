import type { ClientToolSpec, HistoryMessage, Json, OnBusy, PatchOp, PlanTask, RiskLevel, RunStatus, TokenUsage } from '../core/index.js'
import type { StandardSchemaV1 } from './schema.js'

/** What started the run. */
export interface RunInput {
  /**
   * 'message' for a user message (a queued one included), 'context' for a triggering context update (HUMA),
   * 'regenerate' for a user message answered again (it is already the last message of `history`).
   */
  kind: 'message' | 'context' | 'regenerate'
  /** The user's text, or the context update's description. */
  text: string
  messageId: string
  /** For context updates: the event name and its context object. */
  name?: string
  context?: Record<string, unknown>
  metadata?: Record<string, unknown>
  /** Tools the client offered for this run; calling one goes to the client. */
  clientTools: readonly ClientToolSpec[]
}

/** The answer to `ctx.approve`. */
export interface ApprovalResult {
  approved: boolean
  feedback?: string
  /** 'user' when someone answered; 'timeout' when nobody did in time. */
  by: 'user' | 'timeout'
}

/** What `ctx.approve` asks. */
export interface ApprovalRequest {
  tool: string
  args: Record<string, unknown>
  risk: RiskLevel
  reasoning: string
  /** What the tool does; defaults to the tool's own description. */
  description?: string
  /** @default 60000 (server option approvalTimeoutMs) */
  timeoutMs?: number
}

/** What `ctx.send` reports once a burst ends. */
export interface SendResult {
  /** Messages delivered (confirmed by the client, or sent when nobody confirms delivery). */
  delivered: number
  /** True when every message was delivered. */
  ok: boolean
  /** Why delivery stopped: the client's error, or the confirmation timeout. */
  error?: string
}

/** A handle on a plan made with `ctx.plan`. */
export interface Plan {
  readonly id: string
  readonly tasks: readonly PlanTask[]
}

/** Text given to `say`/`think`: whole, or streamed chunk by chunk. */
export type TextSource = string | Iterable<string> | AsyncIterable<string>

/**
 * Everything an agent can do during a run. Agents never see a dialect: each
 * call becomes canonical events that every attached client receives in its
 * own protocol. Every method throws once the run was cancelled or interrupted
 * (and `signal` fires).
 */
export interface RunContext<Tools extends ToolSet = ToolSet> {
  readonly sessionId: string
  readonly runId: string
  readonly input: RunInput
  /** Conversation so far, including this run's input. */
  readonly history: readonly HistoryMessage[]
  /** Current shared state (read-only; change it with `setState`). */
  readonly state: Json
  /** Fires on cancel or interrupt. Pass it to fetch and friends. */
  readonly signal: AbortSignal
  /**
   * Sends an assistant message, streamed chunk by chunk when given an iterable. Resolves with its message id.
   * While a subscriber that confirms delivery is attached (HUMA), the text is collected and sent as a
   * messaging burst of one (see `send`); a failed delivery is recorded, not thrown.
   */
  say(text: TextSource): Promise<string>
  /**
   * Sends whole messages as one messaging burst: typing on, each message after a typing delay proportional
   * to its length (`typingMsPerChar`), then — while a subscriber confirms delivery — a wait for its
   * confirmation (`messageConfirmTimeoutMs`) before the next; typing off. Stops at the first failed delivery.
   */
  send(messages: readonly string[], opts?: { extra?: Record<string, unknown> }): Promise<SendResult>
  /** Streams reasoning ("thinking") text. */
  think(text: TextSource): Promise<void>
  status(status: RunStatus, message?: string): Promise<void>
  /** Runs `fn` as a named step (step started/finished events around it). */
  step<T>(name: string, fn: () => Promise<T> | T): Promise<T>
  /** Announces a plan of tasks. */
  plan(tasks: ReadonlyArray<string | PlanTask>): Promise<Plan>
  /** Reports progress (0–100), optionally of a plan task. */
  progress(percent: number, opts?: { plan?: Plan; taskId?: string; message?: string }): Promise<void>
  /**
   * Calls a tool: a server tool runs here, a client tool is sent to the client and awaited. Same call either way.
   * A tool the agent declares is typed by its name: `args` from its `inputSchema`, the result from its `execute`
   * (a client tool's result is `Json`); a Standard Schema `inputSchema` validates `args` before the tool runs.
   */
  callTool<N extends DeclaredName<Tools>>(name: N, args?: ToolInput<Tools[N]>): Promise<ToolOutput<Tools[N]>>
  /**
   * Calls a tool the agent does not declare (one the client offered for this run, or any tool when the agent's
   * tools are not known here). `T` is what you know the tool returns; it is not checked at run time.
   */
  callTool<T = Json, N extends string = string>(name: N extends DeclaredName<Tools> ? never : N, args?: Record<string, unknown>): Promise<T>
  /**
   * Reports a tool call that runs elsewhere (a remote agent's own server-side tool): a server tool call
   * with `args` now, then its result when `outcome` resolves, or its error when it rejects (this then
   * throws `tool_error`, as a failing server tool does). Resolves with the result.
   */
  externalTool(name: string, args: Record<string, unknown>, outcome: Promise<Json> | Json): Promise<Json>
  /** Asks a human to approve an action; resolves when answered or timed out. */
  approve(request: ApprovalRequest): Promise<ApprovalResult>
  /** Replaces the state (any JSON value) or patches it (an RFC 6902 array). */
  setState(next: Json | readonly PatchOp[], opts?: { patch?: boolean }): Promise<void>
  /** Emits an application-specific event. */
  emit(name: string, value: Json): Promise<void>
  /** Shows or hides a typing indicator. */
  typing(active: boolean): Promise<void>
  /**
   * Records the tokens a model call used (a `usage` event: summed per session, counted in `parlance_tokens_total`
   * by agent, model and kind). Call it once per model call with what the provider reported.
   */
  usage(report: { model: string; provider?: string } & TokenUsage): Promise<void>
}

/**
 * A tool an agent can call. With `execute` it runs on the server; without, the client runs it.
 *
 * Its arguments are described by `inputSchema`: a Standard Schema (zod 4, valibot, ArkType…; https://standardschema.dev),
 * which types `execute`'s arguments and validates them before it runs, or a JSON Schema (arguments typed as a plain
 * object, not validated here). `parameters` is the JSON Schema clients and models see; it defaults to the one the
 * Standard Schema produces (zod >= 4.2 does) — give it explicitly for a schema library that cannot.
 * The result may be any JSON-serializable value (`undefined` becomes null).
 */
export interface ToolDefinition<Schema = unknown, Result = unknown> {
  description?: string
  inputSchema?: Schema
  /** JSON Schema of the arguments (shown to clients and LLMs). */
  parameters?: Json
  // A method, so that a tool with typed arguments is still a ToolDefinition (method parameters are bivariant).
  execute?(args: ToolArgs<Schema>, ctx: RunContext): Promise<Result> | Result
}

/** The tools an agent declares, by name. */
export type ToolSet = Readonly<Record<string, ToolDefinition>>

/** What `execute` receives: a Standard Schema's output type, else a plain object. */
export type ToolArgs<Schema> = Schema extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<Schema> : Record<string, unknown>

/** What `ctx.callTool` takes for a declared tool: its Standard Schema's input type, else a plain object. */
export type ToolInput<Tool> = Tool extends { inputSchema?: infer S }
  ? S extends StandardSchemaV1
    ? StandardSchemaV1.InferInput<S>
    : Record<string, unknown>
  : Record<string, unknown>

/** What `ctx.callTool` resolves with for a declared tool: its `execute`'s result, else `Json` (a client tool). */
export type ToolOutput<Tool> = Tool extends { execute?(...args: never[]): infer R } ? (unknown extends R ? Json : Awaited<R>) : Json

/** The tool names `callTool` checks: those of a known tool set (none when the set is the open `ToolSet`). */
export type DeclaredName<Tools> = string extends keyof Tools ? never : keyof Tools & string

/** An agent: a name and a run function, plus the tools it may call. */
export interface AgentDefinition {
  readonly name: string
  readonly description: string
  readonly tools: Readonly<Record<string, ToolDefinition>>
  /** What a message does while this agent's run is active, unless the message says (see `OnBusy`); else the server's. */
  readonly onBusy?: OnBusy
  run(ctx: RunContext): Promise<void> | void
}
