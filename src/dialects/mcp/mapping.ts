/**
 * Pure mapping between a run's events and MCP's shapes (tool results, progress messages, the approval form and
 * its answer). Not a `Codec`: the MCP SDK decodes and encodes the JSON-RPC, and `ask.ts` calls these.
 */
import type { CallToolResult, ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import type { Json, StoredEvent } from '../../core/index.js'
import type { AskIds, AskOutcome } from './wire.js'

/** The MCP tool name of an agent: `ask_<agent>` (characters MCP tool names allow; others become `_`). */
export function askToolName(agent: string): string {
  return `ask_${agent.replace(/[^A-Za-z0-9_-]/g, '_')}`
}

/** What an event of the run says as a progress message, if anything (streamed text, status, plan progress, tools). */
export function progressOf(e: StoredEvent): string | null {
  switch (e.type) {
    case 'text.delta':
      return e.delta
    case 'message.sent':
      return e.message
    case 'status':
      return e.message ?? e.status
    case 'progress':
      return e.message ? `${e.percent}% ${e.message}` : `${e.percent}%`
    case 'tool.call':
      return e.target === 'client' ? null : `running ${e.toolName}`
    default:
      return null
  }
}

/** The form an approval is asked with (MCP elicitation's flat object schema). */
export const APPROVAL_FORM: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    approve: { type: 'boolean', title: 'Approve', description: 'Let the agent run this tool' },
    feedback: { type: 'string', title: 'Feedback', description: 'Optional: a note for the agent' },
  },
  required: ['approve'],
}

/** The elicitation message of an approval: who asks to run what, why, and the risk. */
export function approvalPrompt(agent: string, e: Extract<StoredEvent, { type: 'approval.requested' }>): string {
  const args = JSON.stringify(e.args)
  return `${agent} asks to run ${e.toolName}(${args.length > 200 ? `${args.slice(0, 200)}…` : args})${e.reasoning ? `: ${e.reasoning}` : ''}${e.risk ? ` [risk: ${e.risk}]` : ''}`
}

/** The `_meta` key of an approval's elicitation request: what it asks, structured (`approvalMeta`), for clients that show more than the message. */
export const APPROVAL_META = 'parlance/approval'

/** The structured approval an elicitation request carries under `_meta["parlance/approval"]`. */
export function approvalMeta(e: Extract<StoredEvent, { type: 'approval.requested' }>): Record<string, Json> {
  return { approvalId: e.approvalId, tool: e.toolName, args: e.args as Json, risk: e.risk, reasoning: e.reasoning, description: e.toolDescription }
}

/** The user's answer to an approval form: only an accepted form with `approve: true` approves. */
export function approvalAnswer(answer: ElicitResult): { approved: boolean; feedback?: string } {
  if (answer.action !== 'accept')
    return { approved: false, feedback: `the user ${answer.action === 'decline' ? 'declined' : 'dismissed'} the request` }
  const feedback = typeof answer.content?.feedback === 'string' && answer.content.feedback !== '' ? answer.content.feedback : undefined
  return { approved: answer.content?.approve === true, ...(feedback ? { feedback } : {}) }
}

const result = (text: string, outcome: AskOutcome, isError = false): CallToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent: { ...outcome },
  ...(isError ? { isError } : {}),
})

/** The run finished: its text, and the session, run and state as structured content. */
export function completed(text: string, ids: AskIds, state: Json): CallToolResult {
  return result(text.trim(), { ...ids, status: 'completed', state })
}

/** The run failed: a tool error (not a protocol error), with the run error's code. */
export function failed(e: Extract<StoredEvent, { type: 'run.error' }>, ids: AskIds): CallToolResult {
  return result(`${e.code}: ${e.message}`, { ...ids, status: 'failed', code: e.code }, true)
}

/**
 * The message was refused before any run of its own (`busy` under the reject policy, an unknown agent, …): a tool
 * error with the refusal's code and details (`busy`: `activeRunId`, the run that goes on).
 */
export function refused(err: { code: string; message: string; details?: Record<string, unknown> | undefined }, ids: AskIds): CallToolResult {
  return result(
    `${err.code}: ${err.message}`,
    { ...ids, status: 'failed', code: err.code, ...(err.details ? { details: err.details as Record<string, Json> } : {}) },
    true,
  )
}

/** The call ends while its run waits for someone else: what it said so far, and what waits. */
export function waiting(text: string, why: string, outcome: Extract<AskOutcome, { status: 'input-required' }>): CallToolResult {
  return result(text.trim() ? `${text.trim()}\n\n${why}` : why, outcome)
}
