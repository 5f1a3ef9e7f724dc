import { Inbox, openClient, socketUrl, type SocketCtor, type SocketLike } from '../../client/socket.js'
import type { WireTap } from '../../client/tap.js'
import type { MyAgentServerEvent, MyAgentServerEventName, MyAgentServerEventOf } from './wire.js'

export type { MyAgentServerEvent, MyAgentServerEventName, MyAgentServerEventOf }

/** Options of `MyAgentClient.connect`. */
export interface MyAgentClientOptions {
  /** Server base URL (`http://127.0.0.1:8000`) or the full `ws://…/myagent` URL. */
  url: string
  /** Bearer token for a server started with auth: `Authorization` under Node, the `parlance.bearer` subprotocol in a browser. */
  token?: string
  WebSocket?: SocketCtor
  /** Sees every frame sent and received (parsed JSON). */
  tap?: WireTap
}

/** A thin typed MyAgent client: sends user.* events, reads server events in order, tracks `last_seq`. */
export class MyAgentClient {
  private readonly inbox = new Inbox<MyAgentServerEvent>()
  readonly received: MyAgentServerEvent[] = this.inbox.items
  /** Highest `metadata.seq` seen: what `reconnect` and `ack` send. */
  lastSeq = 0
  sessionId: string | undefined
  connectionId = ''
  /** Sees every frame sent and received; set by `connect` from the options. */
  tap?: WireTap
  readonly closed: Promise<{ code: number; reason: string }>

  private constructor(private readonly socket: SocketLike) {
    this.closed = new Promise((resolve) => {
      socket.onclose = (ev) => {
        resolve({ code: ev.code, reason: String(ev.reason) })
        this.inbox.wake()
      }
    })
    socket.onmessage = (ev) => {
      const e = JSON.parse(String(ev.data)) as MyAgentServerEvent
      if (typeof e.metadata?.seq === 'number' && e.metadata.seq > this.lastSeq) this.lastSeq = e.metadata.seq
      if (e.event === 'system.connected') this.connectionId = e.connection_id
      if (e.event === 'agent.session_created') this.sessionId = e.session_id
      this.tap?.('in', e)
      this.inbox.push(e)
    }
  }

  /** Connects and waits for `system.connected`. */
  static async connect(options: MyAgentClientOptions): Promise<MyAgentClient> {
    const client = await openClient(options, socketUrl(options.url, '/myagent'), (socket) => new MyAgentClient(socket))
    await client.next('system.connected')
    return client
  }

  /** Sends any event as is (an object is sent as JSON, a string verbatim). */
  send(event: Record<string, unknown> | string): void {
    this.tap?.('out', event)
    this.socket.send(typeof event === 'string' ? event : JSON.stringify(event))
  }

  /** `user.create_session`; resolves with the new session id. */
  async createSession(content: Record<string, unknown> = {}): Promise<string> {
    this.send({ event: 'user.create_session', content })
    return (await this.next('agent.session_created')).session_id!
  }

  message(content: string, sessionId = this.sessionId, metadata?: Record<string, unknown>): void {
    this.send({ event: 'user.message', session_id: sessionId, content, timestamp: new Date().toISOString(), ...(metadata ? { metadata } : {}) })
  }

  /** `user.regenerate` (extension): answer user message `messageId` (default: the last one) again. */
  regenerate(messageId?: string, metadata?: Record<string, unknown>): void {
    this.send({
      event: 'user.regenerate',
      session_id: this.sessionId,
      content: messageId ? { message_id: messageId } : {},
      ...(metadata ? { metadata } : {}),
    })
  }

  respond(stepId: string, approved: boolean, feedback?: string): void {
    this.send({ event: 'user.response', session_id: this.sessionId, step_id: stepId, content: { approved, ...(feedback ? { feedback } : {}) } })
  }

  /** `user.cancel`; with `messageId` (one given as `metadata.message_id`): withdraws it while queued, or stops the run answering it. */
  cancel(reason?: string, messageId?: string): void {
    this.send({
      event: 'user.cancel',
      session_id: this.sessionId,
      content: { ...(reason ? { reason } : {}), ...(messageId ? { message_id: messageId } : {}) },
    })
  }

  ack(lastSeq = this.lastSeq): void {
    this.send({ event: 'user.ack', session_id: this.sessionId, content: { last_seq: lastSeq } })
  }

  reconnect(sessionId: string, lastSeq?: number): void {
    this.sessionId = sessionId
    this.send({ event: 'user.reconnect', content: { session_id: sessionId, ...(lastSeq !== undefined ? { last_seq: lastSeq } : {}) } })
  }

  /** `user.request_state`; resolves with the signed export. */
  async requestState(): Promise<string> {
    this.send({ event: 'user.request_state', session_id: this.sessionId })
    return (await this.next('agent.state_export')).content.signed_state
  }

  reconnectWithState(signedState: string, lastSeq: number): void {
    this.send({ event: 'user.reconnect_with_state', content: { signed_state: signedState, last_seq: lastSeq } })
  }

  /** The next event (after those already returned) with this name or matching `pred`. */
  next<K extends MyAgentServerEventName>(name: K, timeoutMs?: number): Promise<MyAgentServerEventOf<K>>
  next(pred: (e: MyAgentServerEvent) => boolean, timeoutMs?: number): Promise<MyAgentServerEvent>
  async next(pred: MyAgentServerEventName | ((e: MyAgentServerEvent) => boolean), timeoutMs = 10_000): Promise<MyAgentServerEvent> {
    const match = typeof pred === 'string' ? (e: MyAgentServerEvent) => e.event === pred : pred
    return this.inbox.next(match, timeoutMs, () => this.socket.readyState >= 2, typeof pred === 'string' ? pred : 'a matching event')
  }

  close(): void {
    this.socket.close(1000, 'bye')
  }
}
