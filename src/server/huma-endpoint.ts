import { randomUUID } from 'node:crypto'
import { createAdapter } from '@socket.io/redis-streams-adapter'
import { ParlanceError, toParlanceError, type Command } from '../core/index.js'
import { huma, type HumaFrame, type HumaView } from '../dialects/huma/index.js'
import type { Session, Subscription } from '../session/index.js'
import type { ConfirmingSubscriber } from '../session/messaging.js'
import { SocketIoTransport, type SioConnection } from '../transports/socketio.js'
import type { Endpoint, EndpointDeps, EndpointFactory } from '../binding/endpoint.js'

/** Where HUMA is mounted (Socket.IO's default path). */
export const HUMA_PATH = '/socket.io/'

/** HUMA over Socket.IO at `/socket.io/`, attached to the server's own http server. */
export const humaEndpoint: EndpointFactory = (deps): Endpoint => {
  // Cluster mode: Socket.IO's own cross-node channel (broadcasts, fetchSockets) on the official Redis streams
  // adapter, with its own connection (it blocks on XREAD). Session events cross nodes through the session
  // layer, not through it.
  const adapterRedis = deps.cluster?.redis.duplicate()
  adapterRedis?.on('error', () => {})
  const prefix = deps.cluster?.prefix ?? ''
  const transport = new SocketIoTransport(
    deps.http,
    {
      path: HUMA_PATH,
      hardMaxPayloadBytes: deps.limits.hardMaxPayloadBytes,
      maxOutboundBufferBytes: deps.limits.maxOutboundBufferBytes,
      authenticate: (req, token) => deps.authenticate(req, token),
      ...(adapterRedis
        ? { adapter: createAdapter(adapterRedis, {
              streamName: `${prefix}socket.io`,
              channelPrefix: `${prefix}socket.io`,
              sessionKeyPrefix: `${prefix}sio:session:`,
              // Its reader blocks this long on XREAD; shorter lets a closing node release its connection soon.
              blockTimeInMs: 1000,
            }) }
        : {}),
    },
    (conn) => serveHuma(conn, deps),
  )
  return {
    dialect: 'huma',
    paths: { huma: HUMA_PATH },
    ownUpgradePaths: [HUMA_PATH],
    // engine.io's own 'upgrade' listener completes these; claiming them keeps the server from answering 404.
    upgrade: (_req, _socket, _head, url) => url.pathname.startsWith(HUMA_PATH),
    close: async () => {
      await transport.close()
      await adapterRedis?.quit().catch(() => adapterRedis.disconnect())
    },
  }
}

/** Handshake `auth` a HUMA client may send: `io(url, { auth: { sessionId, afterSeq } })`. */
export interface HumaAuth {
  /** The conversation to continue; a new UUID (announced on the 'session' channel) when absent. */
  sessionId: string
  /** Replay events after this seq; absent: from the start of the active run, if any. */
  afterSeq?: number
}

/** Reads the handshake auth; an error names the bad field. */
export function humaAuth(auth: Readonly<Record<string, unknown>>): HumaAuth | ParlanceError {
  const { sessionId, afterSeq } = auth
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId.length < 1 || sessionId.length > 256)) {
    return new ParlanceError('invalid_message', 'handshake auth "sessionId" must be a string of 1–256 characters', { field: 'auth.sessionId' })
  }
  if (afterSeq !== undefined && (typeof afterSeq !== 'number' || !Number.isSafeInteger(afterSeq) || afterSeq < 0)) {
    return new ParlanceError('invalid_message', 'handshake auth "afterSeq" must be a non-negative integer', { field: 'auth.afterSeq' })
  }
  return { sessionId: (sessionId as string | undefined) ?? randomUUID(), ...(afterSeq !== undefined ? { afterSeq: afterSeq as number } : {}) }
}

/**
 * Serves one HUMA socket: binds it to its session on connect (subscribed from
 * the active run's start, or after `auth.afterSeq`), decodes 'message' events
 * in arrival order into commands for that session, and streams the session's
 * events back through the HUMA encoder. The socket confirms message delivery,
 * so the messaging addon waits for its confirmations. Disconnecting detaches
 * it; the run goes on and a reconnect with the same sessionId continues.
 */
export function serveHuma(conn: SioConnection, deps: Pick<EndpointDeps, 'sessions' | 'limits' | 'metrics' | 'log' | 'admission'>): void {
  const { sessions, limits, metrics, log } = deps
  let sub: Subscription | null = null
  let sessionId: string | null = null
  let queue: Promise<void> = Promise.resolve()
  const admit = deps.admission(conn.principal)
  metrics.connections.inc({ dialect: 'huma' })

  const reply = (err: unknown): void => {
    const e = toParlanceError(err)
    if (e.code === 'internal') log.error({ err: e.cause ?? e, conn: conn.id }, 'internal error handling a HUMA event')
    metrics.inboundErrors.inc({ dialect: 'huma', code: e.code })
    conn.send([huma.encodeError(e, null)])
  }

  const open = async (): Promise<void> => {
    const auth = humaAuth(conn.auth)
    if (auth instanceof ParlanceError) {
      reply(auth)
      return conn.close(4400, auth.message)
    }
    let session: Session
    try {
      session = await sessions.open(auth.sessionId, conn.principal)
    } catch (err) {
      reply(err)
      return conn.close(4403, 'cannot open the session')
    }
    sessionId = session.id
    const view: HumaView = huma.view()
    const subscriber: ConfirmingSubscriber = {
      // Per socket: the view collects streamed text, so sockets do not share encodings.
      codecKey: `huma:${conn.id}`,
      confirmsDelivery: true,
      view: null,
      encoder: {
        // Per socket until the view is immutable (the key is the socket's own view object).
        encode(events) {
          const out: HumaFrame[] = []
          for (const e of events) for (const f of huma.encode(e, view)) out.push(f)
          return { frames: out, view: null }
        },
        shareKey: () => `huma:${conn.id}`,
      },
      write: (frames) => conn.send(frames as HumaFrame[]),
      backlog: () => conn.bufferedBytes,
      drop: (reason) => conn.close(4008, reason),
    }
    const runStart = session.activeRunStartSeq
    sub = session.subscribe(subscriber, auth.afterSeq ?? (runStart !== null ? runStart - 1 : session.lastSeq))
    conn.send([{ channel: 'session', payload: { sessionId: session.id, lastSeq: session.lastSeq } }])
  }

  const handle = async (channel: string, payload: unknown): Promise<void> => {
    if (channel !== 'message') {
      return reply(new ParlanceError('unknown_type', `unknown channel "${channel.slice(0, 64)}"; send client events on "message"`, { field: 'channel' }))
    }
    if (sessionId === null) return // the handshake failed; the socket is closing
    const refused = admit()
    if (refused) return reply(refused)
    let text: string | undefined
    try {
      text = JSON.stringify(payload)
    } catch {
      text = undefined
    }
    if (text === undefined) return reply(new ParlanceError('invalid_message', 'a HUMA event must be a JSON object with a string "type"', { field: 'type' }))
    const decoded = huma.decode(text, limits)
    if (!decoded.ok) return reply(decoded.error)
    try {
      const cmd = { ...decoded.command, sessionId } as Command
      // Re-opened per event: an idle session may have been unloaded and reloaded meanwhile.
      const session = await sessions.open(sessionId, conn.principal)
      await session.handle(cmd)
    } catch (err) {
      reply(err)
    }
  }

  conn.onevent = (channel, payload) => {
    queue = queue.then(() => handle(channel, payload)).catch(reply)
  }
  conn.onclose = (why) => {
    log.debug({ conn: conn.id, reason: why.reason, sessionId }, 'huma connection closed')
    metrics.connections.dec({ dialect: 'huma' })
    sub?.close()
    sub = null
  }
  queue = queue.then(open).catch(reply)
}
