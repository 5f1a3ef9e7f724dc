/**
 * MyAgent's events outside the session log: error answers and connection-level events (system.*,
 * agent.session_created …), and `base`, the envelope every server event shares. Pure: the time comes in.
 */
import type { ParlanceError } from '../../core/index.js'
import { MYAGENT_ERROR } from './errors.js'
import type { MyAgentServerContent, MyAgentServerEventName, MyAgentServerEventOf } from './wire.js'

/** The connection an event goes to, and the session it is about ('' while the connection is bound to none). */
interface Whom {
  readonly sessionId: string
  readonly connectionId: string
}

/**
 * Whom a connection-level event or an error answer is for, and when it is sent: the binding reads the clock and
 * passes the time in (a codec reads none).
 */
export interface SystemContext extends Whom {
  /** The event's time (ms since the epoch): its `timestamp`. */
  readonly now: number
}

/** One server event for `v`, at `ts` (ms since the epoch). */
export function base<K extends MyAgentServerEventName>(
  v: Whom,
  event: K,
  content: MyAgentServerContent[K],
  metadata: Record<string, unknown>,
  ts: number,
  stepId?: string,
): MyAgentServerEventOf<K> {
  // Error events always name a session ('' before there is one), as the seed's error structures require.
  const e: MyAgentServerEventOf<K> = {
    session_id: v.sessionId || (event.startsWith('error.') ? '' : undefined),
    connection_id: v.connectionId,
    event,
    timestamp: new Date(ts).toISOString(),
    content,
    metadata,
  }
  if (stepId !== undefined) e.step_id = stepId
  return e
}

/**
 * An error answer (not in the session log: no seq). It names a session and a step, as the seed's error events do:
 * the connection's session, else the one the frame named (`details.sessionId`; '' when there is none yet), and
 * the frame's step (`details.stepId`), else `stepId` (the binding's fresh one).
 */
export function encodeError(err: ParlanceError, v: SystemContext, stepId?: string): string {
  const { event, code } = MYAGENT_ERROR[err.code]
  const d = err.details ?? {}
  const metadata: Record<string, unknown> =
    event === 'error.validation'
      ? { error_code: code, field: d.field ?? null, constraint: d.constraint ?? err.code, recoverable: true, parlance_code: err.code }
      : event === 'system.error'
        ? { error_code: code, severity: 'error', parlance_code: err.code }
        : { error_code: code, error_type: err.code, context: d, recoverable: err.code !== 'internal', parlance_code: err.code }
  const step = typeof d.stepId === 'string' ? d.stepId : stepId
  const e = base(v, event, err.message, metadata, v.now, step)
  e.session_id = (typeof d.sessionId === 'string' ? d.sessionId : '') || v.sessionId || ''
  return JSON.stringify(e)
}

/** A connection-level event (system.*, agent.session_created …): not in the session log, so no seq. */
export function encodeSystem<K extends MyAgentServerEventName>(
  v: SystemContext,
  event: K,
  content: MyAgentServerContent[K],
  metadata: Record<string, unknown> = {},
  stepId?: string,
): string {
  return JSON.stringify(base(v, event, content, metadata, v.now, stepId))
}
