import type { PatchOp } from '../patch.js'

/** The dialects the inspector speaks, by the id the page and the tests use. */
export type DialectId = 'hai' | 'agui' | 'huma' | 'myagent' | 'hugai' | 'aisdk'

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
  sink: ChatSink
}

/** One dialect's conversation: what the chat panel can ask of it. */
export interface DialectAdapter {
  readonly id: DialectId
  /** Does the dialect carry shared state (else the state view follows the canonical log)? */
  readonly carriesState: boolean
  /** Does it stream text as it is produced (else whole messages)? */
  readonly streams: boolean
  /** What this dialect cannot do, shown next to the switcher. */
  readonly notes: string
  send(text: string): Promise<void>
  approve(id: string, approved: boolean, feedback?: string): Promise<void>
  answerTool(id: string, outcome: { result: unknown } | { error: string }): Promise<void>
  close(): void
}

/** Dialect names as the switcher shows them. */
export const DIALECTS: ReadonlyArray<{ id: DialectId; label: string; endpoint: string }> = [
  { id: 'hai', label: 'HAI', endpoint: 'WebSocket /ws' },
  { id: 'agui', label: 'AG-UI', endpoint: 'POST /agui (SSE)' },
  { id: 'huma', label: 'HUMA', endpoint: 'Socket.IO' },
  { id: 'myagent', label: 'MyAgent', endpoint: 'WebSocket /myagent' },
  { id: 'hugai', label: 'HugAI', endpoint: 'JSON-RPC over WebSocket /rpc' },
  { id: 'aisdk', label: 'AI SDK', endpoint: 'POST /api/chat (SSE)' },
]

/** Runs an async stream reader and reports its failure to the sink instead of losing it. */
export function pump(sink: ChatSink, work: () => Promise<void>): Promise<void> {
  return work().catch((err: unknown) => {
    sink.error(err instanceof Error ? err.message : String(err))
    sink.runEnded('error')
  })
}
