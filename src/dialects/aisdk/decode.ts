import { checkJsonShape, parseJson, ParlanceError, type Limits, stringOf } from '../../core/index.js'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { ChatRequest } from './wire.js'

const chatRequestChecker = TypeCompiler.Compile(ChatRequest)

export type DecodedChat = { ok: true; request: ChatRequest } | { ok: false; error: ParlanceError }

/** Decodes a `POST /api/chat` body. Pure; never throws; errors name the field (`messages[1].parts`). */
export function decodeChat(body: string, limits: Pick<Limits, 'maxJsonDepth'>): DecodedChat {
  const parsed = parseJson(body, 'body')
  if (!parsed.ok) return parsed
  const v = parsed.value
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return { ok: false, error: new ParlanceError('invalid_message', 'the body must be a JSON object', {}) }
  const shape = checkJsonShape(v, limits.maxJsonDepth)
  if (shape)
    return {
      ok: false,
      error: new ParlanceError('invalid_message', shape.message, {
        field: stringOf(shape.details?.path)
          .replace(/^\//, '')
          .replace(/\/(\d+)/g, '[$1]')
          .replace(/\//g, '.'),
      }),
    }
  if (chatRequestChecker.Check(v)) {
    // useChat always sends the conversation; an empty one has no turn to answer (it streamed an empty answer).
    if (v.messages.length === 0) {
      return {
        ok: false,
        error: new ParlanceError('invalid_message', 'messages is empty: send the conversation, ending with the message to answer', {
          field: 'messages',
        }),
      }
    }
    return { ok: true, request: v }
  }
  const first = chatRequestChecker.Errors(v).First()
  const field = (first?.path ?? '')
    .replace(/^\//, '')
    .replace(/\/(\d+)/g, '[$1]')
    .replace(/\//g, '.')
  // A union of literals is spelled out ("onBusy must be one of interrupt, enqueue, reject, rollback").
  const anyOf = (first?.schema as { anyOf?: Array<{ const?: unknown }> } | undefined)?.anyOf
  if (anyOf?.length && anyOf.every((x) => typeof x.const === 'string')) {
    return {
      ok: false,
      error: new ParlanceError('invalid_message', `${field} must be one of ${anyOf.map((x) => String(x.const)).join(', ')}`, { field }),
    }
  }
  return { ok: false, error: new ParlanceError('invalid_message', `${field || 'body'}: ${first?.message.toLowerCase() ?? 'is invalid'}`, { field }) }
}
