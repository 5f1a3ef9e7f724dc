import type { SessionId, StoredEvent } from '../core/index.js'

/** A receiver of a session's events: usually one connection through one dialect encoder. */
export interface Subscriber {
  /** Subscribers with the same key get the same frames, encoded once per batch. */
  readonly codecKey: string
  encode(events: readonly StoredEvent[]): unknown[]
  /** Writes frames; returns false when the receiver is gone (it is then unsubscribed). */
  write(frames: unknown[]): boolean
  /** Bytes sent but not yet taken by the peer; drives flow control. Absent: never congested. */
  backlog?(): number
  /** Disconnects the receiver as a slow consumer (it may reconnect and resume from its last seq). */
  drop?(reason: string): void
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
  push(events: StoredEvent[], cache: Map<string, unknown[]> | undefined): void {
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

  close(): void {
    if (this.closed) return
    this.closed = true
    this.onClose(this)
  }

  private deliver(events: StoredEvent[], cache: Map<string, unknown[]> | undefined): void {
    const key = this.subscriber.codecKey
    let frames = cache?.get(key)
    if (!frames) {
      frames = this.subscriber.encode(events)
      cache?.set(key, frames)
    }
    this.delivered = events[events.length - 1]!.seq
    if (frames.length && !this.subscriber.write(frames)) this.close()
  }
}
