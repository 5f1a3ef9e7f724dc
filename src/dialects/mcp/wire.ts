import type { Json } from '../../core/index.js'

/** The arguments of an `ask_<agent>` tool call. */
export interface AskArgs {
  /** What to tell the agent (the user turn). */
  message: string
  /** A Parlance session to continue (a previous result's `structuredContent.sessionId`); a new one when absent. */
  sessionId?: string | undefined
}

/** Which session and run a result is about. */
export interface AskIds {
  sessionId: string
  runId: string | null
}

/** `structuredContent` of an `ask_<agent>` result. */
export type AskOutcome =
  | (AskIds & { status: 'completed'; state: Json })
  | (AskIds & { status: 'failed'; code: string })
  /** The run waits for an approval or a client tool that this MCP client cannot give: another client of the session can. */
  | (AskIds & { status: 'input-required'; tool: string; approvalId?: string; toolCallId?: string })
