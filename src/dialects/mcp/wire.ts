import type { Json, OnBusy } from '../../core/index.js'

/** The arguments of an `ask_<agent>` tool call. */
export interface AskArgs {
  /** What to tell the agent (the user turn). */
  message: string
  /** A Parlance session to continue (a previous result's `structuredContent.sessionId`); a new one when absent. */
  sessionId?: string | undefined
  /** What this message does if a run of the session is active (else the agent's, else the server's policy). */
  onBusy?: OnBusy | undefined
}

/** Which session and run a result is about. */
export interface AskIds {
  sessionId: string
  runId: string | null
}

/** `structuredContent` of an `ask_<agent>` result. */
export type AskOutcome =
  | (AskIds & { status: 'completed'; state: Json })
  /** The run failed, or the message was refused (`details`: the refusal's, e.g. `busy` → `activeRunId`). */
  | (AskIds & { status: 'failed'; code: string; details?: Record<string, Json> })
  /** The run waits for an approval or a client tool that this MCP client cannot give: another client of the session can. */
  | (AskIds & { status: 'input-required'; tool: string; approvalId?: string; toolCallId?: string })
