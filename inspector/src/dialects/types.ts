import type { PatchOp } from '../patch.js'

/** A dialect's id, as the page, its `?dialect=` parameter and the tests use it (the server's dialect name). */
export type DialectId = string

/**
 * One dialect as the inspector knows it: the whole adapter a dialect adds (one module under
 * inspector/src/dialects/ and one line in its index.ts).
 */
export interface InspectorDialect {
  readonly id: DialectId
  /** As the switcher shows it. */
  readonly label: string
  /** Where it connects, as the switcher shows it; `<agent>` stands for the agent the page talks to. */
  readonly endpoint: string
  /**
   * Which views this adapter fills from the dialect's frames; the others the page fills from the canonical log.
   * A fact about this adapter, not the protocol: what the protocol carries is its `Capabilities`, which the
   * server lists (`GET /inspector/api/info`) and the page shows (MCP carries state, in a tool's final result,
   * but its adapter shows none).
   */
  readonly carries: { readonly state: boolean; readonly serverTools: boolean; readonly plan: boolean }
  /** Opens a new conversation with the server over this dialect. */
  connect(o: ConnectOptions): Promise<DialectAdapter>
}

/** A tool call as the chat shows it. */
export interface ToolCallView {
  id: string
  name: string
  args: unknown
}

/** An approval request as the dialog shows it. */
export interface ApprovalView {
  id: string
  tool: string
  args: unknown
  risk: string
  reasoning: string
}

/**
 * What a dialect adapter reports, already translated from its wire format into what the chat panel shows.
 * Every adapter reads only what its own protocol delivers.
 */
export interface ChatSink {
  /** The conversation's Parlance session id is known (the canonical event view follows it). */
  session(id: string): void
  textDelta(messageId: string, delta: string): void
  textEnd(messageId: string): void
  /** A tool the server runs. */
  toolCall(call: ToolCallView): void
  toolResult(id: string, outcome: { result: unknown } | { error: string }): void
  /** A tool the client must run: the chat shows a form to answer it. */
  clientTool(call: ToolCallView): void
  approval(request: ApprovalView): void
  /** An approval ended other than by this page's answer (timeout, withdrawn). */
  approvalClosed(id: string, why: string): void
  status(text: string): void
  plan(tasks: string[]): void
  progress(percent: number, message?: string): void
  state(snapshot: unknown): void
  statePatch(ops: PatchOp[]): void
  error(message: string): void
  /** The run ended (or paused for the client). */
  runEnded(outcome: string): void
  /** A frame sent or received, in the dialect's own format, with its session seq when it carries one. */
  wire(direction: 'in' | 'out', frame: unknown, seq?: number): void
}

/** Where the adapters connect and with which credentials. */
export interface ConnectOptions {
  /** Base URL of the server (`location.origin`). */
  url: string
  token?: string
  /** The agent the page talks to: the server's default (the first it serves), as `/inspector/api/info` lists them. */
  agent: string
  sink: ChatSink
}

/** One dialect's conversation: what the chat panel can ask of it. */
export interface DialectAdapter {
  readonly id: DialectId
  /** What this dialect cannot do, shown next to the switcher. */
  readonly notes: string
  send(text: string): Promise<void>
  approve(id: string, approved: boolean, feedback?: string): Promise<void>
  answerTool(id: string, outcome: { result: unknown } | { error: string }): Promise<void>
  close(): void
}

/** Runs an async stream reader and reports its failure to the sink instead of losing it. */
export function pump(sink: ChatSink, work: () => Promise<void>): Promise<void> {
  return work().catch((err: unknown) => {
    sink.error(err instanceof Error ? err.message : String(err))
    sink.runEnded('error')
  })
}
