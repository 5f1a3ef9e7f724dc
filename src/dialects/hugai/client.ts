import { Inbox, openClient, socketUrl, type SocketCtor, type SocketLike } from '../../client/socket.js'
import type { WireTap } from '../../client/tap.js'
import type { HugaiNotification } from './wire.js'

/** A JSON-RPC error from the hub, with its code and data. */
export class RpcError extends Error {
  override readonly name = 'RpcError'
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

/** A notification the hub sent (`event` with task-progress, checkpoint, tool-result …). */
export type RpcNotification = HugaiNotification

/** Options of `HugaiClient.connect`. */
export interface HugaiClientOptions {
  /** Server base URL (`http://127.0.0.1:8000`) or the full `ws://…/rpc` URL. */
  url: string
  token?: string
  WebSocket?: SocketCtor
  /** Sees every message sent and received (parsed JSON). */
  tap?: WireTap
}

/**
 * A thin JSON-RPC 2.0 client for the HugAI hub over WebSocket: calls methods,
 * sends notifications, answers requests the hub sends (a registered agent
 * receives `agent/request` this way) and keeps the notifications it gets.
 */
export class HugaiClient {
  private readonly inbox = new Inbox<RpcNotification>()
  private readonly rawInbox = new Inbox<unknown>()
  /** Every notification received, in order. */
  readonly notifications: RpcNotification[] = this.inbox.items
  /** Messages that answer no call of this client: batch answers, responses to `sendRaw`, errors with id null. */
  readonly raw: unknown[] = this.rawInbox.items
  private nextId = 0
  private readonly pending = new Map<string | number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
  private readonly handlers = new Map<string, (params: unknown) => unknown>()
  /** Sees every message sent and received; set by `connect` from the options. */
  tap?: WireTap

  private constructor(private readonly socket: SocketLike) {
    socket.onmessage = (ev) => {
      const msg = JSON.parse(String(ev.data)) as unknown
      this.tap?.('in', msg)
      this.receive(msg)
    }
    socket.onclose = () => {
      for (const p of this.pending.values()) p.reject(new Error('connection closed'))
      this.pending.clear()
      this.inbox.wake()
      this.rawInbox.wake()
    }
  }

  /** Opens a WebSocket to the hub's `/rpc` (call `initialize` next). */
  static async connect(options: HugaiClientOptions): Promise<HugaiClient> {
    return openClient(options, socketUrl(options.url, '/rpc'), (socket) => new HugaiClient(socket))
  }

  /** Calls a method; rejects with RpcError on an error response. */
  call<T = unknown>(method: string, params?: unknown): Promise<T> {
    const id = ++this.nextId
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject })
      this.sendRaw({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) })
    })
  }

  /** Sends a notification (never answered). */
  notify(method: string, params?: unknown): void {
    this.sendRaw({ jsonrpc: '2.0', method, ...(params !== undefined ? { params } : {}) })
  }

  /** Answers requests the hub sends for `method` (return a result, or throw an RpcError). */
  handle(method: string, fn: (params: unknown) => unknown): void {
    this.handlers.set(method, fn)
  }

  /** Sends a message as is (a string is sent verbatim): batches, bad input. Answers land in `raw`. */
  sendRaw(msg: unknown): void {
    this.tap?.('out', msg)
    this.socket.send(typeof msg === 'string' ? msg : JSON.stringify(msg))
  }

  /** The next notification (after those already returned) matching `pred`. */
  async nextNotification(pred: (n: RpcNotification) => boolean, timeoutMs = 10_000): Promise<RpcNotification> {
    return this.inbox.next(pred, timeoutMs, () => this.socket.readyState >= 2, 'a notification')
  }

  /** The next raw message (after those already returned) matching `pred`. */
  async nextRaw(pred: (m: unknown) => boolean = () => true, timeoutMs = 10_000): Promise<unknown> {
    return this.rawInbox.next(pred, timeoutMs, () => this.socket.readyState >= 2, 'a message')
  }

  close(): void {
    this.socket.close(1000, 'bye')
  }

  private receive(msg: unknown): void {
    if (Array.isArray(msg)) return void this.rawInbox.push(msg)
    const m = msg as {
      id?: string | number | null
      method?: string
      params?: unknown
      result?: unknown
      error?: { code: number; message: string; data?: unknown }
    }
    if (typeof m.method === 'string') {
      if (m.id === undefined) this.inbox.push({ method: m.method, params: (m.params ?? {}) as RpcNotification['params'] })
      else void this.serve(m.id, m.method, m.params)
      return
    }
    const p = m.id !== undefined && m.id !== null ? this.pending.get(m.id) : undefined
    if (!p) return void this.rawInbox.push(msg)
    this.pending.delete(m.id!)
    if (m.error) p.reject(new RpcError(m.error.code, m.error.message, m.error.data))
    else p.resolve(m.result)
  }

  private async serve(id: string | number | null, method: string, params: unknown): Promise<void> {
    const fn = this.handlers.get(method)
    if (!fn) return this.sendRaw({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } })
    try {
      this.sendRaw({ jsonrpc: '2.0', id, result: (await fn(params)) ?? null })
    } catch (err) {
      const e = err instanceof RpcError ? err : new RpcError(-32603, (err as Error).message)
      this.sendRaw({ jsonrpc: '2.0', id, error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } })
    }
  }
}
