import type { IncomingMessage, Server as HttpServer } from 'node:http'
import { Server, type ServerOptions, type Socket } from 'socket.io'
import { WebSocket } from 'ws'
import { newId, type CloseReason, type Connection, type Principal } from '../core/index.js'

/** What a Socket.IO connection writes: one emit on `channel`. */
export interface SioFrame {
  readonly channel: string
  readonly payload: unknown
}

/** A Socket.IO socket as a `Connection`, plus what only Socket.IO has: channels and the handshake's `auth`. */
export interface SioConnection extends Connection<SioFrame> {
  /** The client's handshake `auth` object (`io(url, { auth })`); {} when it sent none. */
  readonly auth: Readonly<Record<string, unknown>>
  /** Each event the client emits: its channel name and first argument. */
  onevent?: (channel: string, payload: unknown) => void
}

/** Options of the Socket.IO transport. */
export interface SocketIoTransportOptions {
  /** Mount path. @default '/socket.io/' */
  path?: string
  /** Largest inbound packet; engine.io closes the connection above it (bytes). */
  hardMaxPayloadBytes: number
  /** Outbound bytes buffered for a socket before it is dropped as a slow consumer. */
  maxOutboundBufferBytes: number
  /**
   * Checks a handshake: `token` is `auth.token` from `io(url, { auth: { token } })`, else the request's bearer
   * header. Null refuses the connection (the client gets `connect_error` with message 'unauthorized').
   */
  authenticate(req: IncomingMessage, token: string | null): Promise<Principal | null>
  /** The client address of a handshake request. @default the socket's remote address */
  clientAddress?: (req: IncomingMessage) => string
  /** A Socket.IO adapter factory (cluster mode: the Redis streams adapter, so broadcasts reach every node). */
  adapter?: ServerOptions['adapter']
}

/** The structural part of engine.io's websocket transport we read: the `ws` socket's unsent bytes. */
interface EngineConn {
  transport?: { socket?: { bufferedAmount?: number } }
}

/** One frame as engine.io writes it: Socket.IO's encoded packet(s), and the WebSocket frame built once from them. */
interface PreEncoded {
  readonly packets: readonly (string | Buffer)[]
  readonly opts: { preEncoded: true; wsPreEncodedFrame?: Buffer[] }
}

/** The part of Socket.IO's `Client` that writes packets already encoded (its broadcast path, `{ preEncoded: true }`). */
interface PacketWriter {
  _packet(packets: readonly (string | Buffer)[], opts: PreEncoded['opts']): void
}

/** socket.io-parser's EVENT packet type, what `socket.emit` sends (the parser is Socket.IO's dependency, not ours). */
const EVENT = 2 as Parameters<Server['encoder']['encode']>[0]['type']

/** `ws`'s static frame builder (untyped in @types/ws), which Socket.IO's in-memory adapter uses for the same purpose. */
const frameOf = (
  WebSocket as unknown as {
    Sender?: { frame?: (data: Buffer, o: { readOnly: boolean; mask: boolean; rsv1: boolean; opcode: number; fin: boolean }) => Buffer[] }
  }
).Sender?.frame

/**
 * Socket.IO transport: attaches a Socket.IO server to an existing node:http
 * server (engine.io wraps the request listener and adds its own 'upgrade'
 * listener for its path; other upgrades are left alone) and exposes each
 * socket as a `SioConnection`. Knows nothing about agents.
 */
export class SocketIoTransport {
  readonly path: string
  private readonly io: Server
  /**
   * Each frame object's encoding. Subscribers that share an encoding (src/session/subscription.ts) write the same
   * frame objects to every socket, so a frame is serialized once per broadcast, not once per socket, as Socket.IO's
   * adapter does for `io.to(room).emit`.
   */
  private readonly encoded = new WeakMap<SioFrame, PreEncoded>()

  constructor(
    http: HttpServer,
    private readonly options: SocketIoTransportOptions,
    onConnection: (conn: SioConnection) => void,
  ) {
    this.path = options.path ?? '/socket.io/'
    this.io = new Server(http, {
      path: this.path,
      serveClient: false,
      destroyUpgrade: false,
      maxHttpBufferSize: options.hardMaxPayloadBytes,
      ...(options.adapter ? { adapter: options.adapter } : {}),
    })
    const principals = new WeakMap<Socket, Principal>()
    this.io.use((socket, next) => {
      const t = (socket.handshake.auth as Record<string, unknown> | undefined)?.token
      const header = /^Bearer\s+(\S+)\s*$/i.exec(socket.request.headers.authorization ?? '')?.[1]
      options.authenticate(socket.request, typeof t === 'string' && t ? t : (header ?? null)).then(
        (p) => {
          if (p === null)
            return next(Object.assign(new Error('unauthorized'), { data: { code: 'UNAUTHORIZED', message: 'missing or invalid token' } }))
          principals.set(socket, p)
          next()
        },
        (err: unknown) => next(err instanceof Error ? err : new Error(String(err))),
      )
    })
    this.io.on('connection', (socket) => onConnection(this.wrap(socket, principals.get(socket)!)))
  }

  /** Number of connected sockets. */
  get size(): number {
    return this.io.of('/').sockets.size
  }

  /** Disconnects every socket and closes the engine; the http server is left to its owner (`io.close()` would close it). */
  async close(): Promise<void> {
    this.io.disconnectSockets(true)
    this.io.engine.close()
    // A cluster adapter (Redis streams) stops polling and heartbeats; the in-memory default has nothing to close.
    await this.io.of('/').adapter.close()
  }

  private wrap(socket: Socket, principal: Principal): SioConnection {
    const options = this.options
    const encoded = this.encoded
    const encoder = this.io.encoder
    /** Encodes `f` as `socket.emit(f.channel, f.payload)` would, and keeps it for the other sockets it goes to. */
    const encode = (f: SioFrame): PreEncoded => {
      const packets = encoder.encode({ type: EVENT, nsp: '/', data: [f.channel, f.payload] }) as (string | Buffer)[]
      const only = packets.length === 1 ? packets[0] : undefined
      // "4" is engine.io's message packet type: the whole WebSocket frame engine.io would build for this packet.
      const wsPreEncodedFrame =
        typeof only === 'string' && frameOf
          ? frameOf(Buffer.from(`4${only}`), { readOnly: false, mask: false, rsv1: false, opcode: 1, fin: true })
          : undefined
      const pre: PreEncoded = { packets, opts: wsPreEncodedFrame ? { preEncoded: true, wsPreEncodedFrame } : { preEncoded: true } }
      encoded.set(f, pre)
      return pre
    }
    const auth = typeof socket.handshake.auth === 'object' && socket.handshake.auth !== null ? (socket.handshake.auth as Record<string, unknown>) : {}
    const backlog = () => (socket.conn as unknown as EngineConn).transport?.socket?.bufferedAmount ?? 0
    const conn: SioConnection = {
      id: newId('conn'),
      principal,
      remoteAddress: this.options.clientAddress?.(socket.request) ?? socket.request.socket.remoteAddress ?? '',
      auth,
      send(frames) {
        if (!socket.connected) return false
        if (backlog() > options.maxOutboundBufferBytes) {
          socket.disconnect(true)
          return false
        }
        const client = socket.client as unknown as PacketWriter
        for (const f of frames) {
          const pre = encoded.get(f) ?? encode(f)
          client._packet(pre.packets, pre.opts)
        }
        return true
      },
      get bufferedBytes() {
        return backlog()
      },
      close() {
        socket.disconnect(true)
      },
    }
    socket.onAny((channel: string, payload: unknown) => conn.onevent?.(channel, payload))
    socket.on('disconnect', (reason) => {
      const r: CloseReason = { code: 1000, reason: String(reason) }
      conn.onclose?.(r)
    })
    return conn
  }
}
