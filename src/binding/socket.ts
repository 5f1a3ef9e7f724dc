import { toParlanceError, type BatchEncoder, type Connection, type Decoded, type ParlanceError } from '../core/index.js'
import type { Session, Subscriber, Subscription } from '../session/index.js'
import type { EndpointDeps } from './endpoint.js'
import { tracedFrame, workOf } from './traced.js'

/** What a socket dialect gives the shared runner. */
export interface SocketServeOptions<In, Out> {
  /** Dialect name: metrics labels and logs. */
  readonly dialect: string
  /** Decodes one inbound frame (limits already applied by the caller's closure); never throws. */
  decode(frame: string): Decoded<In>
  /** Carries out one decoded frame; what it throws is answered with `error`. */
  handle(input: In): Promise<void> | void
  /** The dialect's error frame. */
  error(err: ParlanceError): Out
}

/** One served socket, as the runner exposes it to its binding. */
export interface SocketRun {
  /** Feeds one inbound text frame: admission, decode, then `handle`, one frame at a time in arrival order. */
  frame: (text: string) => void
  /** Runs `task` in order with the frames (an attach on open); what it throws is answered. */
  enqueue: (task: () => Promise<void> | void) => void
  /** Answers `err` in the dialect's shape (counted; `internal` ones logged with their cause). */
  reply: (err: unknown) => void
  /** Call once when the connection closed. */
  closed: () => void
}

/**
 * The loop every socket dialect shares: a connection metric, the rate limit per frame, frames decoded and
 * carried out strictly one after another (a reply never overtakes an earlier frame's effects), every
 * failure answered in the dialect's own shape while the connection stays up, a request span for each
 * frame that starts work, and each frame counted in flight until answered (a closing server waits for them).
 */
export function serveSocket<In, Out>(
  conn: Connection<Out>,
  deps: Pick<EndpointDeps, 'metrics' | 'log' | 'admission' | 'inflight'>,
  o: SocketServeOptions<In, Out>,
): SocketRun {
  const { metrics, log, inflight } = deps
  const labels = { dialect: o.dialect }
  const admit = deps.admission(conn.principal, conn.remoteAddress)
  let queue: Promise<void> = Promise.resolve()
  metrics.connections.inc(labels)

  const reply = (err: unknown): void => {
    const e = toParlanceError(err)
    if (e.code === 'internal') log.error({ err: e.cause ?? e, conn: conn.id, dialect: o.dialect }, 'internal error handling a frame')
    metrics.inboundErrors.inc({ dialect: o.dialect, code: e.code })
    conn.send([o.error(e)])
  }
  const handle = async (text: string): Promise<void> => {
    const refused = admit()
    if (refused) return reply(refused)
    const decoded = o.decode(text)
    if (!decoded.ok) return reply(decoded.error)
    // Frames that start work get a request span (see tracedFrame); acks and heartbeats go straight through.
    const work = workOf(decoded.value)
    if (work === null) return o.handle(decoded.value)
    await tracedFrame(o.dialect, work, () => o.handle(decoded.value))
  }
  const settled = () => inflight?.end()
  const enqueue = (task: () => Promise<void> | void): void => {
    inflight?.start()
    queue = queue.then(task).catch(reply).then(settled)
  }
  return {
    frame: (text) => enqueue(() => handle(text)),
    enqueue,
    reply,
    closed: () => metrics.connections.dec(labels),
  }
}

/** How a connection watches a session: the encoder, its starting view, and who is watching. */
export interface AttachOptions<Out, View> {
  readonly encoder: BatchEncoder<Out, View>
  readonly view: View
  /** `dialect:…`, listed by the inspector. */
  readonly label: string
  /** Extra subscriber fields a session reads (HUMA's `confirmsDelivery`). */
  readonly extra?: Readonly<Record<string, unknown>>
}

/**
 * Subscribes a connection to `session` after `afterSeq`: frames go to the socket as encoded (shared with
 * every other subscriber holding an equal view), flow control reads the socket's backlog, and a slow consumer
 * is closed with 4008 (it may reconnect and resume from its last seq).
 */
export function attach<Out, View>(conn: Connection<Out>, session: Session, afterSeq: number | undefined, o: AttachOptions<Out, View>): Subscription {
  const subscriber: Subscriber<Out, View> = {
    ...o.extra,
    codecKey: o.label,
    encoder: o.encoder,
    view: o.view,
    write: (frames) => conn.send(frames),
    backlog: () => conn.bufferedBytes,
    drop: (reason) => conn.close(4008, reason),
  }
  return session.subscribe(subscriber, afterSeq)
}

/** Where a new watcher starts by default: the active run's start (so it sees the whole run), else the end of the log. */
export function resumePoint(session: Session): number {
  const start = session.activeRunStartSeq
  return start !== null ? start - 1 : session.lastSeq
}

/**
 * Wraps a string encoder so each batch is converted to Buffers once, however many sockets it is written to
 * (the WebSocket transport sends Buffers as text frames as they are).
 */
export function asBuffers<View>(encoder: BatchEncoder<string, View>): BatchEncoder<Buffer, View> {
  return {
    encode(events, view) {
      const out = encoder.encode(events, view)
      const frames = new Array<Buffer>(out.frames.length)
      for (let i = 0; i < frames.length; i++) frames[i] = Buffer.from(out.frames[i]!, 'utf8')
      return { frames, view: out.view }
    },
    ...(encoder.shareKey ? { shareKey: encoder.shareKey.bind(encoder) } : {}),
  }
}
