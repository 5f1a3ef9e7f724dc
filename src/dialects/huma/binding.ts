import { randomUUID } from 'node:crypto'
import { createAdapter } from '@socket.io/redis-streams-adapter'
import { ParlanceError, type Command } from '../../core/index.js'
import { attach, resumePoint, serveSocket, type Dialect, type Endpoint, type EndpointDeps } from '../../binding/index.js'
import type { Subscription } from '../../session/index.js'
import { SocketIoTransport, type SioConnection } from '../../transports/socketio.js'
import { capabilities } from './capabilities.js'
import { huma } from './codec.js'
import type { HumaSessionAnnouncement } from './wire.js'

/** Where HUMA is mounted (Socket.IO's default path). */
export const HUMA_PATH = '/socket.io/'

/** HUMA over Socket.IO at `/socket.io/`, attached to the server's own http server. */
export const humaDialect: Dialect = { name: 'huma', capabilities, mount: (deps) => humaEndpoint(deps) }

function humaEndpoint(deps: EndpointDeps): Endpoint {
  // Cluster mode: Socket.IO's own cross-node channel (broadcasts, fetchSockets) on the official Redis streams
  // adapter, with its own connection (it blocks on XREAD). Session events cross nodes through the session
  // layer, not through it.
  const adapterRedis = deps.cluster?.redis.duplicate()
  adapterRedis?.on('error', () => {})
  const keys = deps.cluster?.keys
  const transport = new SocketIoTransport(
    deps.http,
    {
      path: HUMA_PATH,
      hardMaxPayloadBytes: deps.limits.hardMaxPayloadBytes,
      maxOutboundBufferBytes: deps.limits.maxOutboundBufferBytes,
      authenticate: (req, token) => deps.authenticate(req, token),
      clientAddress: (req) => deps.clientAddress(req),
      ...(adapterRedis && keys
        ? {
            adapter: createAdapter(adapterRedis, {
              streamName: keys.socketIo,
              channelPrefix: keys.socketIo,
              sessionKeyPrefix: keys.socketIoSession,
              // Its reader blocks this long on XREAD; shorter lets a closing node release its connection soon.
              blockTimeInMs: 1000,
            }),
          }
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
  return { sessionId: sessionId ?? randomUUID(), ...(afterSeq !== undefined ? { afterSeq: afterSeq } : {}) }
}

/**
 * Serves one HUMA socket: binds it to its session on connect (subscribed from the active run's start, or after
 * `auth.afterSeq`), carries out 'message' events in arrival order for that session, and streams the session's
 * events back through the HUMA codec. The socket confirms message delivery, so the messaging addon waits for
 * its confirmations. Disconnecting detaches it; the run goes on and a reconnect with the same sessionId continues.
 */
export function serveHuma(conn: SioConnection, deps: Pick<EndpointDeps, 'sessions' | 'limits' | 'metrics' | 'log' | 'admission' | 'inflight'>): void {
  const { sessions, limits } = deps
  let sub: Subscription | null = null
  let sessionId: string | null = null

  const run = serveSocket(conn, deps, {
    dialect: 'huma',
    decode: (text) => huma.decode(text, limits),
    handle: async (decoded) => {
      if (sessionId === null) return // the handshake failed; the socket is closing
      const cmd = { ...decoded, sessionId } as Command
      // Re-opened per event: an idle session may have been unloaded and reloaded meanwhile.
      const session = await sessions.open(sessionId, conn.principal)
      await session.handle(cmd)
    },
    error: (e) => huma.encodeError(e, null),
  })

  const open = async (): Promise<void> => {
    const auth = humaAuth(conn.auth)
    if (auth instanceof ParlanceError) {
      run.reply(auth)
      return conn.close(4400, auth.message)
    }
    let session
    try {
      session = await sessions.open(auth.sessionId, conn.principal)
    } catch (err) {
      run.reply(err)
      return conn.close(4403, 'cannot open the session')
    }
    sessionId = session.id
    // Per-socket views start from the shared empty one, so sockets attached at rest share encodings.
    sub = attach(conn, session, auth.afterSeq ?? resumePoint(session), {
      encoder: huma,
      view: huma.emptyView,
      label: `huma:${conn.id}`,
      extra: { confirmsDelivery: true },
    })
    const announcement: HumaSessionAnnouncement = { sessionId: session.id, lastSeq: session.lastSeq }
    conn.send([{ channel: 'session', payload: announcement }])
  }

  conn.onevent = (channel, payload) => {
    if (channel !== 'message') {
      return run.enqueue(() =>
        run.reply(
          new ParlanceError('unknown_type', `unknown channel "${channel.slice(0, 64)}"; send client events on "message"`, { field: 'channel' }),
        ),
      )
    }
    if (sessionId === null) return run.enqueue(() => undefined) // the handshake failed; the socket is closing
    let text: string | undefined
    try {
      text = JSON.stringify(payload)
    } catch {
      text = undefined
    }
    if (text === undefined)
      return run.enqueue(() =>
        run.reply(new ParlanceError('invalid_message', 'a HUMA event must be a JSON object with a string "type"', { field: 'type' })),
      )
    run.frame(text)
  }
  conn.onclose = (why) => {
    deps.log.debug({ conn: conn.id, reason: why.reason, sessionId }, 'huma connection closed')
    run.closed()
    sub?.close()
    sub = null
  }
  run.enqueue(open)
}
