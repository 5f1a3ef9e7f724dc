import type { Json } from '../core/index.js'

/**
 * The Standard Schema interface (https://standardschema.dev), copied as its authors intend so that Parlance
 * depends on no schema library: zod 4, valibot, ArkType and others implement it.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>
}

// eslint-disable-next-line @typescript-eslint/no-namespace -- the shape the Standard Schema spec defines
export declare namespace StandardSchemaV1 {
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>
    readonly types?: Types<Input, Output> | undefined
    /** Standard JSON Schema (https://standardschema.dev/json-schema), where the library offers it (zod >= 4.2). */
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> } | undefined
  }
  export type Result<Output> = SuccessResult<Output> | FailureResult
  export interface SuccessResult<Output> {
    readonly value: Output
    readonly issues?: undefined
  }
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>
  }
  export interface Issue {
    readonly message: string
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined
  }
  export interface PathSegment {
    readonly key: PropertyKey
  }
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input
    readonly output: Output
  }
  export type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['input']
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['output']
}

/** Is `value` a Standard Schema (an object or function with a `~standard` of version 1 and a `validate`)? */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  const props = (value as { '~standard'?: unknown })['~standard']
  return typeof props === 'object' && props !== null && typeof (props as StandardSchemaV1.Props).validate === 'function'
}

const EMPTY_OBJECT: Json = { type: 'object', properties: {} }

/**
 * The JSON Schema a tool advertises (OpenAI function parameters, AG-UI tools, MCP tools/list, `GET /`): its
 * explicit `parameters`; else its `inputSchema` when that is a JSON Schema, or the JSON Schema its Standard
 * Schema produces (Standard JSON Schema: zod >= 4.2 and others); else an empty object schema. Throws when a
 * Standard Schema cannot produce one and the tool gives no `parameters`, naming the tool.
 */
export function toolJsonSchema(name: string, tool: { readonly parameters?: Json; readonly inputSchema?: unknown }): Json {
  if (tool.parameters !== undefined) return tool.parameters
  const schema = tool.inputSchema
  if (schema === undefined) return EMPTY_OBJECT
  if (!isStandardSchema(schema)) return schema as Json
  const converter = schema['~standard'].jsonSchema
  if (!converter) {
    throw new TypeError(
      `tool "${name}": its ${schema['~standard'].vendor} inputSchema cannot produce a JSON Schema; give the tool an explicit \`parameters\` JSON Schema`,
    )
  }
  const out = { ...converter.input({ target: 'draft-07' }) }
  delete out.$schema
  return out as Json
}

/** The error a tool's arguments get when its Standard Schema rejects them: each failing path and its message. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError'
  constructor(
    readonly toolName: string,
    readonly issues: ReadonlyArray<StandardSchemaV1.Issue>,
  ) {
    super(`invalid arguments for tool ${toolName}: ${issues.map(describeIssue).join('; ')}`)
  }
}

function describeIssue(issue: StandardSchemaV1.Issue): string {
  const path = (issue.path ?? []).map((p) => String(typeof p === 'object' && p !== null ? p.key : p)).join('.')
  return path ? `${path}: ${issue.message}` : issue.message
}

/**
 * Validates a tool's arguments against its Standard Schema `inputSchema` and returns the parsed value (what
 * `execute` receives); the arguments unchanged when it has none (JSON Schema input is not validated here).
 * Throws `ToolInputError` naming the failing paths.
 */
export async function parseToolInput(name: string, tool: { readonly inputSchema?: unknown }, args: Record<string, unknown>): Promise<unknown> {
  const schema = tool.inputSchema
  if (!isStandardSchema(schema)) return args
  const result = await schema['~standard'].validate(args)
  if (result.issues) throw new ToolInputError(name, result.issues)
  return result.value
}

/** A tool result as the event log stores it: any JSON-serializable value, `undefined` as null. */
export function toJsonResult(value: unknown): Json {
  if (value === undefined) return null
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  return JSON.parse(JSON.stringify(value) ?? 'null') as Json
}
