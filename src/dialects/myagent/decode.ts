import {
  checkJsonShape,
  ON_BUSY,
  onBusyOf,
  parseJson,
  ParlanceError,
  type Command,
  type Json,
  type Limits,
  type OnBusy,
  stringOf,
} from '../../core/index.js'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { inbound, NULLABLE_CONTENT, type InboundEvent } from './wire.js'

/** Compiled checkers of the client events, by name. */
const checkers = Object.fromEntries(Object.entries(inbound).map(([k, v]) => [k, TypeCompiler.Compile(v)])) as {
  [K in InboundEvent]: ReturnType<typeof TypeCompiler.Compile<(typeof inbound)[K]>>
}

/** What a MyAgent frame asks for: a canonical command, or a connection-level request the endpoint serves. */
export type MyAgentRequest =
  | {
      kind: 'command'
      command: Command
      /** Recorded in the log first (`custom.record`): what the canonical command has no field for. */ record?: { name: string; value: Json }
    }
  | { kind: 'create_session'; projectName?: string; sessionName?: string }
  | { kind: 'ack'; sessionId: string; lastSeq: number | null }
  | { kind: 'reconnect'; sessionId: string; lastSeq: number | null }
  | { kind: 'reconnect_with_state'; signedState: string; lastSeq: number }
  | { kind: 'request_state'; sessionId: string; includeHistory: boolean }
  | { kind: 'heartbeat' }
  /** The client's own `system.connected`: acknowledged (nothing to answer). */
  | { kind: 'client_connected'; connectionId?: string }
  /** A client-reported error (`system.error`): logged, and recorded in the session it names or the bound one. */
  | { kind: 'client_error'; sessionId?: string; message: string; errorCode?: string; severity: 'info' | 'warning' | 'error' }

export type DecodedRequest = { ok: true; request: MyAgentRequest; sessionId?: string } | { ok: false; error: ParlanceError }

const NAMES = Object.keys(checkers).join(', ')

/** Decodes one MyAgent text frame. Pure; never throws. Errors name the field and the constraint broken. */
export function decode(frame: string, limits: Pick<Limits, 'maxFrameBytes' | 'maxJsonDepth' | 'maxUserMessageChars'>): DecodedRequest {
  const bytes = frame.length * 3 <= limits.maxFrameBytes ? frame.length : Buffer.byteLength(frame, 'utf8')
  if (bytes > limits.maxFrameBytes)
    return fail('frame_too_large', `frame exceeds the ${limits.maxFrameBytes}-byte limit`, '', `max ${limits.maxFrameBytes} bytes`)
  const parsed = parseJson(frame)
  if (!parsed.ok) return { ok: false, error: new ParlanceError('invalid_json', parsed.error.message, { constraint: 'valid JSON' }) }
  const v = parsed.value
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail('invalid_message', 'an event must be a JSON object', '', 'type: object')
  const m = v as Record<string, unknown>
  // The session and step the frame names, for its error event (seed: error events carry session_id and step_id).
  const named = (m.content as { session_id?: unknown } | null | undefined)?.session_id
  const sessionId = typeof m.session_id === 'string' ? m.session_id : typeof named === 'string' ? named : undefined
  const at: FrameIds = { ...(sessionId !== undefined ? { sessionId } : {}), ...(typeof m.step_id === 'string' ? { stepId: m.step_id } : {}) }
  if (typeof m.event !== 'string') return fail('invalid_message', 'missing "event" (string)', 'event', 'required', at)
  if (!Object.hasOwn(checkers, m.event)) {
    return fail('unknown_type', `unknown event "${m.event.slice(0, 64)}"; accepted: ${NAMES}`, 'event', 'one of the user.* and system.* events', at)
  }
  const shape = checkJsonShape(v, limits.maxJsonDepth)
  if (shape)
    return {
      ok: false,
      error: new ParlanceError('invalid_message', shape.message, {
        field: stringOf(shape.details?.path).replace(/^\//, '').replace(/\//g, '.'),
        constraint: shape.code,
        ...at,
      }),
    }
  const event = m.event as InboundEvent
  const checker = checkers[event]
  const subject = m.content === null && NULLABLE_CONTENT.has(event) ? withoutContent(m) : v
  if (!checker.Check(subject)) {
    const first = checker.Errors(subject).First()
    const field = (first?.path ?? '').replace(/^\//, '').replace(/\//g, '.') || 'event'
    const constraint = contentRule(event, field) ?? first?.message ?? 'invalid'
    return fail('invalid_message', `${event}: "${field}" ${first?.message.toLowerCase() ?? 'is invalid'}`, field, constraint, at)
  }
  const c = (m.content ?? {}) as Record<string, unknown>
  switch (event) {
    case 'user.create_session':
      return {
        ok: true,
        request: { kind: 'create_session', projectName: c.project_name as string | undefined, sessionName: c.session_name as string | undefined },
      }
    case 'user.message': {
      const content = m.content as string
      const chars = content.length > limits.maxUserMessageChars ? [...content].length : content.length
      if (chars > limits.maxUserMessageChars)
        return fail(
          'message_too_long',
          `content has ${chars} characters; the limit is ${limits.maxUserMessageChars}`,
          'content',
          `max ${limits.maxUserMessageChars} characters`,
          at,
        )
      const metadata = m.metadata as Record<string, unknown> | undefined
      const onBusy = policyOf(event, metadata, sessionId)
      if (onBusy instanceof ParlanceError) return { ok: false, error: onBusy }
      // The client may name its message (to regenerate or withdraw it later by that id).
      const messageId = metadata?.message_id
      if (messageId !== undefined && !(typeof messageId === 'string' && messageId.length >= 1 && messageId.length <= 256)) {
        return fail(
          'invalid_message',
          `${event}: "metadata.message_id" must be a string of 1–256 characters`,
          'metadata.message_id',
          '1–256 characters',
          at,
        )
      }
      const command = {
        type: 'user.message' as const,
        sessionId: sessionId!,
        content,
        ...(messageId !== undefined ? { messageId } : {}),
        ...(metadata ? { metadata } : {}),
        ...(onBusy ? { onBusy } : {}),
      }
      return { ok: true, sessionId, request: { kind: 'command', command } }
    }
    case 'user.regenerate': {
      const onBusy = policyOf(event, m.metadata as Record<string, unknown> | undefined, sessionId)
      if (onBusy instanceof ParlanceError) return { ok: false, error: onBusy }
      const messageId = typeof c.message_id === 'string' ? c.message_id : undefined
      return {
        ok: true,
        sessionId,
        request: {
          kind: 'command',
          command: { type: 'run.regenerate', sessionId: sessionId!, ...(messageId ? { messageId } : {}), ...(onBusy ? { onBusy } : {}) },
        },
      }
    }
    case 'user.response':
      return {
        ok: true,
        sessionId,
        request: {
          kind: 'command',
          command: {
            type: 'approval.response',
            sessionId,
            approvalId: m.step_id as string,
            approved: c.approved as boolean,
            ...(typeof c.feedback === 'string' ? { feedback: c.feedback } : {}),
          },
          ...(c.data !== undefined
            ? {
                record: {
                  name: 'myagent.user_response',
                  value: { step_id: m.step_id, approved: c.approved, data: c.data, metadata: m.metadata ?? null } as Json,
                },
              }
            : {}),
        },
      }
    case 'user.ack':
      return { ok: true, sessionId, request: { kind: 'ack', sessionId: sessionId!, lastSeq: typeof c.last_seq === 'number' ? c.last_seq : null } }
    case 'user.cancel':
      return {
        ok: true,
        sessionId,
        request: {
          kind: 'command',
          command: {
            type: 'run.cancel',
            sessionId,
            reason: typeof c.reason === 'string' ? c.reason : 'cancelled by the user',
            ...(typeof c.message_id === 'string' ? { messageId: c.message_id } : {}),
          },
        },
      }
    case 'user.reconnect':
      return {
        ok: true,
        request: { kind: 'reconnect', sessionId: c.session_id as string, lastSeq: typeof c.last_seq === 'number' ? c.last_seq : null },
      }
    case 'user.reconnect_with_state':
      return { ok: true, request: { kind: 'reconnect_with_state', signedState: c.signed_state as string, lastSeq: c.last_seq as number } }
    case 'user.request_state':
      return {
        ok: true,
        sessionId,
        request: {
          kind: 'request_state',
          sessionId: sessionId!,
          includeHistory: (m.metadata as { include_history?: unknown } | undefined)?.include_history !== false,
        },
      }
    case 'system.heartbeat':
      return { ok: true, request: { kind: 'heartbeat' } }
    case 'system.connected':
      return { ok: true, request: { kind: 'client_connected', ...(typeof m.connection_id === 'string' ? { connectionId: m.connection_id } : {}) } }
    case 'system.error': {
      const meta = (m.metadata ?? {}) as { error_code?: string; severity?: 'info' | 'warning' | 'error' }
      return {
        ok: true,
        sessionId,
        request: {
          kind: 'client_error',
          ...(sessionId !== undefined ? { sessionId } : {}),
          message: m.content as string,
          ...(meta.error_code !== undefined ? { errorCode: meta.error_code } : {}),
          severity: meta.severity ?? 'error',
        },
      }
    }
  }
}

/** `metadata.onBusy`: absent, a policy, or an `invalid_message` naming the field and the values allowed. */
function policyOf(
  event: InboundEvent,
  metadata: Record<string, unknown> | undefined,
  sessionId: string | undefined,
): OnBusy | undefined | ParlanceError {
  const value = metadata?.onBusy
  if (value === undefined) return undefined
  const constraint = `one of ${ON_BUSY.join(', ')}`
  return (
    onBusyOf(value) ??
    new ParlanceError('invalid_message', `${event}: "metadata.onBusy" must be ${constraint}`, {
      field: 'metadata.onBusy',
      constraint,
      ...(sessionId ? { sessionId } : {}),
    })
  )
}

function withoutContent(m: Record<string, unknown>): Record<string, unknown> {
  const { content: _, ...rest } = m
  return rest
}

/** The seed's validation rules table, in its own words, for the `content` field. */
function contentRule(event: InboundEvent, field: string): string | undefined {
  if (field !== 'content' && !field.startsWith('content.')) return field === 'session_id' || field === 'step_id' ? 'required' : undefined
  if (event === 'user.message') return 'content type: string'
  if (event === 'user.response') return field === 'content.approved' ? 'content.approved: boolean, required' : 'content type: object'
  return undefined
}

/** The session and step a frame names (`details.sessionId`, `details.stepId` of its error). */
type FrameIds = { sessionId?: string; stepId?: string }

function fail(
  code: 'invalid_message' | 'unknown_type' | 'frame_too_large' | 'message_too_long',
  message: string,
  field: string,
  constraint: string,
  at: FrameIds = {},
): DecodedRequest {
  return { ok: false, error: new ParlanceError(code, message, { ...(field ? { field } : {}), constraint, ...at }) }
}
