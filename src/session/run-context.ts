import { newId, ParlanceError, type EventBody, type Json, type Limits, type PatchOp, type PlanTask, TOKEN_KINDS } from '../core/index.js'
import {
  parseToolInput,
  toJsonResult,
  type AgentDefinition,
  type ApprovalResult,
  type Plan,
  type RunContext,
  type TextSource,
  type ToolDefinition,
} from '../agent-api/index.js'
import { sendBurst, type MessagingHost } from './messaging.js'
import type { Run } from './run.js'
import { endApprovalSpan, failSpan, inToolSpan, startApprovalSpan } from '../telemetry/index.js'

/** The part of Session a run context uses. */
export interface RunHost extends MessagingHost {
  readonly id: string
  readonly model: { readonly messages: RunContext['history']; readonly state: Json }
  append(runId: string, body: EventBody): Promise<void> | undefined
}

function isPatch(value: unknown): value is PatchOp[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (op: unknown) => typeof op === 'object' && op !== null && typeof (op as PatchOp).op === 'string' && typeof (op as PatchOp).path === 'string',
    )
  )
}

/** Builds the RunContext an agent's `run` receives; every call becomes canonical events. */
export function createRunContext(
  host: RunHost,
  run: Run,
  agent: AgentDefinition,
  limits: Pick<Limits, 'approvalTimeoutMs' | 'clientToolTimeoutMs' | 'typingMsPerChar' | 'typingMaxMs' | 'messageConfirmTimeoutMs'>,
  newToolCallId: () => string,
): RunContext {
  /** Appends for this run after checking it is still active; waits only when the store is backed up. */
  const emit = (body: EventBody): Promise<void> | undefined => {
    run.ensureActive()
    return host.append(run.id, body)
  }

  async function streamText(source: TextSource, kind: 'text' | 'reasoning'): Promise<string> {
    const messageId = newId('msg')
    const open = kind === 'text' ? run.openText : run.openReasoning
    const delta = kind === 'text' ? 'text.delta' : 'reasoning.delta'
    void emit({ type: kind === 'text' ? 'text.start' : 'reasoning.start', messageId })
    open.add(messageId)
    if (typeof source === 'string') {
      if (source) await emit({ type: delta, messageId, delta: source })
    } else if (Symbol.iterator in source) {
      for (const chunk of source) {
        if (!chunk) continue
        const wait = emit({ type: delta, messageId, delta: chunk })
        if (wait) await wait
      }
    } else {
      for await (const chunk of source) {
        if (!chunk) continue
        const wait = emit({ type: delta, messageId, delta: chunk })
        if (wait) await wait
      }
    }
    open.delete(messageId)
    await emit({ type: kind === 'text' ? 'text.end' : 'reasoning.end', messageId })
    return messageId
  }

  function callServerTool(name: string, args: Record<string, unknown>, execute: (args: unknown) => unknown, tool?: ToolDefinition): Promise<Json> {
    const toolCallId = newToolCallId()
    return inToolSpan(name, toolCallId, 'server', run.traceContext, () => runServerTool(toolCallId, name, args, execute, tool))
  }

  async function runServerTool(
    toolCallId: string,
    name: string,
    args: Record<string, unknown>,
    execute: (args: unknown) => unknown,
    tool?: ToolDefinition,
  ): Promise<Json> {
    await emit({ type: 'tool.call', toolCallId, toolName: name, args, target: 'server' })
    let result: Json
    try {
      // A Standard Schema inputSchema validates (and parses) the arguments first: bad ones are the tool's error.
      result = toJsonResult(await execute(tool ? await parseToolInput(name, tool, args) : args))
    } catch (err) {
      run.ensureActive()
      const message = err instanceof Error ? err.message : String(err)
      await emit({ type: 'tool.error', toolCallId, toolName: name, error: message })
      throw new ParlanceError('tool_error', `tool ${name} failed: ${message}`, { toolName: name, toolCallId }, { cause: err })
    }
    await emit({ type: 'tool.result', toolCallId, toolName: name, result })
    return result
  }

  /** A client tool the agent declares with a Standard Schema: bad arguments fail here, before reaching the client. */
  async function checkClientArgs(name: string, tool: ToolDefinition, args: Record<string, unknown>): Promise<void> {
    try {
      await parseToolInput(name, tool, args)
    } catch (err) {
      const toolCallId = newToolCallId()
      const message = (err as Error).message
      await emit({ type: 'tool.call', toolCallId, toolName: name, args, target: 'client' })
      await emit({ type: 'tool.error', toolCallId, toolName: name, error: message })
      throw new ParlanceError('tool_error', `tool ${name} failed: ${message}`, { toolName: name, toolCallId }, { cause: err })
    }
  }

  function callClientTool(name: string, args: Record<string, unknown>): Promise<Json> {
    const toolCallId = newToolCallId()
    return inToolSpan(name, toolCallId, 'client', run.traceContext, () => runClientTool(toolCallId, name, args))
  }

  async function runClientTool(toolCallId: string, name: string, args: Record<string, unknown>): Promise<Json> {
    const timeoutMs = limits.clientToolTimeoutMs
    const answer = run.clientTools.wait(toolCallId, timeoutMs, { toolName: name }, () => ({ type: 'timeout' }))
    await emit({ type: 'tool.call', toolCallId, toolName: name, args, target: 'client' })
    const a = await answer
    run.ensureActive()
    if (a.type === 'timeout') {
      await emit({ type: 'tool.error', toolCallId, toolName: name, error: `no result from the client within ${timeoutMs} ms` })
      throw new ParlanceError('timeout', `client tool ${name} timed out after ${timeoutMs} ms`, { toolName: name, toolCallId })
    }
    if (a.outcome === 'success') {
      const result = a.result ?? null
      await emit({ type: 'tool.result', toolCallId, toolName: name, result })
      return result
    }
    if (a.outcome === 'canceled') {
      await emit({ type: 'tool.cancel', toolCallId, toolName: name, reason: 'canceled by the client', by: 'client' })
      // The client's own outcome, in Parlance's words: nothing of the agent's to hide (src/session/failure.ts).
      throw new ParlanceError('tool_error', `client tool ${name} was canceled by the client`, { toolName: name, toolCallId }, { expose: true })
    }
    const error = a.error ?? 'the client reported a failure'
    await emit({ type: 'tool.error', toolCallId, toolName: name, error })
    throw new ParlanceError('tool_error', `client tool ${name} failed: ${error}`, { toolName: name, toolCallId }, { expose: true })
  }

  const ctx: RunContext = {
    sessionId: host.id,
    runId: run.id,
    input: run.input,
    get history() {
      return host.model.messages
    },
    get state() {
      return host.model.state
    },
    get signal() {
      return run.signal
    },

    // Always streamed, whoever watches: the log carries the stream, and each dialect renders it (HUMA as a
    // messaging burst of one whose delivery its client confirms; see recordDelivery in messaging.ts).
    say: (text) => streamText(text, 'text'),
    async send(messages, opts) {
      const { delivered, ok, error } = await sendBurst(host, run, emit, limits, newToolCallId(), messages.filter(Boolean), opts?.extra)
      return error === undefined ? { delivered, ok } : { delivered, ok, error }
    },
    think: async (text) => {
      await streamText(text, 'reasoning')
    },
    status: async (status, message) => {
      await emit(message === undefined ? { type: 'status', status } : { type: 'status', status, message })
    },
    async step(name, fn) {
      const stepId = newId('step')
      await emit({ type: 'step.started', stepId, name })
      try {
        const out = await fn()
        await emit({ type: 'step.finished', stepId, name, ok: true })
        return out
      } catch (err) {
        if (!run.ended) await emit({ type: 'step.finished', stepId, name, ok: false, error: err instanceof Error ? err.message : String(err) })
        throw err
      }
    },
    async plan(tasks) {
      const list: PlanTask[] = tasks.map((t, i) => (typeof t === 'string' ? { id: `task_${i + 1}`, title: t } : t))
      const plan: Plan = { id: newId('plan'), tasks: list }
      await emit({ type: 'plan', planId: plan.id, tasks: list })
      return plan
    },
    async progress(percent, opts) {
      const p = Math.max(0, Math.min(100, Number.isFinite(percent) ? percent : 0))
      await emit({ type: 'progress', percent: p, planId: opts?.plan?.id, taskId: opts?.taskId, message: opts?.message })
    },
    async callTool(name: string, args: Record<string, unknown> = {}): Promise<never> {
      run.ensureActive()
      const def = agent.tools[name]
      const offeredByClient = run.input.clientTools.some((t) => t.name === name)
      // The overloads type the result by the tool; at run time it is the JSON the tool produced.
      if (def?.execute && !offeredByClient) return (await callServerTool(name, args, (a) => def.execute!(a as never, ctx), def)) as never
      if (def && !offeredByClient) await checkClientArgs(name, def, args)
      if (def || offeredByClient) return (await callClientTool(name, args)) as never
      throw new ParlanceError('not_found', `agent ${agent.name} has no tool "${name}"`, { toolName: name })
    },
    async externalTool(name, args, outcome) {
      run.ensureActive()
      const settled = Promise.resolve(outcome)
      // Awaited after tool.call is committed; this keeps an earlier rejection from counting as unhandled.
      settled.catch(() => {})
      return callServerTool(name, args, () => settled)
    },
    async approve(req) {
      run.ensureActive()
      const approvalId = newId('appr')
      const timeoutMs = req.timeoutMs ?? limits.approvalTimeoutMs
      const answer = run.approvals.wait(approvalId, timeoutMs, { toolName: req.tool }, (): ApprovalResult => ({ approved: false, by: 'timeout' }))
      const span = startApprovalSpan(req.tool, approvalId, run.traceContext)
      let result: ApprovalResult
      try {
        await emit({
          type: 'approval.requested',
          approvalId,
          toolName: req.tool,
          toolDescription: req.description ?? agent.tools[req.tool]?.description ?? '',
          args: req.args,
          reasoning: req.reasoning,
          risk: req.risk,
          timeoutMs,
        })
        result = await answer
      } catch (err) {
        failSpan(span, err)
        throw err
      }
      endApprovalSpan(span, result.approved, result.by)
      await emit(
        result.feedback === undefined
          ? { type: 'approval.resolved', approvalId, approved: result.approved, by: result.by }
          : { type: 'approval.resolved', approvalId, approved: result.approved, feedback: result.feedback, by: result.by },
      )
      return result
    },
    async setState(next, opts) {
      const patch = opts?.patch ?? isPatch(next)
      await emit(patch ? { type: 'state.delta', patch: next as PatchOp[] } : { type: 'state.snapshot', snapshot: next as Json })
    },
    async emit(name, value) {
      await emit({ type: 'custom', name, value })
    },
    async typing(active) {
      await emit({ type: 'typing', active })
    },
    async usage(report) {
      const body: Extract<EventBody, { type: 'usage' }> = { type: 'usage', agent: agent.name, model: String(report.model) }
      if (report.provider !== undefined) body.provider = String(report.provider)
      for (const k of Object.keys(TOKEN_KINDS) as Array<keyof typeof TOKEN_KINDS>) {
        const n = report[k]
        if (typeof n === 'number' && Number.isFinite(n) && n >= 0) body[k] = n
      }
      await emit(body)
    },
  }
  return ctx
}
