import { io, type Socket } from 'socket.io-client'
import { Inbox } from '../../client/socket.js'
import type { WireTap } from '../../client/tap.js'
import type { HumaErrorEvent, HumaServerEvent, HumaSessionAnnouncement } from './wire.js'

export type { HumaErrorEvent, HumaServerEvent }

/** Options of `HumaClient.connect`. */
export interface HumaClientOptions {
  /** Server base URL (`http://127.0.0.1:8000`). */
  url: string
  /** Session to continue; the server picks one when absent (read it from `sessionId`). */
  sessionId?: string
  /** Replay events after this seq on connect (a reconnect that saw up to `lastSeq`). */
  afterSeq?: number
  /** Bearer token for a server started with auth (sent as handshake `auth.token`). */
  token?: string
  /**
   * Answer each `message_sent` with a delivery confirmation: true (success), or a function returning the
   * addon `data` to send (null: send nothing, to test timeouts). @default true
   */
  confirm?: boolean | ((e: Extract<HumaServerEvent, { type: 'messaging' }>) => Record<string, unknown> | null)
  /** Sees every emit (`{channel, payload}`) and everything received on any channel, the handshake's `session` included. */
  tap?: WireTap
}

/** A typed HUMA client over socket.io-client: emits client events, reads server events in order. */
export class HumaClient {
  private readonly events = new Inbox<HumaServerEvent>()
  private readonly errorInbox = new Inbox<HumaErrorEvent>()
  /** Every 'event' received, in order. */
  readonly received: HumaServerEvent[] = this.events.items
  /** Every 'error' received, in order. */
  readonly errors: HumaErrorEvent[] = this.errorInbox.items
  /** Highest seq seen (pass as `afterSeq` to resume). */
  lastSeq = 0
  /** Sees every frame sent and received; set by `connect` from the options. */
  tap?: WireTap

  private constructor(
    readonly socket: Socket,
    readonly sessionId: string,
  ) {}

  /** Connects and resolves once the server has bound the socket to its session. */
  static connect(options: HumaClientOptions): Promise<HumaClient> {
    const auth: Record<string, unknown> = {}
    if (options.sessionId !== undefined) auth.sessionId = options.sessionId
    if (options.afterSeq !== undefined) auth.afterSeq = options.afterSeq
    if (options.token !== undefined) auth.token = options.token
    const socket = io(options.url, { auth, transports: ['websocket'], reconnection: false, forceNew: true })
    const early: Array<[string, unknown]> = []
    socket.onAny((ch: string, p: unknown) => {
      options.tap?.('in', { channel: ch, payload: p })
      early.push([ch, p])
    })
    return new Promise((resolve, reject) => {
      socket.once('connect_error', (err) => reject(err))
      socket.once('session', (s: HumaSessionAnnouncement) => {
        const client = new HumaClient(socket, s.sessionId)
        client.tap = options.tap
        socket.offAny()
        client.listen(options.confirm ?? true)
        for (const [ch, p] of early) if (ch !== 'session') client.take(ch, p)
        resolve(client)
      })
      socket.once('error', (e: HumaErrorEvent) => reject(new Error(e.message)))
    })
  }

  /** Emits any payload on any channel as is (for protocol tests). */
  sendRaw(channel: string, payload: unknown): void {
    this.tap?.('out', { channel, payload })
    this.socket.emit(channel, payload)
  }

  /** Sends a context-update. */
  contextUpdate(description: string, opts: { triggering?: boolean; name?: string; context?: Record<string, unknown> } = {}): void {
    this.sendRaw('message', {
      type: 'context-update',
      triggering: opts.triggering ?? true,
      name: opts.name ?? 'new-message',
      context: opts.context ?? {},
      description,
    })
  }

  /** Sends a tool-result for a tool-call. */
  toolResult(
    call: { toolCallId: string; toolName: string },
    outcome: { result: unknown } | { error: string } | 'canceled',
    triggering = outcome !== 'canceled',
  ): void {
    const body =
      outcome === 'canceled'
        ? { outcome }
        : 'error' in outcome
          ? { outcome: 'failure', error: outcome.error }
          : { outcome: 'success', result: outcome.result }
    this.sendRaw('message', { type: 'tool-result', triggering, toolCallId: call.toolCallId, toolName: call.toolName, ...body })
  }

  /** Sends an addon-tool-event. */
  addonEvent(toolCallId: string, data: Record<string, unknown>): void {
    this.sendRaw('message', { type: 'addon-tool-event', toolCallId, data })
  }

  /** Resolves with the next 'event' (after those already returned) that matches; rejects on disconnect or timeout. */
  next<T extends HumaServerEvent['type']>(
    type: T | ((e: HumaServerEvent) => boolean),
    timeoutMs = 10_000,
  ): Promise<Extract<HumaServerEvent, { type: T }>> {
    const match = typeof type === 'function' ? type : (e: HumaServerEvent) => e.type === type
    return this.events.next(match, timeoutMs, () => !this.socket.connected, typeof type === 'string' ? type : 'a matching event') as Promise<
      Extract<HumaServerEvent, { type: T }>
    >
  }

  /** Resolves with the next messaging event of kind `event`. */
  nextMessaging(event: 'typing_start' | 'message_sent' | 'typing_end', timeoutMs?: number): Promise<Extract<HumaServerEvent, { type: 'messaging' }>> {
    return this.next((e) => e.type === 'messaging' && e.event === event, timeoutMs) as Promise<Extract<HumaServerEvent, { type: 'messaging' }>>
  }

  /** Resolves with the next 'error' event. */
  nextError(timeoutMs = 10_000): Promise<HumaErrorEvent> {
    return this.errorInbox.next(
      () => true,
      timeoutMs,
      () => !this.socket.connected,
      'an error',
    )
  }

  close(): void {
    this.socket.disconnect()
    this.wake()
  }

  private listen(confirm: NonNullable<HumaClientOptions['confirm']>): void {
    this.socket.onAny((ch: string, p: unknown) => {
      this.tap?.('in', { channel: ch, payload: p })
      this.take(ch, p)
    })
    this.socket.on('disconnect', () => this.wake())
    this.confirm = confirm
  }

  private confirm: NonNullable<HumaClientOptions['confirm']> = true

  private take(channel: string, payload: unknown): void {
    if (channel === 'error') this.errorInbox.push(payload as HumaErrorEvent)
    else if (channel === 'event') {
      const e = payload as HumaServerEvent
      if (typeof e.seq === 'number' && e.seq > this.lastSeq) this.lastSeq = e.seq
      this.events.push(e)
      if (e.type === 'messaging' && e.event === 'message_sent' && e.toolCallId && this.confirm !== false) {
        const data = this.confirm === true ? { messageIndex: e.messageIndex, success: true } : this.confirm(e)
        if (data) this.addonEvent(e.toolCallId, data)
      }
    }
  }

  private wake(): void {
    this.events.wake()
    this.errorInbox.wake()
  }
}
