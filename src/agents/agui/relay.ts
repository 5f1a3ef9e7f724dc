import { EventType, getRunOutcome, type BaseEvent, type Interrupt, type RunFinishedEvent } from '@ag-ui/client'
import type { Plan, RunContext } from '../../agent-api/index.js'
import { stringOf, type Json, type PatchOp, type PlanTask, type RunStatus } from '../../core/index.js'
import { TextChannel } from './channel.js'
import { PARLANCE_CUSTOM, parseContent } from './convert.js'

/** A tool call the remote agent left for the client to run. */
export interface PendingCall {
  id: string
  name: string
  args: Record<string, unknown>
}

/** How one remote AG-UI run ended. */
export type RemoteOutcome =
  | { type: 'success'; pending: PendingCall[] }
  | { type: 'interrupt'; interrupts: Interrupt[] }
  | { type: 'cancelled' }
  | { type: 'error'; message: string; code?: string }

/** What Parlance's own AG-UI endpoint says about an approval in its CUSTOM event (richer than the interrupt). */
export interface ApprovalInfo {
  toolName?: string
  toolDescription?: string
  args?: Record<string, unknown>
  risk?: string
}

interface Deferred<T> {
  promise: Promise<T>
  resolve(value: T): void
  reject(err: unknown): void
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

interface OpenText {
  channel: TextChannel
  done: Promise<unknown>
}

interface RemoteCall {
  name: string
  args: string
  ended: boolean
  /** Set once reported as a server tool (`ctx.externalTool`) that still waits for its result. */
  external?: { outcome: Deferred<Json>; done: Promise<unknown> }
}

const STATUSES: ReadonlySet<string> = new Set<RunStatus>(['thinking', 'routing', 'executing_tools', 'completed'])
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function parseArgs(raw: string): Record<string, unknown> {
  if (!raw) return {}
  try {
    const v = JSON.parse(raw) as unknown
    return isObject(v) ? v : { value: v }
  } catch {
    return { arguments: raw }
  }
}

/**
 * Turns the events of remote AG-UI runs into RunContext calls, in order: text and reasoning stream through
 * `say` / `think`, steps wrap `step`, state goes to `setState`, Parlance's CUSTOM events to the matching
 * calls, the remote's own tool calls to `externalTool`. Tool calls that end without a result are held back
 * until the next event says what they are: a result or any other event makes them server tools; the end
 * of the run (`pendingToolCallIds`) makes them client tools, left to the caller. One relay serves every
 * remote run of one Parlance run. `handle` never throws: the first failure is kept in `failure`.
 */
export class EventRelay {
  /** The first error while relaying (the run stopped, a bad state patch…); later events are ignored. */
  failure: unknown = undefined
  /** Called once, on the first failure (the bridge aborts the remote request). */
  onFailure: () => void = () => {}
  private outcome: RemoteOutcome | null = null
  private readonly text = new Map<string, OpenText>()
  private readonly reasoning = new Map<string, OpenText>()
  private readonly steps = new Map<string, Array<{ finish: Deferred<void>; done: Promise<unknown> }>>()
  private readonly calls = new Map<string, RemoteCall>()
  private held: string[] = []
  /** Tool calls the bridge answered itself (client tools): the remote's echo of their results is skipped. */
  private readonly answeredIds = new Set<string>()
  private readonly plans = new Map<string, Plan>()
  /** Approval details from Parlance's CUSTOM events, by interrupt id. */
  readonly approvals = new Map<string, ApprovalInfo>()

  constructor(
    private readonly ctx: RunContext,
    /** Tools offered to the remote as frontend tools: a call to one is held for the client until the run says otherwise. */
    private readonly clientToolNames: ReadonlySet<string>,
  ) {}

  /** Relays one event; never throws. */
  async handle(event: BaseEvent): Promise<void> {
    if (this.failure !== undefined) return
    try {
      await this.relay(event)
    } catch (err) {
      this.fail(err)
    }
  }

  /** Marks a client tool call as answered by the bridge. */
  answered(id: string): void {
    this.answeredIds.add(id)
    this.calls.delete(id)
  }

  /** How the last remote run ended (null when its stream ended without RUN_FINISHED / RUN_ERROR); clears it. */
  takeOutcome(): RemoteOutcome | null {
    const o = this.outcome
    this.outcome = null
    return o
  }

  /** After a remote run's stream ended: closes the text, reasoning and steps it left open. */
  async settle(): Promise<void> {
    const open = [...this.text.values(), ...this.reasoning.values()]
    this.text.clear()
    this.reasoning.clear()
    const steps = [...this.steps.values()].flat()
    this.steps.clear()
    for (const t of open) t.channel.end()
    for (const s of steps) s.finish.resolve()
    await Promise.allSettled([...open.map((t) => t.done), ...steps.map((s) => s.done)])
  }

  private fail(err: unknown): void {
    if (this.failure !== undefined) return
    this.failure = err
    this.onFailure()
  }

  private async relay(e: BaseEvent): Promise<void> {
    const ctx = this.ctx
    const ev = e
    switch (e.type) {
      case EventType.TOOL_CALL_START:
        this.calls.set(String(ev.toolCallId), { name: String(ev.toolCallName), args: '', ended: false })
        return
      case EventType.TOOL_CALL_ARGS: {
        const call = this.calls.get(String(ev.toolCallId))
        if (call) call.args += stringOf(ev.delta)
        return
      }
      case EventType.TOOL_CALL_END: {
        const id = String(ev.toolCallId)
        const call = this.calls.get(id)
        if (call && !call.ended) {
          call.ended = true
          this.held.push(id)
        }
        return
      }
      case EventType.TOOL_CALL_RESULT:
        return this.toolResult(String(ev.toolCallId), ev.content, ev.metadata)
      case EventType.RUN_FINISHED:
        return this.finished(e as RunFinishedEvent)
      case EventType.RUN_ERROR:
        this.outcome = { type: 'error', message: stringOf(ev.message, 'unknown error'), ...(typeof ev.code === 'string' ? { code: ev.code } : {}) }
        return
      case EventType.RUN_STARTED:
        return
      default:
        break
    }
    // Any other event: the held tool calls were not left for the client, so they run on the remote's side.
    this.reportHeld()
    switch (e.type) {
      case EventType.TEXT_MESSAGE_START:
        return void this.open(this.text, String(ev.messageId), 'say')
      case EventType.TEXT_MESSAGE_CONTENT:
        return this.push(this.text, String(ev.messageId), ev.delta, 'say')
      case EventType.TEXT_MESSAGE_END:
        return this.close(this.text, String(ev.messageId))
      case EventType.REASONING_MESSAGE_START:
        return void this.open(this.reasoning, String(ev.messageId), 'think')
      case EventType.REASONING_MESSAGE_CONTENT:
        return this.push(this.reasoning, String(ev.messageId), ev.delta, 'think')
      case EventType.REASONING_MESSAGE_END:
        return this.close(this.reasoning, String(ev.messageId))
      case EventType.STEP_STARTED: {
        const name = String(ev.stepName)
        const finish = deferred<void>()
        const done = ctx.step(name, () => finish.promise)
        done.catch(() => {})
        const stack = this.steps.get(name) ?? []
        stack.push({ finish, done })
        this.steps.set(name, stack)
        return
      }
      case EventType.STEP_FINISHED: {
        const step = this.steps.get(String(ev.stepName))?.pop()
        if (!step) return
        step.finish.resolve()
        await step.done
        return
      }
      case EventType.STATE_SNAPSHOT: {
        const snapshot = (ev.snapshot ?? null) as Json
        // The remote echoes the state the bridge sent (or one it already has): nothing changed.
        if (JSON.stringify(snapshot) !== JSON.stringify(ctx.state)) await ctx.setState(snapshot, { patch: false })
        return
      }
      case EventType.STATE_DELTA:
        if (Array.isArray(ev.delta) && ev.delta.length > 0) await ctx.setState(ev.delta as PatchOp[], { patch: true })
        return
      case EventType.CUSTOM:
        return this.custom(String(ev.name), (ev.value ?? null) as Json)
      default:
        // REASONING_START/END (the bracket around reasoning messages), MESSAGES_SNAPSHOT (the bridge keeps
        // its own history), RAW, ACTIVITY_*, SUBAGENT_*: nothing to relay.
        return
    }
  }

  private open(map: Map<string, OpenText>, id: string, kind: 'say' | 'think'): OpenText {
    const channel = new TextChannel()
    const done = kind === 'say' ? this.ctx.say(channel) : this.ctx.think(channel)
    done.catch(() => {})
    const t = { channel, done }
    map.set(id, t)
    return t
  }

  private async push(map: Map<string, OpenText>, id: string, delta: unknown, kind: 'say' | 'think'): Promise<void> {
    if (typeof delta !== 'string' || delta === '') return
    const t = map.get(id) ?? this.open(map, id, kind)
    // Resolves once the chunk was emitted; rejects if say/think failed (the run stopped).
    await Promise.race([t.channel.push(delta), t.done.then(() => {})])
  }

  private async close(map: Map<string, OpenText>, id: string): Promise<void> {
    const t = map.get(id)
    if (!t) return
    map.delete(id)
    t.channel.end()
    await t.done
  }

  private async custom(name: string, value: Json): Promise<void> {
    const ctx = this.ctx
    const v = isObject(value) ? value : {}
    switch (name) {
      case PARLANCE_CUSTOM.status:
        if (typeof v.status === 'string' && STATUSES.has(v.status))
          await ctx.status(v.status as RunStatus, typeof v.message === 'string' ? v.message : undefined)
        return
      case PARLANCE_CUSTOM.plan: {
        const list: unknown[] = Array.isArray(v.tasks) ? v.tasks : []
        const tasks = list.filter(isObject).map((t, i): PlanTask => ({ id: stringOf(t.id, `task_${i + 1}`), title: stringOf(t.title) }))
        const plan = await ctx.plan(tasks)
        if (typeof v.planId === 'string') this.plans.set(v.planId, plan)
        return
      }
      case PARLANCE_CUSTOM.progress: {
        const plan = typeof v.planId === 'string' ? this.plans.get(v.planId) : undefined
        await ctx.progress(Number(v.percent), {
          ...(plan ? { plan } : {}),
          ...(typeof v.taskId === 'string' ? { taskId: v.taskId } : {}),
          ...(typeof v.message === 'string' ? { message: v.message } : {}),
        })
        return
      }
      case PARLANCE_CUSTOM.typing:
        await ctx.typing(v.active === true)
        return
      case PARLANCE_CUSTOM.approvalRequested:
        // The interrupt at the end of the run asks; this only adds details to it.
        if (typeof v.approvalId === 'string') {
          this.approvals.set(v.approvalId, {
            ...(typeof v.toolName === 'string' ? { toolName: v.toolName } : {}),
            ...(typeof v.toolDescription === 'string' ? { toolDescription: v.toolDescription } : {}),
            ...(isObject(v.args) ? { args: v.args } : {}),
            ...(typeof v.risk === 'string' ? { risk: v.risk } : {}),
          })
        }
        return
      case PARLANCE_CUSTOM.approvalResolved:
      case PARLANCE_CUSTOM.context:
      case PARLANCE_CUSTOM.delivery:
        // Echoes of what the bridge itself did (answered an approval, sent the input, confirmed delivery).
        return
      default:
        // Application events (ctx.emit on the remote side), and parlance.error, pass through as custom events.
        await ctx.emit(name, value)
    }
  }

  /** Reports held tool calls (except those offered to the remote as client tools) as server tools still running. */
  private reportHeld(): void {
    if (this.held.length === 0) return
    const keep: string[] = []
    for (const id of this.held) {
      const call = this.calls.get(id)
      if (!call) continue
      if (this.clientToolNames.has(call.name)) keep.push(id)
      else void this.report(call)
    }
    this.held = keep
  }

  private report(call: RemoteCall, result?: { ok: true; value: Json } | { ok: false; error: string }): Promise<unknown> {
    const outcome = deferred<Json>()
    if (result) {
      if (result.ok) outcome.resolve(result.value)
      else outcome.reject(new Error(result.error))
    }
    // A failing remote tool is the remote's business (its run decides what follows): recorded, not thrown.
    const done = this.ctx.externalTool(call.name, parseArgs(call.args), outcome.promise).catch((err: unknown) => {
      if (this.ctx.signal.aborted) throw err
    })
    done.catch(() => {})
    if (!result) call.external = { outcome, done }
    return done
  }

  private async toolResult(id: string, content: unknown, metadata: unknown): Promise<void> {
    if (this.answeredIds.has(id)) return
    const call = this.calls.get(id)
    if (!call) return
    this.calls.delete(id)
    // Parlance marks a failed or cancelled tool with metadata.parlance.error (AG-UI has no error field here).
    const error =
      isObject(metadata) && isObject(metadata.parlance) && typeof metadata.parlance.error === 'string' ? metadata.parlance.error : undefined
    const result = error !== undefined ? ({ ok: false, error } as const) : ({ ok: true, value: parseContent(content) } as const)
    if (call.external) {
      if (result.ok) call.external.outcome.resolve(result.value)
      else call.external.outcome.reject(new Error(result.error))
      await call.external.done
      return
    }
    // Calls held before this one are reported first, so the order of tool.call events is the remote's.
    this.held = this.held.filter((h) => h !== id)
    this.reportHeld()
    await this.report(call, result)
  }

  private finished(e: RunFinishedEvent): void {
    const outcome = getRunOutcome(e) ?? { type: 'success' as const }
    if (outcome.type === 'interrupt') {
      this.outcome = { type: 'interrupt', interrupts: outcome.interrupts }
      return
    }
    if (outcome.type === 'cancelled') {
      this.outcome = { type: 'cancelled' }
      return
    }
    // Without pendingToolCallIds, every call with no result is left for the client (as @ag-ui/client reads it).
    const ids = outcome.pendingToolCallIds ?? [...this.calls.keys()]
    const pending: PendingCall[] = []
    for (const id of ids) {
      const call = this.calls.get(id)
      if (!call) continue
      // Reported as a server tool after all (events came between its end and the run's end): close that report.
      call.external?.outcome.reject(new Error('the remote agent left this call for the client'))
      pending.push({ id, name: call.name, args: parseArgs(call.args) })
    }
    this.held = []
    this.outcome = { type: 'success', pending }
  }
}
