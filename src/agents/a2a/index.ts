import { createHash, randomUUID } from 'node:crypto'
import { Role, TaskState, type Message, type Part, type StreamResponse } from '@a2a-js/sdk'
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client'
import { defineAgent, type AgentDefinition, type Plan, type RunContext } from '../../agent-api/index.js'
import { bridgedErrorCode, ParlanceError, type Json, type RiskLevel } from '../../core/index.js'
import { dataPart, textOf, textPart } from '../../dialects/a2a/mapping.js'
import { openTools } from '../open-tools.js'
import { injectTraceHeaders } from '../../telemetry/index.js'
import { TextQueue } from '../text-queue.js'

/** Options of `a2aBridgeAgent`. */
export interface A2aBridgeOptions {
  /** The remote agent: its base URL (its card at `/.well-known/agent-card.json`) or its card's URL (`….json`). */
  url: string
  /** The Parlance agent name. @default 'a2a' */
  name?: string
  description?: string
  /** Sent with every request (e.g. `{ authorization: 'Bearer …' }`). */
  headers?: Record<string, string>
}

const RISKS: readonly RiskLevel[] = ['low', 'medium', 'high', 'critical']

/**
 * An agent that is a remote A2A agent: each Parlance run is one A2A task of the remote (the message streamed with
 * `SendStreamingMessage`), in a remote context of its own per session (`pl-` + a hash of the bridge's name, URL
 * and the session id, stable across restarts). The remote's streamed artifacts become streamed text, its `state`
 * artifact the session state, its status messages statuses; an `input-required` status becomes `ctx.approve`
 * (answered with `{approved, feedback}` as the task's next message); `failed` fails the run; a cancelled run
 * cancels the task. From a Parlance remote, the `metadata.parlance` of its updates also carries its statuses
 * and server tool calls, relayed as such (`ctx.status`, `ctx.externalTool`).
 */
export function a2aBridgeAgent(options: A2aBridgeOptions): AgentDefinition {
  const name = options.name ?? 'a2a'
  let url: URL
  try {
    url = new URL(options.url)
  } catch {
    throw new ParlanceError(
      'invalid_message',
      `the A2A agent URL "${options.url}" is not a valid URL (expected e.g. http://127.0.0.1:9000 or …/agent-card.json)`,
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ParlanceError('invalid_message', `the A2A agent URL "${options.url}" must be http: or https:, not ${url.protocol}`)
  let client: Promise<Client> | null = null
  const connect = () => {
    client ??= createClient(url.toString(), options.headers ?? {}).catch((err: unknown) => {
      client = null // the next run tries again
      throw new ParlanceError('unavailable', `cannot reach the A2A agent at ${url.toString()}: ${(err as Error).message}`, { url: url.toString() })
    })
    return client
  }
  const agent = defineAgent({
    name,
    description: options.description ?? `A2A agent at ${url.toString()}`,
    async run(ctx) {
      const remote = await connect()
      const contextId = `pl-${createHash('sha256').update(`${name}\n${url.toString()}\n${ctx.sessionId}`).digest('base64url').slice(0, 32)}`
      const task: { id: string } = { id: '' }
      const onAbort = () => {
        if (task.id) void remote.cancelTask({ tenant: '', id: task.id, metadata: undefined }).catch(() => {})
      }
      ctx.signal.addEventListener('abort', onAbort, { once: true })
      try {
        let message = userMessage(contextId, '', [textPart(ctx.input.text)])
        for (;;) {
          const asked = await relay(
            ctx,
            remote.sendMessageStream({ tenant: '', message, configuration: undefined, metadata: undefined }, { signal: ctx.signal }),
            task,
          )
          if (!asked) return
          message = userMessage(contextId, task.id, [dataPart(await answer(ctx, asked))])
        }
      } finally {
        ctx.signal.removeEventListener('abort', onAbort)
      }
    },
  })
  // A client tool the remote asks for (input-required with clientTool) goes to the Parlance client, whatever its name.
  return Object.freeze({ ...agent, tools: openTools({}, 'A tool the remote A2A agent asked the client to run') })
}

/** What an `input-required` task asks: an approval, or a client tool run. */
type Asked = { approval: Parameters<RunContext['approve']>[0] } | { tool: string; args: Record<string, unknown> }

/** Asks the Parlance client (an approval, a client tool) and says its answer as the task's next message's data. */
async function answer(ctx: RunContext, asked: Asked): Promise<Json> {
  if ('approval' in asked) {
    const a = await ctx.approve(asked.approval)
    return { approved: a.approved, ...(a.feedback ? { feedback: a.feedback } : {}) }
  }
  try {
    return { result: await ctx.callTool(asked.tool, asked.args) }
  } catch (err) {
    if (ctx.signal.aborted) throw err
    return { error: (err as Error).message }
  }
}

async function createClient(url: string, headers: Record<string, string>): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const h = new Headers(init?.headers)
    for (const [k, v] of Object.entries(headers)) h.set(k, v)
    // The run's trace context (traceparent/tracestate) goes to the remote agent, under the registered propagator.
    injectTraceHeaders(h)
    return fetch(input, { ...init, headers: h })
  }
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  )
  return url.endsWith('.json') ? factory.createFromUrl(url, '') : factory.createFromUrl(url)
}

/**
 * Relays one remote stream into the run; resolves with the approval the remote asks for (`input-required`),
 * or null once the task completed. Throws when it failed or was cancelled.
 */
async function relay(ctx: RunContext, stream: AsyncGenerator<StreamResponse>, task: { id: string }): Promise<Asked | null> {
  let text: { id: string; queue: TextQueue; said: Promise<string> } | null = null
  const endText = async () => {
    if (!text) return
    text.queue.end()
    await text.said
    text = null
  }
  const tools = new Map<string, { resolve: (v: Json) => void; reject: (e: Error) => void; done: Promise<Json> }>()
  const plans = new Map<string, { plan: Plan; ids: string[] }>()
  const steps = new Map<string, { finish: () => void; done: Promise<unknown> }>()
  try {
    for await (const ev of stream) {
      const p = ev.payload
      if (!p) continue
      if (p.$case === 'task') task.id = p.value.id
      else if (p.$case === 'artifactUpdate') {
        const a = p.value.artifact
        if (!a) continue
        if (a.name === 'state') {
          const d = a.parts[0]?.content
          if (d?.$case === 'data') await ctx.setState(d.value as Json)
          continue
        }
        if (text && (text.id !== a.artifactId || !p.value.append)) await endText()
        const chunk = a.parts.map((x) => (x.content?.$case === 'text' ? x.content.value : '')).join('')
        if (!text) {
          const queue = new TextQueue()
          text = { id: a.artifactId, queue, said: ctx.say(queue) }
        }
        if (chunk) text.queue.push(chunk)
        if (p.value.lastChunk) await endText()
      } else if (p.$case === 'statusUpdate') {
        const st = p.value.status
        if (!st) continue
        const said = st.message ? textOf(st.message) : ''
        const meta = (p.value.metadata?.parlance ?? null) as RemoteMeta | null
        if (st.state === TaskState.TASK_STATE_WORKING) {
          if (meta?.status) await ctx.status(meta.status as Parameters<RunContext['status']>[0], said && said !== meta.status ? said : undefined)
          else if (meta?.toolCall) {
            let resolve!: (v: Json) => void
            let reject!: (e: Error) => void
            const outcome = new Promise<Json>((res, rej) => ((resolve = res), (reject = rej)))
            tools.set(meta.toolCall.id, {
              resolve,
              reject,
              done: ctx.externalTool(meta.toolCall.name, meta.toolCall.args, outcome).catch(() => null),
            })
          } else if (meta?.toolResult) tools.get(meta.toolResult.id)?.resolve(meta.toolResult.result)
          else if (meta?.toolError) tools.get(meta.toolError.id)?.reject(new Error(meta.toolError.error))
          else if (meta?.plan)
            plans.set(meta.plan.id, { plan: await ctx.plan(meta.plan.tasks.map((t) => t.title)), ids: meta.plan.tasks.map((t) => t.id) })
          else if (meta?.progress) {
            const { percent, message, planId, taskId } = meta.progress
            const pl = planId ? plans.get(planId) : undefined
            const task = pl && taskId ? pl.plan.tasks[pl.ids.indexOf(taskId)] : undefined
            await ctx.progress(percent, { ...(pl ? { plan: pl.plan } : {}), ...(task ? { taskId: task.id } : {}), ...(message ? { message } : {}) })
          } else if (meta?.step?.phase === 'started') {
            let finish!: () => void
            const finished = new Promise<void>((r) => (finish = r))
            steps.set(meta.step.id, { finish, done: ctx.step(meta.step.name, () => finished).catch(() => {}) })
          } else if (meta?.step?.phase === 'finished') {
            const s = steps.get(meta.step.id)
            steps.delete(meta.step.id)
            s?.finish()
            await s?.done
          }
          continue
        }
        await endText()
        await Promise.all([...tools.values()].map((t) => t.done))
        if (st.state === TaskState.TASK_STATE_COMPLETED) return null
        if (st.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
          const q = (dataOfParts(st.message?.parts ?? []) ?? {}) as {
            clientTool?: boolean
            tool?: string
            args?: Record<string, unknown>
            risk?: string
            reasoning?: string
            description?: string
          }
          if (q.clientTool && q.tool) return { tool: q.tool, args: q.args ?? {} }
          return {
            approval: {
              tool: q.tool ?? 'input',
              args: q.args ?? {},
              risk: RISKS.includes(q.risk as RiskLevel) ? (q.risk as RiskLevel) : 'medium',
              reasoning: q.reasoning ?? said,
              ...(q.description ? { description: q.description } : {}),
            },
          }
        }
        if (st.state === TaskState.TASK_STATE_CANCELED) throw new ParlanceError('cancelled', said || 'the remote task was cancelled')
        if (st.state === TaskState.TASK_STATE_FAILED || st.state === TaskState.TASK_STATE_REJECTED) {
          // A Parlance remote says "<code>: <message>"; a code that means the same here is kept.
          throw new ParlanceError(bridgedErrorCode(/^([a-z_]+): /.exec(said)?.[1]), `the remote A2A agent failed: ${said || TaskState[st.state]}`)
        }
      }
    }
  } finally {
    await endText().catch(() => {})
    for (const t of tools.values()) t.reject(new Error('the remote stream ended'))
    for (const s of steps.values()) s.finish()
  }
  if (ctx.signal.aborted) throw new ParlanceError('cancelled', 'cancelled')
  throw new ParlanceError('execution_error', 'the remote A2A stream ended before the task did')
}

/** What `metadata.parlance` of a Parlance remote's `working` updates says (src/dialects/a2a/mapping.ts, ParlanceMeta). */
interface RemoteMeta {
  status?: string
  toolCall?: { id: string; name: string; args: Record<string, unknown> }
  toolResult?: { id: string; result: Json }
  toolError?: { id: string; error: string }
  plan?: { id: string; tasks: Array<{ id: string; title: string }> }
  progress?: { percent: number; message?: string; planId?: string; taskId?: string }
  step?: { id: string; name: string; phase: 'started' | 'finished' }
}

const dataOfParts = (parts: readonly Part[]): unknown => parts.find((x) => x.content?.$case === 'data')?.content?.value
const userMessage = (contextId: string, taskId: string, parts: Part[]): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId,
  role: Role.ROLE_USER,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
})
