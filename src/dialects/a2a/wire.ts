/**
 * A2A (Agent2Agent) 1.0 as `@a2a-js/sdk` 1.x speaks it: the wire types (AgentCard, Task, Message, Part, the
 * status and artifact update events) are the SDK's own, imported from `@a2a-js/sdk`; this file names what
 * Parlance adds on top of them.
 */

/** Where the agent card of the default agent is served (the A2A well-known path). */
export const WELL_KNOWN_CARD = '/.well-known/agent-card.json'

/** `metadata.parlance` of the tasks Parlance creates: the session and run the task is. */
export interface TaskLink {
  sessionId: string
  runId: string | null
  agent: string
}

/**
 * A data part answering an `input-required` task that waits for a client tool (its status data has
 * `clientTool: true`): `{result}` or `{error}`; a text part is taken as the result.
 */
export type ToolAnswer = { result: unknown } | { error: string }

/**
 * A data part answering an `input-required` task (an approval the run waits for): `{approved, feedback?}`.
 * A text part answers too: "yes" / "approve" / "ok" approves, anything else rejects with the text as feedback.
 */
export interface ApprovalAnswer {
  approved: boolean
  feedback?: string
}
