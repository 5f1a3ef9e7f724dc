import { TypeCompiler } from '@sinclair/typebox/compiler'
import {
  checkJsonShape,
  ON_BUSY,
  onBusyOf,
  parseJson,
  ParlanceError,
  type DecodeLimits,
  type Decoded,
  type Json,
  type OnBusy,
} from '../../core/index.js'
import { INBOUND, type InboundType } from './wire.js'

/** Compiled checkers of the client → server messages, by `type`. */
export const inbound = {
  user_message: TypeCompiler.Compile(INBOUND.user_message),
  tool_approval_response: TypeCompiler.Compile(INBOUND.tool_approval_response),
  tool_result: TypeCompiler.Compile(INBOUND.tool_result),
  cancel: TypeCompiler.Compile(INBOUND.cancel),
  regenerate: TypeCompiler.Compile(INBOUND.regenerate),
} as const satisfies Record<InboundType, unknown>

const NAMES = Object.keys(inbound).join(', ')

/** Decodes one HAI text frame into a canonical command. Pure; never throws. */
export function decode(frame: string, limits: DecodeLimits): Decoded {
  // The limit is in UTF-8 bytes; a UTF-16 unit is 1–3 bytes, so count only when the length alone cannot decide.
  const bytes = frame.length > limits.maxFrameBytes || frame.length * 3 <= limits.maxFrameBytes ? frame.length : Buffer.byteLength(frame, 'utf8')
  if (bytes > limits.maxFrameBytes) {
    return fail('frame_too_large', `frame exceeds the ${limits.maxFrameBytes}-byte limit`, { limit: limits.maxFrameBytes })
  }
  const parsed = parseJson(frame)
  if (!parsed.ok) return parsed
  const msg = parsed.value
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return fail('invalid_message', 'a HAI message must be a JSON object')
  const type = (msg as { type?: unknown }).type
  if (typeof type !== 'string') return fail('invalid_message', 'missing "type" (string)', { field: 'type' })
  if (!Object.hasOwn(inbound, type)) {
    return fail('unknown_type', `unknown message type "${type.slice(0, 64)}"; accepted: ${NAMES}`, { type: type.slice(0, 64) })
  }
  const shapeError = checkJsonShape(msg, limits.maxJsonDepth)
  if (shapeError) return { ok: false, error: shapeError }
  const checker = inbound[type as InboundType]
  if (!checker.Check(msg)) {
    const first = checker.Errors(msg).First()
    const field = first?.path.replace(/^\//, '') || 'type'
    return fail('invalid_message', `${type}: field "${field}" ${first?.message.toLowerCase() ?? 'is invalid'}`, { field })
  }
  const m = msg as Record<string, unknown>
  switch (type as InboundType) {
    case 'user_message': {
      const content = m.content as string
      // Characters are code points (an emoji is one), counted only when UTF-16 length alone exceeds the limit.
      const chars = content.length > limits.maxUserMessageChars ? codePoints(content) : content.length
      if (chars > limits.maxUserMessageChars) {
        return fail('message_too_long', `content has ${chars} characters; the limit is ${limits.maxUserMessageChars}`, {
          field: 'content',
          length: chars,
          limit: limits.maxUserMessageChars,
        })
      }
      const metadata = m.metadata as Record<string, unknown> | undefined
      const onBusy = policyOf(type, metadata)
      if (onBusy instanceof ParlanceError) return { ok: false, error: onBusy }
      // The client may name its message (to regenerate or withdraw it later by that id).
      const messageId = metadata?.message_id
      if (messageId !== undefined && !(typeof messageId === 'string' && messageId.length >= 1 && messageId.length <= 256)) {
        return fail('invalid_message', 'metadata.message_id must be a string of 1–256 characters', { field: 'metadata/message_id' })
      }
      return {
        ok: true,
        value: {
          type: 'user.message',
          sessionId: m.session_id as string,
          content,
          ...(messageId !== undefined ? { messageId } : {}),
          ...(metadata ? { metadata } : {}),
          ...(typeof metadata?.agent === 'string' ? { agent: metadata.agent } : {}),
          ...(onBusy ? { onBusy } : {}),
        },
      }
    }
    case 'regenerate': {
      const metadata = m.metadata as Record<string, unknown> | undefined
      const onBusy = policyOf(type, metadata)
      if (onBusy instanceof ParlanceError) return { ok: false, error: onBusy }
      return {
        ok: true,
        value: {
          type: 'run.regenerate',
          sessionId: m.session_id as string,
          ...(typeof m.message_id === 'string' ? { messageId: m.message_id } : {}),
          ...(typeof metadata?.agent === 'string' ? { agent: metadata.agent } : {}),
          ...(onBusy ? { onBusy } : {}),
        },
      }
    }
    case 'tool_approval_response':
      return {
        ok: true,
        value: {
          type: 'approval.response',
          approvalId: m.approval_id as string,
          approved: m.approved as boolean,
          ...(m.session_id ? { sessionId: m.session_id as string } : {}),
          ...(m.feedback !== undefined ? { feedback: m.feedback as string } : {}),
        },
      }
    case 'tool_result':
      return {
        ok: true,
        value: {
          type: 'tool.result',
          toolCallId: m.tool_call_id as string,
          ...(m.session_id ? { sessionId: m.session_id as string } : {}),
          ...(m.error !== undefined
            ? { outcome: 'failure' as const, error: m.error as string }
            : { outcome: 'success' as const, result: (m.result ?? null) as Json }),
        },
      }
    case 'cancel':
      return {
        ok: true,
        value: { type: 'run.cancel', sessionId: m.session_id as string, ...(typeof m.message_id === 'string' ? { messageId: m.message_id } : {}) },
      }
  }
}

/** `metadata.onBusy`: absent, a policy, or an `invalid_message` naming the field and the values allowed. */
function policyOf(type: string, metadata: Record<string, unknown> | undefined): OnBusy | undefined | ParlanceError {
  const value = metadata?.onBusy
  if (value === undefined) return undefined
  return (
    onBusyOf(value) ??
    new ParlanceError('invalid_message', `${type}: field "metadata/onBusy" must be one of ${ON_BUSY.join(', ')}`, {
      field: 'metadata/onBusy',
      allowed: [...ON_BUSY],
    })
  )
}

function fail(code: ParlanceError['code'], message: string, details?: Record<string, unknown>): Decoded {
  return { ok: false, error: new ParlanceError(code, message, details) }
}

function codePoints(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
    n++
  }
  return n
}
