import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, WebSocket, type RawData } from 'ws'
import { newId, type CloseReason, type Connection, type Principal } from '../core/index.js'
import { textFrames, type TextFrame } from './ws-frames.js'

/** Options of the WebSocket transport. */
export interface WsTransportOptions {
  /** Frames above this size make `ws` close the socket with 1009 (a hard ceiling above the dialect limit). */
  hardMaxPayloadBytes: number
  /** Outbound bytes buffered before a connection is dropped as a slow consumer (close 4008). */
  maxOutboundBufferBytes: number
  /**
   * Each socket is pinged once per interval to detect dead peers (ms); one that has not answered the previous
   * ping is dropped. 0 disables. @default 15000
   */
  heartbeatIntervalMs?: number
  /** The client address of an upgrade request. @default the socket's remote address */
  clientAddress?: (req: IncomingMessage) => string
  /** The subprotocol an upgrade is answered with, from those the client offered (`ws`'s `handleProtocols`). @default the first */
  handleProtocols?: (offered: Set<string>, req: IncomingMessage) => string | false
}

/** A frame the WebSocket transport writes: text, or text already converted to UTF-8 bytes (sent as a text frame). */
export type WsFrame = TextFrame

/** Heartbeat slots at most (a 15 s interval pings a sixtieth of the sockets every 250 ms)… */
const HEARTBEAT_SLOTS = 60
/** …and at most one tick per this many ms (a 1 s interval: 10 slots). */
const MIN_TICK_MS = 100

/** Send options for a Buffer that holds text. */
const TEXT = { binary: false } as const

/**
 * The one private member of `ws` we touch: its socket, to write a batch of frames framed here in one write.
 * Safe because the server disables permessage-deflate (so `ws` never queues frames while compressing) and
 * every write, ours or `ws`'s, is whole frames from this thread; `ws.bufferedAmount` counts the socket's
 * buffer, so flow control sees our bytes too.
 */
interface WithSocket {
  _socket?: { write(data: Buffer): boolean } | null
}

/**
 * WebSocket transport on `ws`: upgrades requests, exposes each socket as a
 * `Connection`, writes a batch of frames framed into one Buffer and one write, drops slow
 * consumers and pings to find dead peers. Knows nothing about agents.
 */
export class WsTransport {
  private readonly wss: WebSocketServer
  private readonly heartbeat: NodeJS.Timeout | undefined
  private readonly alive = new WeakSet<WebSocket>()
  /**
   * Sockets by heartbeat slot. A tick pings one slot, so each interval pings every socket once, spread over it:
   * pinging 10,000 sockets at once stalled every stream for ~150 ms per interval (a syscall each).
   */
  private readonly slots: Array<Set<WebSocket>> = []
  /** Slot the next socket joins (round robin, so slots stay even), and slot the next tick pings. */
  private nextSlot = 0
  private tickSlot = 0

  constructor(private readonly options: WsTransportOptions) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.hardMaxPayloadBytes,
      perMessageDeflate: false,
      ...(options.handleProtocols ? { handleProtocols: options.handleProtocols } : {}),
    })
    const interval = options.heartbeatIntervalMs ?? 15_000
    if (interval > 0) {
      const n = Math.max(1, Math.min(HEARTBEAT_SLOTS, Math.floor(interval / MIN_TICK_MS)))
      for (let i = 0; i < n; i++) this.slots.push(new Set())
      this.heartbeat = setInterval(() => this.pingSlot(), interval / n)
      this.heartbeat.unref()
    }
  }

  /** Pings the sockets of the slot whose turn it is; drops those that did not answer its previous ping. */
  private pingSlot(): void {
    const slot = this.slots[this.tickSlot]!
    this.tickSlot = (this.tickSlot + 1) % this.slots.length
    for (const ws of slot) {
      if (!this.alive.has(ws)) {
        slot.delete(ws)
        ws.terminate()
        continue
      }
      this.alive.delete(ws)
      ws.ping()
    }
  }

  /** Completes an upgrade and hands the new connection over. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, principal: Principal, onConnection: (conn: Connection<WsFrame>) => void): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      if (this.slots.length > 0) {
        const slot = this.slots[this.nextSlot]!
        this.nextSlot = (this.nextSlot + 1) % this.slots.length
        slot.add(ws)
        this.alive.add(ws)
        ws.on('pong', () => this.alive.add(ws))
        ws.once('close', () => slot.delete(ws))
      }
      onConnection(this.wrap(ws, principal, this.options.clientAddress?.(req) ?? req.socket.remoteAddress ?? ''))
    })
  }

  /** Completes an upgrade only to close it at once with `code` and `reason` (e.g. 4401 unauthorized), so browsers see why. */
  refuse(req: IncomingMessage, socket: Duplex, head: Buffer, code: number, reason: string): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => ws.close(code, reason))
  }

  /** Number of open sockets. */
  get size(): number {
    return this.wss.clients.size
  }

  /** Closes every socket with `code` and stops the heartbeat. */
  close(code = 1001, reason = 'server shutting down'): void {
    if (this.heartbeat) clearInterval(this.heartbeat)
    for (const ws of this.wss.clients) ws.close(code, reason)
    this.wss.close()
  }

  /**
   * The last batch framed, by identity: a session's subscribers with equal views are sent the very same frames
   * array one after another (see `EncodeCache`), so a batch fanned out to many sockets is framed once.
   */
  private lastFrames: readonly WsFrame[] | null = null
  private lastBytes: Buffer | null = null

  /** `frames` framed into one Buffer (the last batch's, when it is the same array); one function for every connection. */
  private readonly framed = (frames: readonly WsFrame[]): Buffer => {
    if (frames !== this.lastFrames) {
      this.lastBytes = textFrames(frames)
      this.lastFrames = frames
    }
    return this.lastBytes!
  }

  private wrap(ws: WebSocket, principal: Principal, remoteAddress: string): Connection<WsFrame> {
    const maxBuffered = this.options.maxOutboundBufferBytes
    const framed = this.framed
    const conn: Connection<WsFrame> = {
      id: newId('conn'),
      principal,
      remoteAddress,
      send(frames) {
        if (ws.readyState !== WebSocket.OPEN) return false
        if (ws.bufferedAmount > maxBuffered) {
          ws.close(4008, `slow consumer: more than ${maxBuffered} bytes unread; reconnect and resume from your last seq`)
          return false
        }
        const sock = (ws as unknown as WithSocket)._socket
        if (sock) sock.write(framed(frames))
        else for (const f of frames) ws.send(f, TEXT)
        return true
      },
      get bufferedBytes() {
        return ws.bufferedAmount
      },
      close(code, reason) {
        ws.close(code, reason)
      },
    }
    ws.on('message', (data: RawData, isBinary: boolean) => {
      conn.onframe?.(toText(data, isBinary))
    })
    ws.on('close', (code: number, reason: Buffer) => {
      const r: CloseReason = { code, reason: reason.toString() }
      conn.onclose?.(r)
    })
    ws.on('error', () => {
      // 'close' follows; errors such as 1009 (payload over the hard ceiling) are reported there
    })
    return conn
  }
}

function toText(data: RawData, _isBinary: boolean): string {
  if (typeof data === 'string') return data
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8')
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8')
  return data.toString('utf8')
}
