import type { Encoded, StoredEvent } from '../../core/index.js'
import { MYAGENT_ERROR } from './errors.js'
import { base } from './encode-system.js'
import type { Draft, MyAgentView } from './encode-view.js'
import type { MyAgentServerContent, MyAgentServerEvent, MyAgentServerEventName } from './wire.js'

export { encodeError, encodeSystem, type SystemContext } from './encode-system.js'
export { view, type MyAgentView } from './encode-view.js'

/** A server event on the wire (seed: EventProtocol base structure). */
export type MyAgentEvent = MyAgentServerEvent

/** Server events a custom event (`ctx.emit(name, {content, metadata})`) may be sent as, verbatim. */
const PASSTHROUGH: ReadonlySet<string> = new Set<MyAgentServerEventName>([
  'plan.validation_error',
  'solver.retry',
  'error.retry',
  'error.recovery_started',
  'error.recovery_success',
  'error.recovery_failed',
])
const isPassthrough = (name: string): name is MyAgentServerEventName => PASSTHROUGH.has(name)

/** The user-visible `content` of `agent.history_rewound`, by reason. */
const REWOUND = {
  rollback: 'The interrupted turn was rolled back',
  regenerate: 'Answering again',
  edit: 'The conversation was rewound to the edited message',
} as const

/** The seed's code of a run failure, a timeout: from the one error table. */
const EXECUTION_CODE = MYAGENT_ERROR.execution_error.code
const TIMEOUT_CODE = MYAGENT_ERROR.timeout.code

/**
 * Encodes a batch of canonical events as MyAgent events for `view`; `track` (optional) sees each event's
 * frames with its seq, in order (the connection's ack buffer). Never changes the view it is given.
 */
export function encode(
  events: readonly StoredEvent[],
  view: MyAgentView,
  track?: (seq: number, frames: string[]) => void,
): Encoded<string, MyAgentView> {
  const frames: string[] = []
  let draft: Draft | null = null
  const edit = (): Draft =>
    (draft ??= { ...view, texts: new Map(view.texts), reasoning: new Map(view.reasoning), approvals: new Map(view.approvals) })
  for (const e of events) {
    const out = encodeEvent(e, draft ?? view, edit)
    track?.(e.seq, out)
    for (const f of out) frames.push(f)
  }
  return { frames, view: draft ?? view }
}

/**
 * Encodes one canonical event as MyAgent events (zero or more), reading `v` and changing only what `edit()`
 * returns. Each carries the session seq in `metadata.seq`; when one event becomes several, only the last does.
 */
function encodeEvent(e: StoredEvent, v: MyAgentView, edit: () => Draft): string[] {
  const out: MyAgentEvent[] = []
  const push = <K extends MyAgentServerEventName>(
    event: K,
    content: MyAgentServerContent[K],
    metadata: Record<string, unknown> = {},
    stepId?: string,
  ) => out.push(base(v, event, content, metadata, e.ts, stepId) as MyAgentEvent)
  /** solver.completed for the plan in progress (tasks not done count as partial), then the held final answers. */
  const completePlan = () => {
    const p = v.plan
    if (p) {
      push(
        'solver.completed',
        {
          task_results: p.tasks.map((t, i) => ({
            task_id: t.id,
            result: null,
            status: i < p.completed ? ('success' as const) : ('partial' as const),
          })),
        },
        {
          total_tasks: p.tasks.length,
          successful_tasks: p.completed,
          failed_tasks: p.tasks.length - p.completed,
          total_execution_time_ms: e.ts - p.started,
          total_tokens_used: 0,
        },
        p.id,
      )
      edit().plan = null
    }
    if (v.held.length) {
      for (const h of v.held) out.push(h)
      const d = edit()
      d.held = []
      d.answered = true
    }
  }
  /** A final answer: held while the plan is unfinished, else after the plan's solver.completed. */
  const finalAnswer = (answer: string, metadata: Record<string, unknown>, stepId: string) => {
    const fa = base(v, 'agent.final_answer', { answer, answer_type: 'text' }, metadata, e.ts, stepId)
    if (v.plan && v.plan.completed < v.plan.tasks.length) {
      edit().held = [...v.held, fa]
      return
    }
    completePlan()
    out.push(fa)
    if (!v.answered) edit().answered = true
  }
  switch (e.type) {
    case 'run.started':
      if (v.answered || v.held.length) {
        const d = edit()
        d.answered = false
        d.held = []
      }
      break
    case 'message.user':
      edit().question = e.content
      break
    case 'message.queued':
      // Extension: a message waiting for the active run (policy enqueue); its own run starts when this one ends.
      push('agent.message_queued', e.content, { message_id: e.messageId }, e.messageId)
      break
    case 'history.rewound':
      // Extension: the answers after `to_message_id` left the history the agent sees (the log keeps them).
      push(
        'agent.history_rewound',
        REWOUND[e.reason],
        {
          to_message_id: e.toMessageId,
          reason: e.reason,
          ...(e.droppedRunId !== undefined ? { dropped_run_id: e.droppedRunId } : {}),
          ...(e.branch !== undefined ? { branch: e.branch } : {}),
        },
        e.runId,
      )
      break
    case 'plan': {
      edit().plan = { id: e.planId, tasks: e.tasks, completed: 0, started: e.ts }
      push('plan.start', { question: v.question }, { plan_id: e.planId, timeout_seconds: 0, model: 'parlance' }, e.planId)
      push(
        'plan.completed',
        { tasks: e.tasks.map((t) => ({ id: t.id, title: t.title, description: t.title })) },
        {
          task_count: e.tasks.length,
          plan_summary: e.tasks.map((t) => t.title).join('; '),
          total_estimated_tokens: 0,
          llm_calls: 0,
          planning_time_ms: 0,
        },
        e.planId,
      )
      push('solver.start', null, { task_count: e.tasks.length, total_tasks: e.tasks.length, estimated_duration_sec: 0 }, e.planId)
      break
    }
    case 'step.finished':
      if (!e.ok) {
        push(
          'solver.step_failed',
          { error_message: e.error ?? 'step failed', step_name: e.name },
          { step_index: v.plan?.completed ?? 0, error_code: EXECUTION_CODE, error_type: 'StepError', recovery_possible: false },
          e.stepId,
        )
      } else if (v.plan) {
        const plan = { ...v.plan, completed: v.plan.completed + 1 }
        edit().plan = plan
        push(
          'plan.step_completed',
          { step_name: e.name, step_result: null },
          { step_index: plan.completed - 1, step_duration_ms: 0, tokens_used: 0 },
          e.stepId,
        )
        if (plan.completed === plan.tasks.length && v.held.length) completePlan()
      }
      break
    case 'progress': {
      const total = v.plan?.tasks.length ?? 0
      const index = v.plan && e.taskId ? v.plan.tasks.findIndex((t) => t.id === e.taskId) + 1 : 0
      push(
        'solver.progress',
        { current_task: e.message ?? '', status: e.percent >= 100 ? 'completed' : 'processing' },
        {
          progress_percent: e.percent,
          current_step: index,
          completed_steps: v.plan?.completed ?? 0,
          total_steps: total,
          elapsed_time_ms: v.plan ? e.ts - v.plan.started : 0,
        },
        e.planId ?? v.plan?.id ?? e.runId,
      )
      break
    }
    case 'status':
      if (e.status === 'thinking')
        push('agent.thinking', e.message ?? 'thinking', { model: 'parlance', max_tokens: 0, temperature: 0, thinking_type: 'analysis' }, e.runId)
      break
    case 'reasoning.start':
      edit().reasoning.set(e.messageId, '')
      break
    case 'reasoning.delta': {
      const so = v.reasoning.get(e.messageId)
      if (so !== undefined) edit().reasoning.set(e.messageId, so + e.delta)
      break
    }
    case 'reasoning.end':
      push(
        'agent.thinking',
        v.reasoning.get(e.messageId) ?? '',
        { model: 'parlance', max_tokens: 0, temperature: 0, thinking_type: 'reasoning' },
        e.messageId,
      )
      edit().reasoning.delete(e.messageId)
      break
    case 'tool.call':
      push(
        'agent.tool_call',
        { tool_name: e.toolName, tool_description: '', arguments: e.args },
        { call_id: e.toolCallId, tool_type: e.target },
        e.toolCallId,
      )
      break
    case 'tool.result':
      push('agent.tool_result', { result: e.result, status: 'success' }, { call_id: e.toolCallId, execution_time_ms: 0 }, e.toolCallId)
      break
    case 'tool.error':
    case 'tool.cancel': {
      const error = e.type === 'tool.error' ? e.error : `cancelled: ${e.reason}`
      push('agent.tool_result', { result: { error }, status: 'failed' }, { call_id: e.toolCallId, execution_time_ms: 0 }, e.toolCallId)
      if (e.type === 'tool.error')
        push(
          'solver.step_failed',
          { error_message: error, step_name: e.toolName },
          { step_index: v.plan?.completed ?? 0, error_code: EXECUTION_CODE, error_type: 'ToolError', recovery_possible: false },
          e.toolCallId,
        )
      break
    }
    case 'text.start':
      edit().texts.set(e.messageId, { text: '', chunks: 0, started: e.ts })
      break
    case 'text.delta': {
      const t = v.texts.get(e.messageId) ?? { text: '', chunks: 0, started: e.ts } // attached mid-message
      push('agent.partial_answer', e.delta, { chunk_index: t.chunks }, e.messageId)
      edit().texts.set(e.messageId, { text: t.text + e.delta, chunks: t.chunks + 1, started: t.started })
      break
    }
    case 'text.end': {
      const t = v.texts.get(e.messageId)
      edit().texts.delete(e.messageId)
      finalAnswer(
        t?.text ?? '',
        { generation_time_ms: t ? e.ts - t.started : 0, total_tokens_used: 0, model: 'parlance', message_id: e.messageId },
        e.messageId,
      )
      break
    }
    case 'message.sent':
      finalAnswer(e.message, { generation_time_ms: 0, total_tokens_used: 0, model: 'parlance', message_id: e.messageId }, e.messageId)
      break
    case 'approval.requested':
      edit().approvals.set(e.approvalId, { ts: e.ts, timeoutMs: e.timeoutMs })
      push(
        'agent.user_confirm',
        {
          message: e.reasoning,
          confirmation_type: 'approve',
          options: [
            { id: 'approve', label: 'Approve' },
            { id: 'reject', label: 'Reject' },
          ],
        },
        {
          timeout_seconds: Math.round(e.timeoutMs / 1000),
          critical: e.risk === 'high' || e.risk === 'critical',
          tool_name: e.toolName,
          tool_description: e.toolDescription,
          arguments: e.args,
          risk_level: e.risk,
        },
        e.approvalId,
      )
      break
    case 'approval.resolved':
      if (e.by === 'timeout') {
        const asked = v.approvals.get(e.approvalId)
        const timeout_seconds = asked ? asked.timeoutMs / 1000 : 0
        const elapsed_seconds = asked ? (e.ts - asked.ts) / 1000 : timeout_seconds
        push(
          'error.timeout',
          `no answer to confirmation ${e.approvalId} in time`,
          {
            error_code: TIMEOUT_CODE,
            timeout_seconds,
            elapsed_seconds,
            stage: 'user_confirm',
            attempt: 1,
            max_attempts: 1,
            retry_after_ms: 0,
            recovery_strategy: 'rejected',
          },
          e.approvalId,
        )
      }
      if (v.approvals.has(e.approvalId)) edit().approvals.delete(e.approvalId)
      break
    case 'run.finished':
      completePlan()
      break
    case 'run.error': {
      if (e.code === 'cancelled') {
        // The user asked to stop (user.cancel): the seed has no error for that, and the turn ends as every turn
        // does, with agent.final_answer — the text so far (sent when its message closed), else an empty one.
        completePlan()
        if (!v.answered)
          push(
            'agent.final_answer',
            { answer: '', answer_type: 'text' },
            { generation_time_ms: 0, total_tokens_used: 0, model: 'parlance', cancelled: true, reason: e.message },
            e.runId,
          )
        if (v.approvals.size > 0) edit().approvals.clear()
        break
      }
      // Answers held for an unfinished plan still go out: the user should see them before the error.
      for (const h of v.held) out.push(h)
      if (v.plan !== null || v.approvals.size > 0 || v.held.length > 0) {
        const d = edit()
        d.plan = null
        d.approvals.clear()
        d.held = []
      }
      const { event, code } = MYAGENT_ERROR[e.code]
      if (event === 'error.timeout')
        push(
          event,
          e.message,
          {
            error_code: code,
            timeout_seconds: 0,
            elapsed_seconds: 0,
            stage: 'run',
            attempt: 1,
            max_attempts: 1,
            retry_after_ms: 0,
            recovery_strategy: 'none',
          },
          e.runId,
        )
      else
        push(
          'error.execution',
          e.message,
          { error_code: EXECUTION_CODE, error_type: e.code, context: e.details ?? {}, recoverable: e.code !== 'internal' },
          e.runId,
        )
      break
    }
    case 'state.snapshot':
      push('agent.state', e.snapshot, { kind: 'snapshot' })
      break
    case 'state.delta':
      push('agent.state', e.patch, { kind: 'delta' })
      break
    case 'error':
      push('system.error', e.message, { error_code: MYAGENT_ERROR[e.code].code, severity: 'error' }, e.runId || `seq_${e.seq}`)
      break
    case 'custom':
      if (isPassthrough(e.name) && typeof e.value === 'object' && e.value !== null && !Array.isArray(e.value)) {
        const val = e.value as { content?: unknown; metadata?: Record<string, unknown>; step_id?: string }
        // A copy: seq is added below, the log's value stays as it is. Without a step of its own: the run's.
        push(e.name, val.content ?? null, { ...val.metadata }, val.step_id ?? (e.runId || `seq_${e.seq}`))
      } else push('agent.custom', { name: e.name, value: e.value })
      break
    default:
      break
  }
  const lastOut = out[out.length - 1]
  if (lastOut) lastOut.metadata.seq = e.seq
  return out.map((x) => JSON.stringify(x))
}
