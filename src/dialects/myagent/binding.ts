import { randomUUID } from 'node:crypto'
import { newId, ParlanceError, type Connection } from '../../core/index.js'
import { attach, resumePoint, serveSocket, type Dialect, type Endpoint, type EndpointDeps } from '../../binding/index.js'
import type { Session, Subscription } from '../../session/index.js'
import type { WsFrame } from '../../transports/ws.js'
import { AckBuffer, ParkedBuffers } from './ack-buffer.js'
import { capabilities } from './capabilities.js'
import { myagent, type MyAgentRequest, type MyAgentView } from './codec.js'
import type { SystemContext } from './encode.js'
import { MYAGENT_ERROR } from './errors.js'
import { signState, verifyState } from './signed-state.js'

const SERVER_VERSION = 'parlance/0.1.0'
/** The custom event a client's `system.error` is recorded as in its session (the inspector lists it). */
export const CLIENT_ERROR_EVENT = 'client.error'
const started = Date.now()
const uptime = () => Math.round((Date.now() - started) / 1000)

/** MyAgent over WebSocket at `/myagent`. */
export const myagentDialect: Dialect = { name: 'myagent', capabilities, mount: (deps) => myagentEndpoint(deps) }

function myagentEndpoint(deps: EndpointDeps): Endpoint {
  const live = new Set<{ end(reason: string): void }>()
  const parked = new ParkedBuffers(deps.limits.reconnectWindowMs)
  return {
    dialect: 'myagent',
    paths: { myagent: '/myagent' },
    upgrade(req, socket, head, url) {
      if (url.pathname !== '/myagent') return false
      deps.ws.upgrade(req, socket, head, deps.principal(req), (conn) => {
        const handle = serveMyAgent(conn, deps, parked)
        live.add(handle)
        conn.onclose = ((inner) => (why) => {
          live.delete(handle)
          inner?.(why)
        })(conn.onclose)
      })
      return true
    },
    close() {
      for (const c of live) c.end('the server is shutting down')
      parked.clear()
    },
  }
}

type Deps = Pick<EndpointDeps, 'sessions' | 'limits' | 'metrics' | 'log' | 'admission' | 'inflight' | 'secret'>

/**
 * Serves one MyAgent connection: `system.connected` first, `system.heartbeat` on an interval, frames
 * decoded in arrival order, the connection bound to one session at a time and fed its events (each with
 * `metadata.seq`). Closing the socket detaches it; the run goes on and `user.reconnect` resumes exactly.
 */
export function serveMyAgent(conn: Connection<WsFrame>, deps: Deps, parked: ParkedBuffers): { end(reason: string): void } {
  const { sessions, limits } = deps
  let bound: { session: Session; sub: Subscription; buffer: AckBuffer } | null = null
  /** The session this connection was last bound to ('' before any): named by its connection-level events. */
  let sessionId = ''
  let acked = 0
  /** The session and step of the frame being carried out, for its error event; cleared once it is done or answered. */
  let frame: { sessionId?: string; stepId?: string } = {}

  const send = (frames: string[]) => conn.send(frames)
  /** The ids connection-level events carry, and their time (the codec reads no clock). */
  const ids = (id = sessionId): SystemContext => ({ connectionId: conn.id, sessionId: id, now: Date.now() })

  /** Feeds the connection `session`'s events after `afterSeq`; `from`/`kept` continue a parked view and buffer instead of fresh ones. */
  const bind = (session: Session, afterSeq: number, from?: MyAgentView, kept?: AckBuffer): void => {
    if (bound?.session === session && !from) return
    bound?.sub.close()
    sessionId = session.id
    const buffer = kept ?? new AckBuffer(limits.ackBufferEvents, afterSeq)
    const track = (seq: number, frames: string[]) => buffer.add(seq, frames)
    const sub = attach(conn, session, afterSeq, {
      // Frames name the connection: encoded per connection (its own view), and each event's frames kept for a fast reconnect.
      encoder: { encode: (events, v: MyAgentView) => myagent.encode(events, v, track) },
      view: from ? { ...from, connectionId: conn.id, sessionId: session.id } : myagent.view(conn.id, session.id),
      label: `myagent:${conn.id}`,
    })
    bound = { session, sub, buffer }
  }
  const aheadOf = (session: Session, lastSeq: number | null) =>
    lastSeq !== null && lastSeq > session.lastSeq
      ? new ParlanceError('invalid_message', `last_seq ${lastSeq} is ahead of the session (${session.lastSeq})`, {
          field: 'content.last_seq',
          constraint: `≤ ${session.lastSeq}`,
        })
      : null

  const serve = async (r: MyAgentRequest): Promise<void> => {
    frame =
      r.kind === 'command'
        ? {
            ...(r.command.sessionId !== undefined ? { sessionId: r.command.sessionId } : {}),
            ...(r.command.type === 'approval.response' ? { stepId: r.command.approvalId } : {}),
          }
        : {}
    await carryOut(r)
    frame = {}
  }
  const carryOut = async (r: MyAgentRequest): Promise<void> => {
    switch (r.kind) {
      case 'create_session': {
        const session = await sessions.open(`sess_${randomUUID().replace(/-/g, '')}`, conn.principal)
        bind(session, session.lastSeq)
        send([
          myagent.encodeSystem(
            ids(),
            'agent.session_created',
            { session_id: session.id, project_name: r.projectName ?? null, session_name: r.sessionName ?? null },
            { created_at: new Date(session.createdAt).toISOString(), agent: session.agentName },
          ),
        ])
        return
      }
      case 'command': {
        const cmd = r.command
        const id = cmd.sessionId!
        const session = await sessions.open(id, conn.principal, { create: cmd.type === 'user.message' })
        if (bound?.session !== session) bind(session, session.lastSeq)
        await session.handle(cmd) // throws (nothing recorded) when refused, e.g. an unknown step_id
        if (r.record) await session.handle({ type: 'custom.record', sessionId: session.id, name: r.record.name, value: r.record.value })
        return
      }
      case 'ack': {
        const session = await sessions.open(r.sessionId, conn.principal, { create: false })
        const ahead = aheadOf(session, r.lastSeq)
        if (ahead) throw ahead
        acked = Math.max(acked, r.lastSeq ?? bound?.sub.lastSeq ?? 0)
        if (bound?.session === session) bound.buffer.ack(acked)
        return
      }
      case 'reconnect': {
        const session = await sessions.open(r.sessionId, conn.principal, { create: false })
        const ahead = aheadOf(session, r.lastSeq)
        if (ahead) throw ahead
        bound?.sub.close()
        bound = null
        const p = parked.take(session.id, conn.principal)
        const fromBuffer = p !== undefined && r.lastSeq !== null && p.buffer.after(r.lastSeq) !== null
        const meta = {
          server_uptime_seconds: uptime(),
          active_sessions: sessions.loadedCount,
          resumed: true,
          last_seq: session.lastSeq,
          replay: fromBuffer ? 'buffer' : 'log',
        }
        send([
          myagent.encodeSystem(ids(session.id), 'system.connected', { server_version: SERVER_VERSION, server_time: new Date().toISOString() }, meta),
        ])
        if (p && fromBuffer) {
          // Within the window and covered: the unacked frames from memory, then the log from where they end.
          p.buffer.ack(r.lastSeq!)
          p.buffer.restamp(p.connectionId, conn.id)
          const frames = p.buffer.after(r.lastSeq!)!
          if (frames.length > 0) send(frames)
          bind(session, p.buffer.lastSeq, p.view, p.buffer)
        } else bind(session, r.lastSeq ?? resumePoint(session))
        return
      }
      case 'request_state': {
        const session = await sessions.open(r.sessionId, conn.principal, { create: false })
        await sessions.store.flush()
        const at = ids(session.id)
        const signed = signState(
          deps.secret,
          {
            session_id: session.id,
            agent: session.agentName,
            last_seq: session.lastSeq,
            state: session.model.state,
            history: r.includeHistory ? session.model.messages : [],
          },
          limits.stateExportTtlMs,
          at.now,
        )
        send([
          myagent.encodeSystem(
            at,
            'agent.state_export',
            { signed_state: signed, last_seq: session.lastSeq },
            { expires_at: new Date(at.now + limits.stateExportTtlMs).toISOString(), algorithm: 'HMAC-SHA256' },
          ),
        ])
        return
      }
      case 'reconnect_with_state': {
        const t0 = Date.now()
        // One step for the whole recovery: its started, success or failed events (and a validation error) share it.
        const step = newId('step')
        let s
        try {
          s = verifyState(deps.secret, r.signedState, t0)
        } catch (err) {
          frame = { stepId: step }
          run.reply(err)
          send([
            myagent.encodeSystem(
              ids(),
              'error.recovery_failed',
              'state recovery failed',
              { error_code: MYAGENT_ERROR.invalid_message.code, attempts: 1, original_error: 'disconnected', recovery_error: (err as Error).message },
              step,
            ),
          ])
          return
        }
        send([
          myagent.encodeSystem(
            ids(s.session_id),
            'error.recovery_started',
            'restoring the session from a signed state export',
            { recovery_action: 'reconnect_with_state' },
            step,
          ),
        ])
        let session: Session
        let restored: 'log' | 'export'
        try {
          session = await sessions.open(s.session_id, conn.principal, { create: false })
          restored = 'log'
          bind(session, Math.min(r.lastSeq, session.lastSeq))
        } catch (err) {
          if (!(err instanceof ParlanceError && err.code === 'not_found')) throw err
          // Not in this server's store (another node, or gone): rebuild it from the export.
          session = await sessions.open(s.session_id, conn.principal, { agent: sessions.agent(s.agent) ? s.agent : undefined })
          restored = 'export'
          bind(session, session.lastSeq)
          await session.handle({ type: 'history.replace', sessionId: session.id, messages: s.history })
          await session.handle({ type: 'state.replace', sessionId: session.id, state: s.state })
        }
        send([
          myagent.encodeSystem(
            ids(),
            'error.recovery_success',
            `session restored from the ${restored === 'log' ? 'event log' : 'signed export'}`,
            { recovery_time_ms: Date.now() - t0, attempts: 1, restored_from: restored, last_seq: session.lastSeq },
            step,
          ),
        ])
        return
      }
      case 'heartbeat':
        return
      case 'client_connected':
        // System events are bidirectional in the seed: the client's hello is acknowledged by accepting it.
        deps.log.debug({ conn: conn.id, clientConnectionId: r.connectionId }, 'MyAgent client sent system.connected')
        return
      case 'client_error': {
        const target = r.sessionId ?? bound?.session.id
        deps.log.warn(
          { conn: conn.id, sessionId: target, clientError: r.message, errorCode: r.errorCode, severity: r.severity },
          'MyAgent client reported an error',
        )
        if (target === undefined) return
        frame = { sessionId: target }
        const session = bound?.session.id === target ? bound.session : await sessions.open(target, conn.principal, { create: false })
        const value = { message: r.message, error_code: r.errorCode ?? null, severity: r.severity, connection_id: conn.id }
        await session.handle({ type: 'custom.record', sessionId: session.id, name: CLIENT_ERROR_EVENT, value })
        return
      }
    }
  }

  const run = serveSocket(conn, deps, {
    dialect: 'myagent',
    decode: (text) => myagent.decode(text, limits),
    handle: serve,
    error: (e) => {
      // The frame's session and step when it names them (else the connection's session, and a fresh step).
      const to = ids(frame.sessionId ?? sessionId)
      const out = myagent.encodeError(e, to, to.now, frame.stepId ?? newId('step'))
      frame = {}
      return out
    },
  })

  const heartbeat =
    limits.heartbeatMs > 0
      ? setInterval(() => {
          send([
            myagent.encodeSystem(
              ids(),
              'system.heartbeat',
              { server_time: new Date().toISOString() },
              { seq: bound?.session.lastSeq ?? 0, acked_seq: acked, server_uptime_seconds: uptime() },
            ),
          ])
        }, limits.heartbeatMs)
      : undefined
  heartbeat?.unref()

  conn.onframe = run.frame
  conn.onclose = () => {
    if (heartbeat) clearInterval(heartbeat)
    run.closed()
    if (bound)
      parked.park(bound.session.id, {
        principal: conn.principal,
        connectionId: conn.id,
        buffer: bound.buffer,
        view: bound.sub.subscriber.view as MyAgentView,
      })
    bound?.sub.close()
    bound = null
  }
  send([
    myagent.encodeSystem(
      ids(),
      'system.connected',
      { server_version: SERVER_VERSION, server_time: new Date().toISOString() },
      { server_uptime_seconds: uptime(), active_sessions: sessions.loadedCount },
    ),
  ])
  return {
    end(reason) {
      if (bound) send([myagent.encodeSystem(ids(), 'agent.session_ended', reason, { last_seq: bound.session.lastSeq, reason: 'server_shutdown' })])
    },
  }
}
