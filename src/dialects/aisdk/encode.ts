import { usageValue, type StoredEvent } from '../../core/index.js'
import { AISDK_ERRORS } from './errors.js'
import { DONE, type UIChunk } from './wire.js'

const chunk = (c: UIChunk) => `data: ${JSON.stringify(c)}\n\n`

/** `start` with the assistant message id this response builds. */
export const start = (messageId: string) => chunk({ type: 'start', messageId })
/** `finish` then `[DONE]`. */
export const finish = (reason: 'stop' | 'error' | 'tool-calls' | 'other' = 'stop') => chunk({ type: 'finish', finishReason: reason }) + DONE

/**
 * One canonical event as UI message stream chunks. Pure. Text and reasoning map to their parts; tool calls to
 * tool-input-start/delta/available and tool-output-available/error; an approval to a tool invocation carrying
 * `tool-approval-request` (its toolCallId is the approval id); state, status, plan, progress, steps and custom
 * events to `data-*` parts (state and messages persistent, the rest transient); a queued message and a history
 * rewind (regenerate, edit, rollback; `branch` names the fork an edit left the old branch in) to transient
 * `data-message-queued` / `data-history-rewound`.
 */
export function encode(e: StoredEvent): readonly string[] {
  switch (e.type) {
    case 'text.start':
      return [chunk({ type: 'text-start', id: e.messageId })]
    case 'text.delta':
      return [chunk({ type: 'text-delta', id: e.messageId, delta: e.delta })]
    case 'text.end':
      return [chunk({ type: 'text-end', id: e.messageId })]
    case 'message.sent':
      return [
        chunk({ type: 'text-start', id: e.messageId }),
        chunk({ type: 'text-delta', id: e.messageId, delta: e.message }),
        chunk({ type: 'text-end', id: e.messageId }),
      ]
    case 'reasoning.start':
      return [chunk({ type: 'reasoning-start', id: e.messageId })]
    case 'reasoning.delta':
      return [chunk({ type: 'reasoning-delta', id: e.messageId, delta: e.delta })]
    case 'reasoning.end':
      return [chunk({ type: 'reasoning-end', id: e.messageId })]
    case 'tool.call':
      return [
        chunk({ type: 'tool-input-start', toolCallId: e.toolCallId, toolName: e.toolName, dynamic: true }),
        chunk({ type: 'tool-input-delta', toolCallId: e.toolCallId, inputTextDelta: JSON.stringify(e.args) }),
        chunk({ type: 'tool-input-available', toolCallId: e.toolCallId, toolName: e.toolName, input: e.args, dynamic: true }),
      ]
    case 'tool.result':
      return [chunk({ type: 'tool-output-available', toolCallId: e.toolCallId, output: e.result, dynamic: true })]
    case 'tool.error':
      return [chunk({ type: 'tool-output-error', toolCallId: e.toolCallId, errorText: e.error, dynamic: true })]
    case 'tool.cancel':
      return [chunk({ type: 'tool-output-error', toolCallId: e.toolCallId, errorText: `cancelled: ${e.reason}`, dynamic: true })]
    case 'approval.requested':
      return [
        chunk({ type: 'tool-input-available', toolCallId: e.approvalId, toolName: e.toolName, input: e.args, dynamic: true, title: e.reasoning }),
        chunk({ type: 'tool-approval-request', approvalId: e.approvalId, toolCallId: e.approvalId }),
        chunk({
          type: 'data-approval',
          data: { approvalId: e.approvalId, toolName: e.toolName, args: e.args, reasoning: e.reasoning, risk: e.risk, timeoutMs: e.timeoutMs },
          transient: true,
        }),
      ]
    case 'approval.resolved':
      // The approval's tool invocation ends here; the real tool call (if approved) is a tool part of its own.
      return [
        e.approved
          ? chunk({ type: 'tool-output-available', toolCallId: e.approvalId, output: { approved: true }, dynamic: true })
          : chunk({ type: 'tool-output-denied', toolCallId: e.approvalId }),
      ]
    case 'state.snapshot':
      return [chunk({ type: 'data-state', id: 'state', data: e.snapshot })]
    case 'state.delta':
      return [chunk({ type: 'data-state-delta', data: e.patch, transient: true })]
    case 'status':
      return [chunk({ type: 'data-status', data: { status: e.status, message: e.message ?? null }, transient: true })]
    case 'plan':
      return [chunk({ type: 'data-plan', id: e.planId, data: { planId: e.planId, tasks: e.tasks } })]
    case 'progress':
      return [
        chunk({
          type: 'data-progress',
          data: { percent: e.percent, planId: e.planId ?? null, taskId: e.taskId ?? null, message: e.message ?? null },
          transient: true,
        }),
      ]
    case 'step.started':
      return [chunk({ type: 'data-step', data: { stepId: e.stepId, name: e.name, state: 'started' }, transient: true })]
    case 'step.finished':
      return [chunk({ type: 'data-step', data: { stepId: e.stepId, name: e.name, state: e.ok ? 'finished' : 'failed' }, transient: true })]
    case 'custom':
      return [chunk({ type: 'data-custom', data: { name: e.name, value: e.value }, transient: true })]
    case 'usage':
      return [chunk({ type: 'data-usage', data: usageValue(e), transient: true })]
    case 'message.queued':
      return [
        chunk({
          type: 'data-message-queued',
          data: {
            messageId: e.messageId,
            content: e.content,
            ...(e.metadata !== undefined ? { metadata: e.metadata } : {}),
            ...(e.agent !== undefined ? { agent: e.agent } : {}),
          },
          transient: true,
        }),
      ]
    case 'history.rewound':
      return [
        chunk({
          type: 'data-history-rewound',
          data: {
            toMessageId: e.toMessageId,
            reason: e.reason,
            ...(e.droppedRunId !== undefined ? { droppedRunId: e.droppedRunId } : {}),
            ...(e.branch !== undefined ? { branch: e.branch } : {}),
          },
          transient: true,
        }),
      ]
    default:
      return []
  }
}

/** The chunks that close the response after `e` (run end, or a pause for the client), else null. */
export function ending(e: StoredEvent): string | null {
  switch (e.type) {
    case 'run.finished':
      return finish('stop')
    case 'run.error':
      return chunk({ type: 'error', errorText: errorText(e.code, e.message) }) + finish('error')
    case 'tool.call':
      return e.target === 'client' ? finish('tool-calls') : null
    case 'approval.requested':
      return finish('tool-calls')
    default:
      return null
  }
}

/** The `errorText` of an error: the dialect's code for it, then the message. */
export function errorText(code: keyof typeof AISDK_ERRORS, message: string): string {
  return `${AISDK_ERRORS[code].code}: ${message}`
}
