import { stringOf, toolResultText, usageValue, type HistoryMessage, type StoredEvent } from '../../core/index.js'
import { AGUI_ERRORS } from './errors.js'
import { CUSTOM, type AguiMessage } from './wire.js'

/** What encoding one AG-UI response needs: the ids it answers for. */
export interface AguiView {
  readonly threadId: string
  /** The AG-UI run id of this response (the client's `runId`); a Parlance run may span several. */
  readonly runId: string
}

/** One SSE message; `id` (the canonical seq) lets a client resume with Last-Event-ID. */
export function sse(event: object, id?: number): string {
  return id === undefined ? `data: ${JSON.stringify(event)}\n\n` : `id: ${id}\ndata: ${JSON.stringify(event)}\n\n`
}

/** A canonical history message as an AG-UI message. */
export function toAguiMessage(m: HistoryMessage): AguiMessage {
  switch (m.role) {
    case 'user':
      return { id: m.id, role: 'user', content: m.content }
    case 'assistant':
      return m.toolCalls?.length
        ? {
            id: m.id,
            role: 'assistant',
            content: m.content,
            toolCalls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
          }
        : { id: m.id, role: 'assistant', content: m.content }
    case 'tool':
      return m.error === undefined
        ? { id: m.id, role: 'tool', toolCallId: m.toolCallId, content: m.content }
        : { id: m.id, role: 'tool', toolCallId: m.toolCallId, content: m.content, error: m.error }
  }
}

/** The text of AG-UI content (a string, or the text parts of a content-part array). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  let out = ''
  for (const p of content)
    if (p && typeof p === 'object' && (p as { type?: unknown }).type === 'text') out += stringOf((p as { text?: unknown }).text)
  return out
}

/** An AG-UI message as canonical history; system, developer, reasoning and activity messages have no canonical form (null). */
export function fromAguiMessage(m: AguiMessage): HistoryMessage | null {
  switch (m.role) {
    case 'user':
      return { id: m.id, role: 'user', content: textOf(m.content) }
    case 'assistant':
      return m.toolCalls?.length
        ? {
            id: m.id,
            role: 'assistant',
            content: m.content ?? '',
            toolCalls: m.toolCalls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
          }
        : { id: m.id, role: 'assistant', content: m.content ?? '' }
    case 'tool':
      return m.error === undefined
        ? { id: m.id, role: 'tool', toolCallId: m.toolCallId, content: textOf(m.content) }
        : { id: m.id, role: 'tool', toolCallId: m.toolCallId, content: textOf(m.content), error: m.error }
    default:
      return null
  }
}

/** RUN_STARTED for a response. */
export function runStarted(view: AguiView): string {
  return sse({ type: 'RUN_STARTED', threadId: view.threadId, runId: view.runId })
}

/** RUN_FINISHED with nothing more to do (no run active, nothing new in the input). */
export function runFinished(view: AguiView, id?: number): string {
  return sse({ type: 'RUN_FINISHED', threadId: view.threadId, runId: view.runId, outcome: { type: 'success' } }, id)
}

/**
 * The event that ends this response after `e`, if `e` ends the Parlance run or pauses it for the client:
 * run.finished → RUN_FINISHED success; run.error `cancelled` → RUN_FINISHED cancelled; other run errors →
 * RUN_ERROR; a client tool call → RUN_FINISHED success, the call left without a result (the next request
 * carries the tool message); an approval → RUN_FINISHED `interrupt` (the next request carries `resume`).
 */
export function ending(e: StoredEvent, view: AguiView): string | null {
  const { threadId, runId } = view
  switch (e.type) {
    case 'run.finished':
      return sse(
        { type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'success' }, ...(e.result !== undefined ? { result: e.result } : {}) },
        e.seq,
      )
    case 'run.error':
      if (e.code === 'cancelled') return sse({ type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'cancelled' } }, e.seq)
      return sse({ type: 'RUN_ERROR', message: e.message, code: AGUI_ERRORS[e.code].code }, e.seq)
    case 'tool.call':
      // No `pendingToolCallIds`: clients read a call with no result as theirs without it (@ag-ui/client 1.0 does), and
      // the AG-UI 0.0.x schemas front ends still pin (CopilotKit) reject the key and fail the run before the tool runs.
      return e.target === 'client' ? sse({ type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'success' } }, e.seq) : null
    case 'approval.requested':
      return sse(
        {
          type: 'RUN_FINISHED',
          threadId,
          runId,
          outcome: {
            type: 'interrupt',
            interrupts: [
              {
                id: e.approvalId,
                reason: 'approval',
                message: e.reasoning,
                responseSchema: {
                  type: 'object',
                  properties: { approved: { type: 'boolean' }, feedback: { type: 'string' } },
                  required: ['approved'],
                },
                expiresAt: new Date(e.ts + e.timeoutMs).toISOString(),
                metadata: { parlance: { toolName: e.toolName, args: e.args, risk: e.risk } },
              },
            ],
          },
        },
        e.seq,
      )
    default:
      return null
  }
}

/**
 * Encodes one canonical event as AG-UI SSE messages (the run-ending ones come from `ending`). Pure. When
 * one event becomes several AG-UI events only the last carries the seq as its SSE id, so a client resuming
 * from its Last-Event-ID never gets half an event.
 */
export function encode(e: StoredEvent, view: AguiView): readonly string[] {
  const id = e.seq
  switch (e.type) {
    case 'text.start':
      return [sse({ type: 'TEXT_MESSAGE_START', messageId: e.messageId, role: 'assistant' }, id)]
    case 'text.delta':
      return [sse({ type: 'TEXT_MESSAGE_CONTENT', messageId: e.messageId, delta: e.delta }, id)]
    case 'text.end':
      return [sse({ type: 'TEXT_MESSAGE_END', messageId: e.messageId }, id)]
    case 'message.sent':
      return [
        sse({ type: 'TEXT_MESSAGE_START', messageId: e.messageId, role: 'assistant' }),
        sse({ type: 'TEXT_MESSAGE_CONTENT', messageId: e.messageId, delta: e.message }),
        sse({ type: 'TEXT_MESSAGE_END', messageId: e.messageId }, id),
      ]
    case 'reasoning.start':
      return [
        sse({ type: 'REASONING_START', messageId: e.messageId }),
        sse({ type: 'REASONING_MESSAGE_START', messageId: e.messageId, role: 'reasoning' }, id),
      ]
    case 'reasoning.delta':
      return [sse({ type: 'REASONING_MESSAGE_CONTENT', messageId: e.messageId, delta: e.delta }, id)]
    case 'reasoning.end':
      return [sse({ type: 'REASONING_MESSAGE_END', messageId: e.messageId }), sse({ type: 'REASONING_END', messageId: e.messageId }, id)]
    case 'tool.call':
      // parentMessageId is the id the conversation model gives this call's assistant message, so the
      // client's history and the stored one agree on ids (reconciliation depends on it).
      return [
        sse({
          type: 'TOOL_CALL_START',
          toolCallId: e.toolCallId,
          toolCallName: e.toolName,
          parentMessageId: e.parentMessageId ?? `msg_${e.toolCallId}`,
        }),
        sse({ type: 'TOOL_CALL_ARGS', toolCallId: e.toolCallId, delta: JSON.stringify(e.args) }),
        sse({ type: 'TOOL_CALL_END', toolCallId: e.toolCallId }, id),
      ]
    case 'tool.result':
      return [
        sse(
          { type: 'TOOL_CALL_RESULT', messageId: `res_${e.toolCallId}`, toolCallId: e.toolCallId, role: 'tool', content: toolResultText(e.result) },
          id,
        ),
      ]
    case 'tool.error':
    case 'tool.cancel': {
      const error = e.type === 'tool.error' ? e.error : `cancelled: ${e.reason}`
      return [
        sse(
          {
            type: 'TOOL_CALL_RESULT',
            messageId: `res_${e.toolCallId}`,
            toolCallId: e.toolCallId,
            role: 'tool',
            content: '',
            metadata: { parlance: { error } },
          },
          id,
        ),
      ]
    }
    case 'step.started':
    case 'step.finished':
      return [sse({ type: e.type === 'step.started' ? 'STEP_STARTED' : 'STEP_FINISHED', stepName: e.name }, id)]
    case 'state.snapshot':
      return [sse({ type: 'STATE_SNAPSHOT', snapshot: e.snapshot }, id)]
    case 'state.delta':
      return [sse({ type: 'STATE_DELTA', delta: e.patch }, id)]
    case 'messages.snapshot':
      return [sse({ type: 'MESSAGES_SNAPSHOT', messages: e.messages.map(toAguiMessage) }, id)]
    case 'approval.requested':
      return [
        sse(
          {
            type: 'CUSTOM',
            name: CUSTOM.approvalRequested,
            value: {
              approvalId: e.approvalId,
              toolName: e.toolName,
              toolDescription: e.toolDescription,
              args: e.args,
              reasoning: e.reasoning,
              risk: e.risk,
              timeoutMs: e.timeoutMs,
            },
          },
          id,
        ),
      ]
    case 'approval.resolved':
      return [
        sse(
          {
            type: 'CUSTOM',
            name: CUSTOM.approvalResolved,
            value: { approvalId: e.approvalId, approved: e.approved, by: e.by, ...(e.feedback !== undefined ? { feedback: e.feedback } : {}) },
          },
          id,
        ),
      ]
    case 'status':
      return [
        sse(
          { type: 'CUSTOM', name: CUSTOM.status, value: e.message === undefined ? { status: e.status } : { status: e.status, message: e.message } },
          id,
        ),
      ]
    case 'plan':
      return [sse({ type: 'CUSTOM', name: CUSTOM.plan, value: { planId: e.planId, tasks: e.tasks } }, id)]
    case 'progress':
      return [
        sse(
          {
            type: 'CUSTOM',
            name: CUSTOM.progress,
            value: { percent: e.percent, planId: e.planId ?? null, taskId: e.taskId ?? null, message: e.message ?? null },
          },
          id,
        ),
      ]
    case 'typing':
      return [sse({ type: 'CUSTOM', name: CUSTOM.typing, value: { active: e.active } }, id)]
    case 'context.update':
      return [
        sse(
          {
            type: 'CUSTOM',
            name: CUSTOM.context,
            value: { name: e.name, description: e.description, context: e.context as never, triggering: e.triggering },
          },
          id,
        ),
      ]
    case 'message.delivery':
      return [sse({ type: 'CUSTOM', name: CUSTOM.delivery, value: { messageId: e.messageId, ok: e.ok, ...(e.error ? { error: e.error } : {}) } }, id)]
    case 'message.queued':
      return [
        sse(
          {
            type: 'CUSTOM',
            name: CUSTOM.messageQueued,
            value: {
              messageId: e.messageId,
              content: e.content,
              ...(e.metadata !== undefined ? { metadata: e.metadata } : {}),
              ...(e.agent !== undefined ? { agent: e.agent } : {}),
              ...(e.clientTools !== undefined ? { clientTools: e.clientTools } : {}),
            },
          },
          id,
        ),
      ]
    case 'history.rewound':
      return [
        sse(
          {
            type: 'CUSTOM',
            name: CUSTOM.historyRewound,
            value: {
              toMessageId: e.toMessageId,
              reason: e.reason,
              ...(e.droppedRunId !== undefined ? { droppedRunId: e.droppedRunId } : {}),
              ...(e.branch !== undefined ? { branch: e.branch } : {}),
            },
          },
          id,
        ),
      ]
    case 'custom':
      return [sse({ type: 'CUSTOM', name: e.name, value: e.value }, id)]
    case 'usage':
      return [sse({ type: 'CUSTOM', name: CUSTOM.usage, value: usageValue(e) }, id)]
    case 'raw':
      return [sse(e.source === undefined ? { type: 'RAW', event: e.event } : { type: 'RAW', event: e.event, source: e.source }, id)]
    case 'error':
      return [sse({ type: 'CUSTOM', name: CUSTOM.error, value: { code: AGUI_ERRORS[e.code].code, message: e.message } }, id)]
    default:
      // message.user and run.started (the client sent the one; RUN_STARTED is written per response),
      // run.finished / run.error (see `ending`), and events added later without an AG-UI mapping.
      void view
      return []
  }
}
