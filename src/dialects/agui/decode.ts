import { checkJsonShape, ON_BUSY, onBusyOf, parseJson, ParlanceError, type Limits, type OnBusy, stringOf } from '../../core/index.js'
import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { Message, MessageByRole, RunAgentInput, type AguiRunInput } from './wire.js'

/** The compiled RunAgentInput schema (also used by bench/agui-validate.ts). */
export const runInputChecker = TypeCompiler.Compile(RunAgentInput)
const messageChecker = TypeCompiler.Compile(Message)
/** Compiled per-role message schemas (used only to explain a rejected message). */
const roleCheckers = {} as Record<keyof typeof MessageByRole, TypeCheck<TSchema>>
for (const role of Object.keys(MessageByRole) as Array<keyof typeof MessageByRole>) roleCheckers[role] = TypeCompiler.Compile(MessageByRole[role])

/** A decoded RunAgentInput, or the error naming the first bad field (`messages[2].role`). */
export type DecodedInput = { ok: true; input: AguiRunInput } | { ok: false; error: ParlanceError }

/** `/messages/2/role` → `messages[2].role`: the way a developer writes the path. */
export function fieldOf(pointer: string): string {
  let out = ''
  for (const part of pointer.split('/').slice(1)) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part
  return out
}

/**
 * Decodes a `POST /agui` body into a RunAgentInput. Pure; never throws. The body size is checked by the
 * transport before buffering (413), so this checks JSON, forbidden keys and depth, then the schema.
 */
export function decodeRunInput(body: string, limits: Pick<Limits, 'maxJsonDepth'>): DecodedInput {
  const parsed = parseJson(body, 'body')
  if (!parsed.ok) return parsed
  const v = parsed.value
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail('RunAgentInput must be a JSON object', '')
  const shape = checkJsonShape(v, limits.maxJsonDepth)
  if (shape)
    return {
      ok: false,
      error: new ParlanceError('invalid_message', shape.message, { ...shape.details, field: fieldOf(stringOf(shape.details?.path)) }),
    }
  if (!runInputChecker.Check(v)) return fail(...explain(v as Record<string, unknown>))
  const onBusy = (v.forwardedProps as { onBusy?: unknown } | null | undefined)?.onBusy
  if (onBusy !== undefined && onBusy !== null && onBusyOf(onBusy) === undefined)
    return fail(`forwardedProps.onBusy must be one of ${ON_BUSY.join(', ')}`, 'forwardedProps.onBusy')
  return { ok: true, input: v }
}

/** The `onBusy` policy a RunAgentInput asks for (`forwardedProps.onBusy`, checked by `decodeRunInput`), if any. */
export function onBusyOfInput(input: AguiRunInput): OnBusy | undefined {
  const props = input.forwardedProps
  return typeof props === 'object' && props !== null && !Array.isArray(props) ? onBusyOf((props as { onBusy?: unknown }).onBusy) : undefined
}

const ROLES = ['user', 'assistant', 'tool', 'system', 'developer', 'reasoning', 'activity']

/** The first error, precise for messages: a union's errors name only the union, so the common fields are checked here. */
function explain(v: Record<string, unknown>): [string, string] {
  if (Array.isArray(v.messages)) {
    for (let i = 0; i < v.messages.length; i++) {
      const m: unknown = v.messages[i]
      if (!messageChecker.Check(m)) return explainMessage(m, `messages[${i}]`)
    }
  }
  return described(runInputChecker.Errors(v).First(), '')
}

/** A TypeBox error as [message, field]; a union of literals is spelled out ("must be one of resolved, cancelled"). */
function described(first: { path: string; message: string; schema: unknown } | undefined, at: string): [string, string] {
  const rel = fieldOf(first?.path ?? '')
  const field = at && rel ? `${at}${rel.startsWith('[') ? '' : '.'}${rel}` : at || rel
  const anyOf = (first?.schema as { anyOf?: Array<{ const?: unknown }> } | undefined)?.anyOf
  if (anyOf?.length && anyOf.every((s) => typeof s.const === 'string'))
    return [`${field} must be one of ${anyOf.map((s) => String(s.const)).join(', ')}`, field]
  return [`${field || 'RunAgentInput'}: ${first?.message.toLowerCase() ?? 'is invalid'}`, field]
}

function explainMessage(m: unknown, at: string): [string, string] {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return [`${at} must be an object`, at]
  const r = m as Record<string, unknown>
  if (!ROLES.includes(String(r.role))) return [`${at}.role must be one of ${ROLES.join(', ')}`, `${at}.role`]
  if (typeof r.id !== 'string' || r.id.length === 0 || r.id.length > 256) return [`${at}.id must be a string of 1–256 characters`, `${at}.id`]
  if (r.role === 'tool' && typeof r.toolCallId !== 'string') return [`${at}.toolCallId must be a string`, `${at}.toolCallId`]
  const partsAllowed = r.role === 'user' || r.role === 'tool'
  if (r.role !== 'assistant' && r.role !== 'activity' && typeof r.content !== 'string' && !(partsAllowed && Array.isArray(r.content))) {
    return [`${at}.content must be a string${partsAllowed ? ' or an array of content parts' : ''}`, `${at}.content`]
  }
  return described(roleCheckers[r.role as keyof typeof roleCheckers].Errors(m).First(), at)
}

function fail(message: string, field: string): { ok: false; error: ParlanceError } {
  return { ok: false, error: new ParlanceError('invalid_message', message, field ? { field } : {}) }
}
