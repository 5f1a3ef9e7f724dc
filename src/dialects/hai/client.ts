import { Inbox, openClient, socketUrl, type SocketCtor, type SocketLike } from '../../client/socket.js'
import type { WireTap } from '../../client/tap.js'
import type { HaiClientMessage, HaiServerMessage } from './wire.js'

export type { HaiClientMessage, HaiServerMessage }

/** Options of `HaiClient.connect`. */
export interface HaiClientOptions {
  /** Server base URL (`http://127.0.0.1:8000`) or the full `ws://…/ws` URL. */
  url: string
  /** Conversation id; a new UUID when absent. */
  sessionId?: string
  /** Attach to the session on connect and replay events after this seq (-1: from the active run's start). */
  resumeAfter?: number
  /** With resumeAfter: send the past assistant messages first. */
  history?: boolean
  /** WebSocket implementation; defaults to the global one, else the `ws` package. */
  WebSocket?: SocketCtor
  /** Bearer token for a server started with auth: `Authorization` under Node, the `parlance.bearer` subprotocol in a browser. */
  token?: string
  /** Sees every frame sent and received (parsed JSON). */
  tap?: WireTap
}

/** A typed HAI client: send user messages and answers, read the server's messages in order. */
export class HaiClient {
  private readonly inbox = new Inbox<HaiServerMessage>()
  /** Everything received, in order. */
  readonly received: HaiServerMessage[] = this.inbox.items
  /** Highest seq seen (resume from here after a disconnect). */
  lastSeq = 0
  /** Called for each message as it arrives. */
  onmessage?: (m: HaiServerMessage) => void
  /** Sees every frame sent and received; set by `connect` from the options. */
  tap?: WireTap
  /** Resolves when the socket closes. */
  readonly closed: Promise<{ code: number; reason: string }>

  private constructor(
    private readonly socket: SocketLike,
    readonly sessionId: string,
  ) {
    this.closed = new Promise((resolve) => {
      socket.onclose = (ev) => {
        resolve({ code: ev.code, reason: String(ev.reason) })
        this.inbox.wake()
      }
    })
    socket.onmessage = (ev) => {
      const m = JSON.parse(String(ev.data)) as HaiServerMessage
      if (typeof m.seq === 'number' && m.seq > this.lastSeq) this.lastSeq = m.seq
      this.tap?.('in', m)
      this.onmessage?.(m)
      this.inbox.push(m)
    }
  }

  /** Opens a connection. */
  static async connect(options: HaiClientOptions): Promise<HaiClient> {
    const sessionId = options.sessionId ?? globalThis.crypto.randomUUID()
    const url = socketUrl(options.url, '/ws')
    if (options.resumeAfter !== undefined) {
      url.searchParams.set('session_id', sessionId)
      if (options.resumeAfter >= 0) url.searchParams.set('after', String(options.resumeAfter))
      if (options.history) url.searchParams.set('history', '1')
    }
    return openClient(options, url, (socket) => new HaiClient(socket, sessionId))
  }

  /** Sends any JSON message as is (for protocol tests). */
  sendRaw(data: string | Record<string, unknown>): void {
    this.tap?.('out', data)
    this.socket.send(typeof data === 'string' ? data : JSON.stringify(data))
  }

  /** Sends a user message in this client's session. */
  say(content: string, metadata?: Record<string, unknown>): void {
    this.sendRaw({ type: 'user_message', content, session_id: this.sessionId, ...(metadata ? { metadata } : {}) })
  }

  /** Answers a tool approval request. */
  approve(approvalId: string, approved: boolean, feedback?: string): void {
    this.sendRaw({ type: 'tool_approval_response', approval_id: approvalId, approved, ...(feedback ? { feedback } : {}) })
  }

  /** Returns a client-side tool's result (Parlance extension `tool_result`). */
  toolResult(toolCallId: string, outcome: { result: unknown } | { error: string }): void {
    this.sendRaw({ type: 'tool_result', tool_call_id: toolCallId, session_id: this.sessionId, ...outcome })
  }

  /** Answers user message `messageId` (default: the last one) again (Parlance extension `regenerate`). */
  regenerate(messageId?: string, metadata?: Record<string, unknown>): void {
    this.sendRaw({
      type: 'regenerate',
      session_id: this.sessionId,
      ...(messageId ? { message_id: messageId } : {}),
      ...(metadata ? { metadata } : {}),
    })
  }

  /**
   * Stops the active run (Parlance extension `cancel`). With `messageId` (one given as `metadata.message_id`):
   * withdraws that message while it is queued, or stops the run answering it.
   */
  cancel(messageId?: string): void {
    this.sendRaw({ type: 'cancel', session_id: this.sessionId, ...(messageId ? { message_id: messageId } : {}) })
  }

  /**
   * Resolves with the next message (after those already returned by `next`)
   * that matches; rejects when the socket closes or `timeoutMs` passes first.
   */
  async next<T extends HaiServerMessage['type']>(
    type: T | ((m: HaiServerMessage) => boolean),
    timeoutMs = 10_000,
  ): Promise<Extract<HaiServerMessage, { type: T }>> {
    const match = typeof type === 'function' ? type : (m: HaiServerMessage) => m.type === type
    const what = typeof type === 'string' ? type : 'a matching message'
    return (await this.inbox.next(match, timeoutMs, () => this.socket.readyState >= 2, what)) as Extract<HaiServerMessage, { type: T }>
  }

  /** Waits for the end of the current run (`status: completed`) and returns the messages up to it. */
  async untilCompleted(timeoutMs = 10_000): Promise<HaiServerMessage[]> {
    const from = this.inbox.position
    await this.next((m) => m.type === 'status' && m.status === 'completed', timeoutMs)
    return this.received.slice(from, this.inbox.position)
  }

  close(code = 1000, reason = 'bye'): void {
    this.socket.close(code, reason)
  }
}

/** Concatenates the chunks of one assistant message. */
export function textOf(messages: readonly HaiServerMessage[], messageId?: string): string {
  let out = ''
  for (const m of messages) {
    if (m.type === 'assistant_message_chunk' && (messageId === undefined || m.message_id === messageId)) out += m.content
  }
  return out
}
