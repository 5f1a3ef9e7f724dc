import type { SessionId, StoredEvent } from '../core/index.js'

/** A receiver of a session's events: usually one connection through one dialect encoder. */
export interface Subscriber {
  /** Subscribers with the same key get the same frames, encoded once per batch. */
  readonly codecKey: string
  encode(events: readonly StoredEvent[]): unknown[]
  /** Writes frames; returns false when the receiver is gone (it is then unsubscribed). */
  write(frames: unknown[]): boolean
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

  /** Replays (afterSeq, upTo] from the store, then drains what arrived live meanwhile. */
  async replay(read: EventReader, upTo: number, pageSize: number): Promise<void> {
    if (this.delivered >= upTo) return
    this.buffer = []
    try {
      while (!this.closed && this.delivered < upTo) {
        const page = await read(this.sessionId, this.delivered, Math.min(pageSize, upTo - this.delivered))
        if (page.length === 0) break
        this.deliver(page, undefined)
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
