import { ParlanceError, toParlanceError, type Command, type Connection, type SessionId } from '../core/index.js'
import { hai, type HaiView } from '../dialects/hai/index.js'
import type { Session, Subscription } from '../session/index.js'
import type { Endpoint, EndpointDeps, EndpointFactory } from './endpoint.js'

/** What serving one HAI connection needs from the server. */
export type HaiEndpointDeps = Pick<EndpointDeps, 'sessions' | 'limits' | 'metrics' | 'log' | 'admission'>

/** HAI over WebSocket at `/ws`. */
export const haiEndpoint: EndpointFactory = (deps): Endpoint => ({
  dialect: 'hai',
  paths: { hai: '/ws' },
  upgrade(req, socket, head, url) {
    if (url.pathname !== '/ws') return false
    deps.ws.upgrade(req, socket, head, deps.principal(req), (conn) => serveHai(conn, attachParams(url), deps))
    return true
  },
})

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
 * Serves one HAI connection: decodes frames in arrival order, binds the
 * connection to the session its messages name, and streams that session's
 * events back through the HAI encoder. Closing the socket detaches it; the
 * run goes on and a reconnect can resume.
 */
export function serveHai(conn: Connection, attach: AttachParams | null, deps: HaiEndpointDeps): void {
  const { sessions, limits, metrics, log } = deps
  type Bound = { session: Session; view: HaiView; sub: Subscription }
  let bound: Bound | null = null
  let queue: Promise<void> = Promise.resolve()
  metrics.connections.inc({ dialect: 'hai' })
  log.debug({ conn: conn.id, attach: attach?.sessionId }, 'hai connection opened')

  const reply = (err: unknown): void => {
    const e = toParlanceError(err)
    if (e.code === 'internal') log.error({ err: e.cause ?? e, conn: conn.id }, 'internal error handling a HAI frame')
    metrics.inboundErrors.inc({ dialect: 'hai', code: e.code })
    conn.send([hai.encodeError(e, bound?.view ?? null)])
  }

  const bind = (session: Session, afterSeq: number | undefined): void => {
    if (bound?.session === session) return
    bound?.sub.close()
    // The view follows the agent of each run (`agent_id`); subscribers in the same view state share frames.
    const b: { session: Session; view: HaiView; sub?: Subscription } = { session, view: hai.view(session.id, session.agentName) }
    b.sub = session.subscribe(
      {
        get codecKey() {
          return `hai:${b.view.agentId}`
        },
        encode(events) {
          const out: string[] = []
          for (const e of events) {
            if (e.type === 'run.started' && e.agent !== b.view.agentId) b.view = hai.view(session.id, e.agent)
            for (const f of hai.encode(e, b.view)) out.push(f)
          }
          return out
        },
        write: (frames) => conn.send(frames as string[]),
        backlog: () => conn.bufferedBytes,
        drop: (reason) => conn.close(4008, reason),
      },
      afterSeq,
    )
    bound = b as Bound
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
    const runStart = session.activeRunStartSeq
    bind(session, p.after ?? (runStart !== null ? runStart - 1 : session.lastSeq))
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

  const admit = deps.admission(conn.principal)
  const handle = async (text: string): Promise<void> => {
    const refused = admit()
    if (refused) return reply(refused)
    const decoded = hai.decode(text, limits)
    if (!decoded.ok) return reply(decoded.error)
    try {
      const session = await target(decoded.command)
      await session.handle(decoded.command)
    } catch (err) {
      reply(err)
    }
  }

  conn.onframe = (text) => {
    queue = queue.then(() => handle(text)).catch(reply)
  }
  conn.onclose = (why) => {
    log.debug({ conn: conn.id, code: why.code, reason: why.reason, sessionId: bound?.session.id }, 'hai connection closed')
    metrics.connections.dec({ dialect: 'hai' })
    bound?.sub.close()
    bound = null
  }
  if (attach) queue = queue.then(() => open(attach)).catch(reply)
}
