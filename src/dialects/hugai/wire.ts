import { Type, type TSchema } from '@sinclair/typebox'

/**
 * Params of each HugAI v2 method (seed §3), compiled once. Objects are open (extra fields pass: "examples may
 * be extended as the protocol evolves"); required fields, types, enums and lengths are checked.
 */
const Str = (max = 256) => Type.String({ minLength: 1, maxLength: max })
const Obj = Type.Record(Type.String(), Type.Unknown())
/** ISO 8601 date-time (date, `T`, hours and minutes at least); `Date.parse` must accept it too (decode checks). */
const IsoTime = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?$', maxLength: 64 })
const Governance = Type.Union([Type.Literal('autonomous'), Type.Literal('supervised'), Type.Literal('strict')])
const Priority = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('critical')])
/** Extension (issue 19): what a message does while a run of its session is active. */
const OnBusy = Type.Union([Type.Literal('interrupt'), Type.Literal('enqueue'), Type.Literal('reject'), Type.Literal('rollback')])

export const params = {
  initialize: Type.Object({
    processId: Type.Integer(),
    agentId: Str(),
    capabilities: Obj,
    governanceLevel: Governance,
    clientInfo: Type.Optional(
      Type.Object({ name: Type.Optional(Type.String({ maxLength: 256 })), version: Type.Optional(Type.String({ maxLength: 64 })) }),
    ),
    workspaceFolders: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 256 })),
  }),
  'agent/register': Type.Object({
    agentId: Str(),
    capabilities: Obj,
    governanceLevel: Governance,
    version: Type.Optional(Type.String({ maxLength: 64 })),
    author: Type.Optional(Type.String({ maxLength: 256 })),
    description: Type.Optional(Type.String({ maxLength: 4096 })),
    dependencies: Type.Optional(Type.Array(Str(), { maxItems: 256 })),
  }),
  /** Extension: the registry. */
  'agent/list': Type.Object({}),
  /** Extensions: `sessionId` continues a conversation (a built-in agent's session), `onBusy` if its run is active. */
  'agent/request': Type.Object({
    sourceAgent: Str(),
    targetAgent: Str(),
    task: Str(10_000),
    context: Type.Optional(Obj),
    priority: Type.Optional(Priority),
    sessionId: Type.Optional(Str()),
    onBusy: Type.Optional(OnBusy),
  }),
  /** Extension: cancels a task this connection requested (queued, running or sent to a remote agent). */
  'task/cancel': Type.Object({ taskId: Str(), reason: Type.Optional(Type.String({ maxLength: 1024 })) }),
  /** Extension: answers the last user turn (or `messageId`) of a built-in agent's session again, as a new task. */
  'task/regenerate': Type.Object({
    sessionId: Str(),
    sourceAgent: Type.Optional(Str()),
    targetAgent: Type.Optional(Str()),
    messageId: Type.Optional(Str()),
    priority: Type.Optional(Priority),
    onBusy: Type.Optional(OnBusy),
  }),
  event: Type.Object({ event: Str(), data: Type.Optional(Obj) }),
  'governance/approval': Type.Object({
    checkpoint: Str(),
    artifact: Obj,
    approver: Str(),
    decision: Type.Union([Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('needs_revision')]),
    feedback: Type.Optional(Type.String({ maxLength: 10_000 })),
  }),
  'tool/integration': Type.Object({ tool: Str(), action: Str(), data: Type.Optional(Obj), callback: Type.Optional(Type.String({ maxLength: 256 })) }),
  'audit/log': Type.Object({
    action: Str(),
    actor: Str(),
    target: Type.Optional(Type.String({ maxLength: 1024 })),
    details: Type.Optional(Obj),
    timestamp: IsoTime,
  }),
  /** Extension: reads the audit log back, filtered. */
  'audit/query': Type.Object({
    actor: Type.Optional(Type.String({ maxLength: 256 })),
    action: Type.Optional(Type.String({ maxLength: 256 })),
    from: Type.Optional(IsoTime),
    to: Type.Optional(IsoTime),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  }),
} satisfies Record<string, TSchema>

/** A method the hub serves. */
export type Method = keyof typeof params
/** Every method, in the order `initialize` lists them. */
export const METHODS = Object.keys(params) as Method[]
/** Methods that are ours, beyond the seed (documented as extensions). */
export const EXTENSION_METHODS: readonly Method[] = ['agent/list', 'task/cancel', 'task/regenerate', 'audit/query']
/** Methods whose params may be left out (checked as `{}`). */
export const OPTIONAL_PARAMS: ReadonlySet<Method> = new Set(['agent/list', 'audit/query'])
/** Fields (per method) that must also be a real date, not only look like one. */
export const TIME_FIELDS: Partial<Record<Method, readonly string[]>> = { 'audit/log': ['timestamp'], 'audit/query': ['from', 'to'] }

/** A notification the hub sends: the seed's `event` (§3.5) — task-progress, checkpoint, tool-result, history-rewound… */
export interface HugaiNotification {
  method: string
  params: { event?: string; data?: Record<string, unknown>; [key: string]: unknown }
}
