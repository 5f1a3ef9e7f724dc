import { Type, type TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

/** Params of each HugAI v2 method (seed §3), compiled once. Open objects: extra fields pass. */
const Str = (max = 256) => Type.String({ minLength: 1, maxLength: max })
const Obj = Type.Record(Type.String(), Type.Unknown())
const Governance = Type.Union([Type.Literal('autonomous'), Type.Literal('supervised'), Type.Literal('strict')])
const Priority = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('critical')])

export const params = {
  initialize: Type.Object({
    processId: Type.Integer(),
    agentId: Str(),
    capabilities: Obj,
    governanceLevel: Governance,
    clientInfo: Type.Optional(Type.Object({ name: Type.Optional(Type.String()), version: Type.Optional(Type.String()) })),
    workspaceFolders: Type.Optional(Type.Array(Type.String())),
  }),
  'agent/register': Type.Object({
    agentId: Str(),
    capabilities: Obj,
    governanceLevel: Governance,
    version: Type.Optional(Type.String()),
    author: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    dependencies: Type.Optional(Type.Array(Str())),
  }),
  'agent/list': Type.Union([Type.Undefined(), Type.Object({})]),
  'agent/request': Type.Object({ sourceAgent: Str(), targetAgent: Str(), task: Str(10_000), context: Type.Optional(Obj), priority: Type.Optional(Priority) }),
  event: Type.Object({ event: Str(), data: Type.Optional(Obj) }),
  'governance/approval': Type.Object({
    checkpoint: Str(),
    artifact: Obj,
    approver: Str(),
    decision: Type.Union([Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('needs_revision')]),
    feedback: Type.Optional(Type.String({ maxLength: 10_000 })),
  }),
  'tool/integration': Type.Object({ tool: Str(), action: Str(), data: Type.Optional(Obj), callback: Type.Optional(Type.String()) }),
  'audit/log': Type.Object({ action: Str(), actor: Str(), target: Type.Optional(Type.String()), details: Type.Optional(Obj), timestamp: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}' }) }),
  'audit/query': Type.Union([
    Type.Undefined(),
    Type.Object({ actor: Type.Optional(Type.String()), action: Type.Optional(Type.String()), from: Type.Optional(Type.String()), to: Type.Optional(Type.String()), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })) }),
  ]),
} satisfies Record<string, TSchema>

export type Method = keyof typeof params
export const METHODS = Object.keys(params) as Method[]
export const checkers = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, TypeCompiler.Compile(v)])) as unknown as Record<Method, ReturnType<typeof TypeCompiler.Compile>>
