import { checkJsonShape, checkMessageLength, parseJson, ParlanceError, stringOf, type DecodeLimits, type Decoded } from '../../core/index.js'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { Static, TSchema } from '@sinclair/typebox'
import { AssistantSearch, HistoryRequest, RunRequest, ThreadCreate, ThreadSearch, type MessageDict } from './wire.js'

/** `/input/messages/0/content` → `input.messages[0].content`, as the error names a field. */
const field = (path: string) =>
  path
    .replace(/^\//, '')
    .replace(/\/(\d+)/g, '[$1]')
    .replace(/\//g, '.')

const refuse = (f: string, message: string): { ok: false; error: ParlanceError } => ({
  ok: false,
  error: new ParlanceError('invalid_message', `${f}: ${message}`, { field: f }),
})

export function decoder<T extends TSchema>(
  schema: T,
  check: (v: Static<T>, limits: DecodeLimits) => Decoded<Static<T>> = (v) => ({ ok: true, value: v }),
) {
  const checker = TypeCompiler.Compile(schema)
  /** Pure; never throws; an error names the field at fault (`details.field`). An empty body is `{}`. */
  return (body: string, limits: DecodeLimits): Decoded<Static<T>> => {
    const parsed = body.trim() === '' ? { ok: true as const, value: {} } : parseJson(body, 'body')
    if (!parsed.ok) return parsed
    const v = parsed.value
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      return { ok: false, error: new ParlanceError('invalid_message', 'the body must be a JSON object') }
    const shape = checkJsonShape(v, limits.maxJsonDepth)
    if (shape) return { ok: false, error: new ParlanceError(shape.code, shape.message, { field: field(stringOf(shape.details?.path)) }) }
    if (checker.Check(v)) return check(v, limits)
    // The first error, or, inside a union, the deepest one names the field best.
    let first: { path: string; message: string } | undefined
    for (const e of checker.Errors(v)) {
      if (!first) first = e
      else if (e.path.startsWith(first.path) && e.path.length > first.path.length) first = e
    }
    return refuse(field(first?.path ?? '') || 'body', first?.message.toLowerCase() ?? 'is invalid')
  }
}

/** The role of a message dict: `type` (human, ai, system, tool, …Chunk) or `role` (user, assistant, system, tool). */
export function roleOf(m: MessageDict): 'human' | 'ai' | 'system' | 'tool' | null {
  const t = (m.type ?? m.role ?? '').replace(/MessageChunk$|Message$/i, '').toLowerCase()
  if (t === 'human' || t === 'user') return 'human'
  if (t === 'ai' || t === 'assistant') return 'ai'
  if (t === 'system' || t === 'developer') return 'system'
  if (t === 'tool') return 'tool'
  return null
}

/** The text of a message's content: a string, or its text blocks joined; null names the first block that is not text. */
export function textOf(content: MessageDict['content']): { text: string } | { bad: number; kind: string } {
  if (typeof content === 'string') return { text: content }
  if (content === null) return { text: '' }
  let text = ''
  for (const [i, block] of content.entries()) {
    if (typeof block === 'string') text += block
    else if (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text')
      text += stringOf((block as { text?: unknown }).text)
    else
      return { bad: i, kind: typeof block === 'object' && block !== null ? stringOf((block as { type?: unknown }).type, 'untyped') : String(block) }
  }
  return { text }
}

function checkRun(v: RunRequest, limits: DecodeLimits): Decoded<RunRequest> {
  const messages = v.input?.messages ?? []
  for (const [i, m] of messages.entries()) {
    const at = `input.messages[${i}]`
    if (roleOf(m) === null) return refuse(at, `a message needs a type (human, ai, system, tool) or a role (user, assistant, system, tool)`)
    const t = textOf(m.content)
    if ('bad' in t) return refuse(`${at}.content[${t.bad}]`, `only text content is supported, not "${t.kind}" blocks`)
    if (roleOf(m) === 'human') {
      const long = checkMessageLength(t.text, limits.maxUserMessageChars, `${at}.content`)
      if (long) return { ok: false, error: long }
    }
  }
  if (messages.length > 0 && roleOf(messages.at(-1)!) !== 'human')
    return refuse(`input.messages[${messages.length - 1}]`, 'the last message of the input must be a human message')
  if (v.command?.goto !== undefined || v.command?.update !== undefined)
    return refuse(
      v.command?.goto !== undefined ? 'command.goto' : 'command.update',
      'only command.resume is served (a Parlance agent has no graph nodes or channels to set)',
    )
  const hasInput = messages.length > 0
  const hasResume = v.command?.resume !== undefined
  if (hasInput && hasResume) return refuse('command.resume', 'send either input messages or command.resume, not both')
  // Neither, but a checkpoint: answer that checkpoint's last human message again (Agent Chat UI's Regenerate).
  const hasCheckpoint = Boolean(v.checkpoint?.checkpoint_id ?? v.checkpoint_id)
  if (!hasInput && !hasResume && !hasCheckpoint)
    return refuse('input', 'a run needs input.messages (ending with a human message), command.resume, or a checkpoint to answer again')
  for (const k of ['interrupt_before', 'interrupt_after'] as const) {
    const x = v[k]
    if (x !== undefined && x !== null && !(Array.isArray(x) && x.length === 0))
      return refuse(k, 'breakpoints are not served (a Parlance agent has no graph nodes)')
  }
  return { ok: true, value: v }
}

/** Decodes a run request body (`…/runs/stream`, `…/runs/wait`). */
export const decodeRunRequest = decoder(RunRequest, checkRun)
/** Decodes `POST /threads`. */
export const decodeThreadCreate = decoder(ThreadCreate)
/** Decodes `POST /threads/search`. */
export const decodeThreadSearch = decoder(ThreadSearch)
/** Decodes `POST /assistants/search`. */
export const decodeAssistantSearch = decoder(AssistantSearch)
/** Decodes `POST /threads/{id}/history`. */
export const decodeHistoryRequest = decoder(HistoryRequest)
