/**
 * Pure mapping between Parlance's events and commands and the A2A SDK's shapes (agent cards, parts, task status and
 * artifact updates, the answers a client sends in a message). Not a `Codec`: the SDK's request handler decodes
 * and encodes the JSON-RPC, and the executor and task store call these.
 */
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3'
import {
  Role,
  TaskState,
  type AgentCard,
  type Message,
  type Part,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatusUpdateEvent,
} from '@a2a-js/sdk'
import { ON_BUSY, onBusyOf, type Json, type OnBusy, type StoredEvent } from '../../core/index.js'
import type { ApprovalAnswer, TaskLink } from './wire.js'

/** What an agent card is built from. */
export interface CardInput {
  name: string
  description: string
  /** Tool names (each a skill besides the agent's own). */
  tools: string[]
  /** The JSON-RPC URL of this agent (`<base>/a2a/<agent>`). */
  url: string
  /** Bearer auth is on. */
  auth: boolean
}

/** The agent card: one JSON-RPC interface (A2A 1.0), streaming, a skill for the agent and one per tool. */
export function agentCard(c: CardInput): AgentCard {
  const skill = (id: string, description: string) => ({
    id,
    name: id,
    description,
    tags: [c.name],
    examples: [],
    inputModes: ['text/plain'],
    outputModes: ['text/plain', 'application/json'],
    securityRequirements: [],
  })
  return {
    name: c.name,
    description: c.description,
    // 1.0, and the same URL for 0.3 clients (the 0.3 method names, answered through the SDK's compat layer).
    supportedInterfaces: duplicateInterfacesForLegacy([{ url: c.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }], ['JSONRPC']),
    provider: undefined,
    version: '0.1.0',
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: c.auth
      ? { bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'Parlance token', scheme: 'Bearer', bearerFormat: '' } } } }
      : {},
    securityRequirements: c.auth ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [skill(c.name, c.description), ...c.tools.map((t) => skill(t, `The ${t} tool of ${c.name}`))],
    signatures: [],
  }
}

/**
 * The same agent's card in the A2A 0.3 shape, served to clients that ask without `A2A-Version: 1.0` (0.3 clients
 * send none): card-level `url`, `protocolVersion` and `preferredTransport`, skills with plain fields.
 */
export function legacyAgentCard(c: CardInput): Record<string, Json> {
  const skill = (id: string, description: string) => ({
    id,
    name: id,
    description,
    tags: [c.name],
    inputModes: ['text/plain'],
    outputModes: ['text/plain', 'application/json'],
  })
  return {
    protocolVersion: '0.3.0',
    name: c.name,
    description: c.description,
    url: c.url,
    preferredTransport: 'JSONRPC',
    version: '0.1.0',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [skill(c.name, c.description), ...c.tools.map((t) => skill(t, `The ${t} tool of ${c.name}`))],
    ...(c.auth ? { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, security: [{ bearer: [] }] } : {}),
  }
}

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
})
export const dataPart = (value: Json): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
})

/** The A2A methods that send a message (1.0 and 0.3 names): their `params.message.metadata.onBusy` is checked. */
export const SEND_METHODS: ReadonlySet<string> = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream'])

/**
 * The `onBusy` policy a message asks for in `metadata.onBusy` (what it does if its context's task is still
 * working): undefined when absent, an error naming the field when it is not one of the four.
 */
export function onBusyOfMessage(metadata: unknown): { ok: true; onBusy: OnBusy | undefined } | { ok: false; field: string; message: string } {
  const raw = metadata !== null && typeof metadata === 'object' ? (metadata as Record<string, unknown>).onBusy : undefined
  if (raw === undefined) return { ok: true, onBusy: undefined }
  const onBusy = onBusyOf(raw)
  if (onBusy) return { ok: true, onBusy }
  return {
    ok: false,
    field: 'params.message.metadata.onBusy',
    message: `Invalid params: params.message.metadata.onBusy must be one of ${ON_BUSY.join(', ')}`,
  }
}

/** The text of a message: its text parts, joined. */
export function textOf(m: Message): string {
  return m.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('')
}

/** An answer to a waiting approval: a data part `{approved}`, else the text ("yes"/"approve"/"ok" approves). */
export function approvalAnswerOf(m: Message): ApprovalAnswer {
  for (const p of m.parts) {
    const v: unknown = p.content?.$case === 'data' ? p.content.value : undefined
    if (v && typeof v === 'object' && typeof (v as { approved?: unknown }).approved === 'boolean') {
      const { approved, feedback } = v as { approved: boolean; feedback?: unknown }
      return { approved, ...(typeof feedback === 'string' && feedback ? { feedback } : {}) }
    }
  }
  const text = textOf(m).trim()
  const approved = /^(y|yes|approve|approved|ok|okay)\b/i.test(text)
  return { approved, ...(text && !approved ? { feedback: text } : {}) }
}

const agentMessage = (taskId: string, contextId: string, id: string, parts: Part[]): Message => ({
  messageId: id,
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
})

/** A new task for a run: submitted, linked to its session. */
export function newTask(taskId: string, contextId: string, user: Message, link: TaskLink): Task {
  return {
    id: taskId,
    contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [user],
    metadata: { parlance: link },
  }
}

/** A status update; `text` (and `data`) become the status message; `meta` goes under `metadata.parlance`. */
export function status(
  taskId: string,
  contextId: string,
  state: TaskState,
  text?: string,
  data?: Json,
  messageId?: string,
  meta?: ParlanceMeta,
): TaskStatusUpdateEvent {
  const parts = [...(text ? [textPart(text)] : []), ...(data !== undefined ? [dataPart(data)] : [])]
  return {
    taskId,
    contextId,
    status: {
      state,
      message: parts.length ? agentMessage(taskId, contextId, messageId ?? `${taskId}-status-${state}`, parts) : undefined,
      timestamp: new Date().toISOString(),
    },
    metadata: meta ? { parlance: meta } : undefined,
  }
}

/** The status of a task whose message waits in its context's queue behind the working task. */
export function queuedStatus(taskId: string, contextId: string): TaskStatusUpdateEvent {
  return status(taskId, contextId, TaskState.TASK_STATE_SUBMITTED, 'queued: waits for the working task of this context', { queued: true })
}

/**
 * What a `working` status update says besides its text, under `metadata.parlance` (any A2A client may ignore
 * it; Parlance's own A2A bridge reads it to relay the run losslessly): the run's status, a server tool's call
 * and its outcome, a plan, its progress, a step's start and end.
 */
export type ParlanceMeta =
  | { status: string }
  | { toolCall: { id: string; name: string; args: Json } }
  | { toolResult: { id: string; name: string; result: Json } }
  | { toolError: { id: string; name: string; error: string } }
  | { plan: { id: string; tasks: Array<{ id: string; title: string }> } }
  | { progress: { percent: number; message?: string; planId?: string; taskId?: string } }
  | { step: { id: string; name: string; phase: 'started' | 'finished' } }

/** The `working` update of a run event that has one beyond text and state (status, a server tool), else null. */
export function workingUpdate(taskId: string, contextId: string, e: StoredEvent): TaskStatusUpdateEvent | null {
  const working = (text: string, meta: ParlanceMeta) =>
    status(taskId, contextId, TaskState.TASK_STATE_WORKING, text, undefined, `${taskId}-${e.seq}`, meta)
  switch (e.type) {
    case 'status':
      return working(e.message ?? e.status, { status: e.status })
    case 'tool.call':
      return e.target === 'client'
        ? null
        : working(`running ${e.toolName}`, { toolCall: { id: e.toolCallId, name: e.toolName, args: e.args as Json } })
    case 'tool.result':
      return working(`${e.toolName} done`, { toolResult: { id: e.toolCallId, name: e.toolName, result: e.result } })
    case 'tool.error':
      return working(`${e.toolName} failed: ${e.error}`, { toolError: { id: e.toolCallId, name: e.toolName, error: e.error } })
    case 'plan':
      return working(`Plan: ${e.tasks.map((t) => t.title).join(' → ')}`, {
        plan: { id: e.planId, tasks: e.tasks.map((t) => ({ id: t.id, title: t.title })) },
      })
    case 'progress':
      return working(e.message ?? `${e.percent}%`, {
        progress: {
          percent: e.percent,
          ...(e.message ? { message: e.message } : {}),
          ...(e.planId ? { planId: e.planId } : {}),
          ...(e.taskId ? { taskId: e.taskId } : {}),
        },
      })
    case 'step.started':
    case 'step.finished':
      return working(e.name, { step: { id: e.stepId, name: e.name, phase: e.type === 'step.started' ? 'started' : 'finished' } })
    default:
      return null
  }
}

/** A chunk of the run's streamed text: one artifact per text message, appended chunk by chunk. */
export function textChunk(
  taskId: string,
  contextId: string,
  artifactId: string,
  text: string,
  append: boolean,
  lastChunk: boolean,
): TaskArtifactUpdateEvent {
  return {
    taskId,
    contextId,
    artifact: { artifactId, name: 'response', description: '', parts: [textPart(text)], metadata: undefined, extensions: [] },
    append,
    lastChunk,
    metadata: undefined,
  }
}

/** The session's shared state, whole, as the `state` artifact (replaced at each change). */
export function stateArtifact(taskId: string, contextId: string, state: Json): TaskArtifactUpdateEvent {
  return {
    taskId,
    contextId,
    artifact: {
      artifactId: 'state',
      name: 'state',
      description: 'The shared state of the session',
      parts: [dataPart(state)],
      metadata: undefined,
      extensions: [],
    },
    append: false,
    lastChunk: true,
    metadata: undefined,
  }
}

/** What a client tool call says in the `input-required` status: the call, and `clientTool: true` in its data. */
export function clientToolQuestion(e: Extract<StoredEvent, { type: 'tool.call' }>): { text: string; data: Json } {
  return {
    text: `Run the client tool ${e.toolName}(${JSON.stringify(e.args)}) and answer with {"result": …} or {"error": "…"} in a data part.`,
    data: { clientTool: true, toolCallId: e.toolCallId, tool: e.toolName, args: e.args as Json },
  }
}

/** The answer to a client tool: a data part `{result}` or `{error}`; else the message's text is the result. */
export function toolAnswerOf(m: Message): { result: Json } | { error: string } {
  for (const p of m.parts) {
    const v: unknown = p.content?.$case === 'data' ? p.content.value : undefined
    if (v && typeof v === 'object') {
      if (typeof (v as { error?: unknown }).error === 'string') return { error: (v as { error: string }).error }
      if ('result' in v) return { result: (v as { result?: Json }).result ?? null }
    }
  }
  return { result: textOf(m) }
}

/** What an approval request says in the `input-required` status: the question, and its data. */
export function approvalQuestion(e: Extract<StoredEvent, { type: 'approval.requested' }>): { text: string; data: Json } {
  return {
    text: `Approve ${e.toolName}(${JSON.stringify(e.args)})?${e.reasoning ? ` ${e.reasoning}` : ''} Answer with {"approved": true|false} in a data part, or "yes"/"no".`,
    data: {
      approvalId: e.approvalId,
      tool: e.toolName,
      args: e.args as Json,
      ...(e.risk ? { risk: e.risk } : {}),
      ...(e.reasoning ? { reasoning: e.reasoning } : {}),
      ...(e.toolDescription ? { description: e.toolDescription } : {}),
    },
  }
}
