import { ParlanceError, type Command, type Connection, type SessionId } from '../../core/index.js'
import { asBuffers, attach, resumePoint, serveSocket, type Dialect, type EndpointDeps } from '../../binding/index.js'
import type { Session, Subscription } from '../../session/index.js'
import type { WsFrame } from '../../transports/ws.js'
import { capabilities } from './capabilities.js'
import { hai, type HaiView } from './codec.js'

/** Each batch encoded and converted to bytes once for every HAI socket of a session. */
const WIRE = asBuffers(hai)

/** HAI over WebSocket at `/ws`. */
export const haiDialect: Dialect = {
  name: 'hai',
  capabilities,
  mount: (deps) => ({
    dialect: 'hai',
    paths: { hai: '/ws' },
    upgrade(req, socket, head, url) {
      if (url.pathname !== '/ws') return false
      deps.ws.upgrade(req, socket, head, deps.principal(req), (conn) => serveHai(conn, attachParams(url), deps))
      return true
    },
  }),
}

/** Where a connection attaches on open: `/ws?session_id=…[&after=SEQ][&history=1]`. */
export interface AttachParams {
  sessionId: SessionId
  /** Replay events after this seq; absent: from the start of the active run, if any. */
  after?: number
  /** Send the past assistant messages first, as `assistant_message`. */
  history: boolean
}

/** Reads attach parameters from the upgrade URL; null when the client named no session. */
export function attachParams(url: URL): AttachParams | null {
  const sessionId = url.searchParams.get('session_id')
  if (!sessionId) return null
  const afterRaw = url.searchParams.get('after')
  const after = afterRaw !== null && /^\d{1,15}$/.test(afterRaw) ? Number(afterRaw) : undefined
  return { sessionId, after, history: url.searchParams.get('history') === '1' }
}

/**
 * Serves one HAI connection: binds it to the session its messages name and streams that session's events
 * back through the HAI codec. Closing the socket detaches it; the run goes on and a reconnect can resume.
 */
export function serveHai(
  conn: Connection<WsFrame>,
  at: AttachParams | null,
  deps: Pick<EndpointDeps, 'sessions' | 'limits' | 'metrics' | 'log' | 'admission' | 'inflight'>,
): void {
  const { sessions, limits } = deps
  let bound: { session: Session; sub: Subscription } | null = null

  const bind = (session: Session, afterSeq: number | undefined): void => {
    if (bound?.session === session) return
    bound?.sub.close()
    const sub = attach(conn, session, afterSeq, { encoder: WIRE, view: hai.view(session.id, session.agentName), label: `hai:${conn.id}` })
    bound = { session, sub }
  }

  const open = async (p: AttachParams): Promise<void> => {
    // Attaching names the client's conversation: it is created (owned by this principal) if new, so a
    // connection that attaches before the first message still receives everything.
    const session = await sessions.open(p.sessionId, conn.principal)
    if (p.history) {
      const view = hai.view(session.id, session.agentName)
      const frames = session.model.messages.map((m) => hai.encodeHistory(m, view)).filter((f): f is string => f !== null)
      if (frames.length) conn.send(frames)
    }
    bind(session, p.after ?? resumePoint(session))
  }

  const target = async (cmd: Command): Promise<Session> => {
    if (cmd.sessionId) {
      // Only a user_message starts a conversation; a cancel, approval or tool result naming an unknown session is not_found.
      const session = await sessions.open(cmd.sessionId, conn.principal, { create: cmd.type === 'user.message' })
      bind(session, undefined)
      return session
    }
    const pendingId = cmd.type === 'approval.response' ? cmd.approvalId : cmd.type === 'tool.result' ? cmd.toolCallId : undefined
    // The session the request waits in, else the bound one; re-opened rather than reused, since an idle
    // session may have been unloaded and reloaded meanwhile.
    const id = (pendingId ? await sessions.locatePending(pendingId) : undefined) ?? bound?.session.id
    if (id) return sessions.open(id, conn.principal)
    throw new ParlanceError('invalid_message', `${cmd.type}: no session; send a user_message with a session_id first`)
  }

  const run = serveSocket(conn, deps, {
    dialect: 'hai',
    decode: (text) => hai.decode(text, limits),
    handle: async (cmd) => {
      const session = await target(cmd)
      await session.handle(cmd)
    },
    error: (e) => hai.encodeError(e, bound ? (bound.sub.subscriber.view as HaiView) : null),
  })
  conn.onframe = run.frame
  conn.onclose = (why) => {
    deps.log.debug({ conn: conn.id, code: why.code, reason: why.reason, sessionId: bound?.session.id }, 'hai connection closed')
    run.closed()
    bound?.sub.close()
    bound = null
  }
  if (at) run.enqueue(() => open(at))
}
