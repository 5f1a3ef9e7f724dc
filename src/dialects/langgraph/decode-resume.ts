import { ParlanceError, type Command, type Json, type SessionId } from '../../core/index.js'

/** Something the thread's run waits for: an approval, or a client (headless) tool call. */
export interface Pending {
  readonly id: string
  readonly kind: 'approval' | 'tool'
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const bad = (message: string) => new ParlanceError('invalid_message', `command.resume: ${message}`, { field: 'command.resume' })

/**
 * An approval's answer from a HITL decision (`{type: 'approve'}`, `{type: 'reject', message?}`), a `{decisions: [d]}`
 * object, `{approved, feedback?}`, or a boolean. An `edit` decision is refused: a Parlance approval answers yes or
 * no, and the agent runs the tool with the arguments it asked for.
 */
function approvalOf(v: unknown): { approved: boolean; feedback?: string } {
  if (typeof v === 'boolean') return { approved: v }
  if (isObject(v) && Array.isArray(v.decisions)) {
    if (v.decisions.length !== 1) throw bad('each interrupt asks for one action: send one decision')
    return approvalOf(v.decisions[0])
  }
  if (isObject(v) && typeof v.approved === 'boolean')
    return { approved: v.approved, ...(typeof v.feedback === 'string' ? { feedback: v.feedback } : {}) }
  if (isObject(v) && v.type === 'approve') return { approved: true }
  if (isObject(v) && v.type === 'reject') return { approved: false, ...(typeof v.message === 'string' && v.message ? { feedback: v.message } : {}) }
  if (isObject(v) && v.type === 'edit')
    throw bad(
      '"edit" decisions are not served: a Parlance approval is approved or rejected, and the tool runs with the arguments the agent asked for',
    )
  throw bad('answer an approval with a decision: {"decisions": [{"type": "approve"}]} or {"decisions": [{"type": "reject", "message": "…"}]}')
}

/** A headless tool's answer: its result, or `{error}` (what the SDK resumes with when the tool threw). */
function toolAnswer(sessionId: SessionId, id: string, v: unknown): Command {
  if (isObject(v) && Object.keys(v).length === 1 && typeof v.error === 'string')
    return { type: 'tool.result', sessionId, toolCallId: id, outcome: 'failure', error: v.error }
  return { type: 'tool.result', sessionId, toolCallId: id, outcome: 'success', result: (v ?? null) as Json }
}

function answer(sessionId: SessionId, p: Pending, v: unknown): Command {
  return p.kind === 'tool' ? toolAnswer(sessionId, p.id, v) : { type: 'approval.response', sessionId, approvalId: p.id, ...approvalOf(v) }
}

/**
 * The commands a `command.resume` gives for what the run waits on (pure; throws a ParlanceError to answer). Three
 * forms, as the SDK sends them: `{decisions: […]}` (the HITL middleware's, one decision per pending approval in
 * order), an object keyed by interrupt ids (ours are the approval and tool call ids: `useStream`'s `respondAll` and
 * headless tools' `{[toolCallId]: result}`), or a bare value for the one interrupt pending.
 */
export function resumeCommands(sessionId: SessionId, resume: unknown, pending: readonly Pending[]): Command[] {
  if (pending.length === 0)
    throw new ParlanceError('conflict', 'command.resume: the thread is not interrupted; nothing waits for an answer', { field: 'command.resume' })
  if (isObject(resume) && Array.isArray(resume.decisions)) {
    const decisions: unknown[] = resume.decisions
    const approvals = pending.filter((p) => p.kind === 'approval')
    if (approvals.length === 0) throw bad('no approval is pending (the interrupt is a tool call: resume with its result)')
    if (decisions.length !== approvals.length)
      throw bad(`${approvals.length} approval(s) wait for a decision; ${decisions.length} decision(s) were sent`)
    return approvals.map((p, i) => answer(sessionId, p, decisions[i]))
  }
  if (isObject(resume)) {
    const keys = Object.keys(resume)
    const byId = new Map(pending.map((p) => [p.id, p]))
    if (keys.length > 0 && keys.every((k) => byId.has(k))) return keys.map((k) => answer(sessionId, byId.get(k)!, resume[k]))
  }
  if (pending.length > 1)
    throw bad(`${pending.length} interrupts are pending: key the answers by interrupt id (${pending.map((p) => p.id).join(', ')})`)
  return [answer(sessionId, pending[0]!, resume)]
}
