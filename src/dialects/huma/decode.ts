import { TypeCompiler } from '@sinclair/typebox/compiler'
import { checkJsonShape, parseJson, ParlanceError, type Command, type Decoded, type Json, type Limits, stringOf } from '../../core/index.js'
import { APPROVAL_TOOL, FIELD_RULES, INBOUND, MAX_NAME_CHARS, MAX_RESULT_CHARS, type InboundType } from './wire.js'

/** Compiled checkers of the client events, by `type`. */
export const inbound = {
  'context-update': TypeCompiler.Compile(INBOUND['context-update']),
  'tool-result': TypeCompiler.Compile(INBOUND['tool-result']),
  'addon-tool-event': TypeCompiler.Compile(INBOUND['addon-tool-event']),
} as const satisfies Record<InboundType, unknown>

const NAMES = Object.keys(inbound).join(', ')

/**
 * Decodes one HUMA client event (the JSON text of what arrived on the
 * 'message' channel) into a canonical command. Pure; never throws. Commands
 * carry an empty `sessionId` where one is required: a HUMA event never names
 * its session, the socket does, and the endpoint fills it in.
 */
export function decode(frame: string, limits: Pick<Limits, 'maxFrameBytes' | 'maxJsonDepth' | 'maxUserMessageChars'>): Decoded {
  const bytes = frame.length > limits.maxFrameBytes || frame.length * 3 <= limits.maxFrameBytes ? frame.length : Buffer.byteLength(frame, 'utf8')
  if (bytes > limits.maxFrameBytes)
    return fail('frame_too_large', `event exceeds the ${limits.maxFrameBytes}-byte limit`, { limit: limits.maxFrameBytes })
  const parsed = parseJson(frame)
  if (!parsed.ok) return parsed
  const msg = parsed.value
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
    return fail('invalid_message', 'a HUMA event must be a JSON object with a string "type"', { field: 'type' })
  const type = (msg as { type?: unknown }).type
  if (typeof type !== 'string') return fail('invalid_message', `event requires string "type" (${NAMES})`, { field: 'type' })
  if (!Object.hasOwn(inbound, type)) return fail('unknown_type', `unknown event type "${type.slice(0, 64)}"; accepted: ${NAMES}`, { field: 'type' })
  const t = type as InboundType
  const shapeError = checkJsonShape(msg, limits.maxJsonDepth)
  if (shapeError) {
    const path = stringOf(shapeError.details?.path)
    const field = path.replace(/^\//, '') || 'type'
    return fail(shapeError.code, `${t}: ${shapeError.message} (field "${field}")`, { field })
  }
  const checker = inbound[t]
  if (!checker.Check(msg)) {
    const first = checker.Errors(msg).First()
    const field = first?.path.replace(/^\//, '') || 'type'
    const rule = FIELD_RULES[t][field] ?? FIELD_RULES[t][field.split('/')[0]!]
    return fail('invalid_message', rule ? `${t} requires ${rule} "${field}"` : `${t}: "${field}" ${first?.message.toLowerCase() ?? 'is invalid'}`, {
      field,
    })
  }
  const m = msg as Record<string, unknown>
  switch (t) {
    case 'context-update': {
      const name = m.name as string
      const chars = name.length > MAX_NAME_CHARS ? Array.from(name).length : name.length
      if (chars > MAX_NAME_CHARS) {
        return fail('invalid_message', `context-update "name" has ${chars} characters; the limit is ${MAX_NAME_CHARS}`, {
          field: 'name',
          length: chars,
          limit: MAX_NAME_CHARS,
        })
      }
      return {
        ok: true,
        value: {
          type: 'context.update',
          sessionId: '',
          name,
          description: m.description as string,
          context: m.context as Record<string, unknown>,
          triggering: m.triggering as boolean,
        },
      }
    }
    case 'tool-result': {
      const result = m.result as Json | undefined
      if (result !== undefined) {
        const size = JSON.stringify(result).length
        if (size > MAX_RESULT_CHARS) {
          return fail('invalid_message', `tool-result "result" is ${size} characters as JSON; the limit is ${MAX_RESULT_CHARS}`, {
            field: 'result',
            length: size,
            limit: MAX_RESULT_CHARS,
          })
        }
      }
      const outcome = m.outcome as 'success' | 'failure' | 'canceled'
      const error = m.error as string | undefined
      if (m.toolName === APPROVAL_TOOL) return { ok: true, value: approvalAnswer(m.toolCallId as string, outcome, result, error) }
      return {
        ok: true,
        value: {
          type: 'tool.result',
          toolCallId: m.toolCallId as string,
          toolName: m.toolName as string,
          outcome,
          triggering: m.triggering as boolean,
          ...(result !== undefined ? { result } : {}),
          ...(error !== undefined ? { error } : {}),
        },
      }
    }
    case 'addon-tool-event':
      return { ok: true, value: { type: 'addon.event', toolCallId: m.toolCallId as string, data: m.data as Record<string, unknown> } }
  }
}

/** A tool-result for `request_approval`: success with `true` or `{approved: true}` approves; anything else rejects. */
function approvalAnswer(approvalId: string, outcome: string, result: Json | undefined, error: string | undefined): Command {
  const r = typeof result === 'object' && result !== null && !Array.isArray(result) ? result : undefined
  const approved = outcome === 'success' && (result === true || r?.approved === true)
  const feedback = typeof r?.feedback === 'string' ? r.feedback : error
  return { type: 'approval.response', approvalId, approved, ...(feedback !== undefined ? { feedback } : {}) }
}

function fail(code: ParlanceError['code'], message: string, details?: Record<string, unknown>): Decoded {
  return { ok: false, error: new ParlanceError(code, message, details) }
}
