import type { BatchEncoder, Encoded, SessionId, StoredEvent } from '../core/index.js'

export type { BatchEncoder, Encoded }

/** A receiver of a session's events: usually one connection through one dialect encoder. */
export interface Subscriber<Out = unknown, View = unknown> {
  /** Who is watching, `dialect:…` (listed by the inspector); not used for sharing. */
  readonly codecKey: string
  readonly encoder: BatchEncoder<Out, View>
  /** The view the next batch is encoded with; the subscription replaces it after each batch. */
  view: View
  /** Writes frames; returns false when the receiver is gone (it is then unsubscribed). */
  write(frames: readonly Out[]): boolean
  /** Bytes sent but not yet taken by the peer; drives flow control. Absent: never congested. */
  backlog?(): number
  /** Disconnects the receiver as a slow consumer (it may reconnect and resume from its last seq). */
  drop?(reason: string): void
}

/**
 * Encodings of one committed batch, shared by the subscribers with the same encoder whose views have the same
 * key (`shareKey(view)`, or the view itself). Each key holds a chain of encodings, one per encoder that used it,
 * so two dialects (or a custom one) that happen to use the same key never receive each other's frames; the chain
 * is almost always one entry long, and a subscriber that shares with nobody costs one entry, not a Map.
 */
export type EncodeCache = Map<unknown, CachedEncoding>

/** One encoding of a batch: the encoder that made it, and the next encoding under the same key (another encoder's). */
export interface CachedEncoding {
  readonly encoder: BatchEncoder<unknown, unknown>
  readonly out: Encoded<unknown, unknown>
  readonly next: CachedEncoding | undefined
}

/** An encoder for subscribers that want the events themselves (in-process watchers, the inspector's JSON). */
export const RAW_EVENTS: BatchEncoder<StoredEvent, null> = {
  encode: (events) => ({ frames: events, view: null }),
  shareKey: () => 'raw',
}

/** Flow-control settings shared by live delivery and replay. */
export interface FlowLimits {
  deliveryHighWaterBytes: number
  slowConsumerStallMs: number
}

/**
 * Resolves once at least one of `subs` has less than half the high-water mark
 * unsent (or none is left). A congested subscriber whose backlog has not gone
 * down for `stallMs` (it read nothing) is dropped as a slow consumer; one that
 * reads slowly but steadily is waited for. Returns undefined when nobody is
 * congested, so the hot path does not allocate.
 */
export function whenUncongested(subs: Iterable<Subscription>, limits: FlowLimits): Promise<void> | undefined {
  if (minBacklog(subs) < limits.deliveryHighWaterBytes) return undefined
  const progress = new Map<Subscription, { backlog: number; since: number }>()
  return new Promise((resolve) => {
    const check = () => {
      if (minBacklog(subs) < limits.deliveryHighWaterBytes / 2) return resolve()
      const now = Date.now()
      let waiting = false
      for (const s of subs) {
        if (s.closed) continue
        const b = s.backlog()
        const p = progress.get(s)
        if (!p || b < p.backlog) progress.set(s, { backlog: b, since: now })
        else if (now - p.since >= limits.slowConsumerStallMs && b >= limits.deliveryHighWaterBytes) {
          s.drop(`slow consumer: nothing read for ${limits.slowConsumerStallMs} ms; reconnect and resume from your last seq`)
          continue
        }
        waiting = true
      }
      if (!waiting) return resolve()
      setTimeout(check, 2)
    }
    setTimeout(check, 2)
  })
}

function minBacklog(subs: Iterable<Subscription>): number {
  let min = Infinity
  for (const s of subs) {
    if (s.closed) continue
    const b = s.backlog()
    if (b < min) min = b
  }
  return min === Infinity ? 0 : min
}

/** Reads committed events; the store's `read` in practice. */
export type EventReader = (sessionId: SessionId, afterSeq: number, limit: number) => Promise<StoredEvent[]>

/**
 * One subscriber attached to one session from a given seq: replays what it
 * missed from the store, buffering live events meanwhile, then goes live with
 * no gap and no duplicate.
 */
export class Subscription {
  private delivered: number
  private buffer: StoredEvent[][] | null = null
  closed = false

  constructor(
    readonly sessionId: SessionId,
    readonly subscriber: Subscriber,
    afterSeq: number,
    private readonly onClose: (s: Subscription) => void,
  ) {
    this.delivered = afterSeq
  }

  /** The highest seq this subscriber has been given. */
  get lastSeq(): number {
    return this.delivered
  }

  /** Unsent bytes of this subscriber. */
  backlog(): number {
    return this.subscriber.backlog?.() ?? 0
  }

  /** Drops the subscriber as a slow consumer and ends the subscription. */
  drop(reason: string): void {
    this.subscriber.drop?.(reason)
    this.close()
  }

  /** Replays (afterSeq, upTo] from the store page by page (paced by the subscriber's backlog), then drains what arrived live meanwhile. */
  async replay(read: EventReader, upTo: number, pageSize: number, flow: FlowLimits): Promise<void> {
    if (this.delivered >= upTo) return
    this.buffer = []
    try {
      while (!this.closed && this.delivered < upTo) {
        const page = await read(this.sessionId, this.delivered, Math.min(pageSize, upTo - this.delivered))
        if (page.length === 0) break
        this.deliver(page, undefined)
        const wait = whenUncongested([this], flow)
        if (wait) await wait
      }
    } finally {
      const buffered = this.buffer
      this.buffer = null
      for (const events of buffered) this.push(events, undefined)
    }
  }

  /** Live delivery of a committed batch (`cache` shares encoded frames between subscribers). */
  push(events: StoredEvent[], cache: EncodeCache | undefined): void {
    if (this.closed) return
    if (this.buffer) {
      this.buffer.push(events)
      return
    }
    const last = events[events.length - 1]
    if (!last || last.seq <= this.delivered) return
    if (events[0]!.seq <= this.delivered) {
      events = events.filter((e) => e.seq > this.delivered)
      cache = undefined
    }
    this.deliver(events, cache)
  }

  /**
   * Sends `event`, which is NOT in the log (the store is failing and the subscriber must hear it now), encoded
   * with the subscriber's view; the view it leaves is kept, as for any event the client has seen. Its seq is
   * the last one delivered, so a client resuming from it misses nothing. Skipped while replaying.
   */
  notify(event: StoredEvent): void {
    if (this.closed || this.buffer) return
    const sub = this.subscriber
    const out = sub.encoder.encode([event], sub.view)
    sub.view = out.view
    if (out.frames.length && !sub.write(out.frames)) this.close()
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.onClose(this)
  }

  private deliver(events: StoredEvent[], cache: EncodeCache | undefined): void {
    const sub = this.subscriber
    const encoder = sub.encoder
    let out: Encoded<unknown, unknown>
    if (cache) {
      const key = encoder.shareKey ? encoder.shareKey(sub.view) : sub.view
      const first = cache.get(key)
      let hit = first
      while (hit !== undefined && hit.encoder !== encoder) hit = hit.next
      if (hit) out = hit.out
      else cache.set(key, { encoder, out: (out = encoder.encode(events, sub.view)), next: first })
    } else out = encoder.encode(events, sub.view)
    sub.view = out.view
    this.delivered = events[events.length - 1]!.seq
    if (out.frames.length && !sub.write(out.frames)) this.close()
  }
}
