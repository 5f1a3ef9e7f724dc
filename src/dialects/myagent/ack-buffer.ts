import type { MyAgentView } from './encode.js'

/**
 * The frames one MyAgent connection sent and the client has not acknowledged yet, per session event
 * (one canonical event may be several frames; only the last names its seq).
 *
 * Purpose: fast replay. When the socket drops, the buffer and the encoding view are parked for
 * `limits.reconnectWindowMs` (the seed's 60 s); a `user.reconnect` in that window whose `last_seq` the buffer
 * covers gets the frames straight from memory and continues with the same view (so a message streamed across
 * the drop still ends in an `agent.final_answer` holding the whole text). Otherwise — the window passed, the
 * buffer overflowed, or the server restarted — replay comes from the session log (memory, then the store).
 * Either way the client gets exactly the events after `last_seq`. `user.ack` prunes it.
 */
export class AckBuffer {
  private entries: Array<{ seq: number; frames: string[] }> = []
  /** Index of the oldest held entry: dropping from the front moves this, not the array (no O(n) shift per event). */
  private head = 0
  /** Every session event with seq > `coveredAfter` and ≤ `end` is in `entries` (those with frames). */
  private coveredAfter: number
  private end: number

  constructor(
    private readonly max: number,
    afterSeq: number,
  ) {
    this.coveredAfter = afterSeq
    this.end = afterSeq
  }

  /** Records the frames of the event `seq` (called in seq order). */
  add(seq: number, frames: string[]): void {
    this.end = seq
    if (frames.length === 0) return
    if (this.max <= 0) {
      this.coveredAfter = seq
      return
    }
    this.entries.push({ seq, frames })
    if (this.entries.length - this.head > this.max) this.coveredAfter = this.entries[this.head++]!.seq
    this.compact()
  }

  /** Releases dropped entries once they are most of the array (amortized O(1) per event). */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head)
      this.head = 0
    }
  }

  /** Drops what the client has (seq ≤ lastSeq). */
  ack(lastSeq: number): void {
    while (this.head < this.entries.length && this.entries[this.head]!.seq <= lastSeq) this.head++
    this.compact()
    if (lastSeq > this.coveredAfter) this.coveredAfter = Math.min(lastSeq, this.end)
  }

  /** Re-addresses the held frames to the connection that took the buffer over. */
  restamp(from: string, to: string): void {
    for (let i = this.head; i < this.entries.length; i++) {
      const e = this.entries[i]!
      e.frames = e.frames.map((f) => restamp(f, from, to))
    }
  }

  /** Unacknowledged events held. */
  get size(): number {
    return this.entries.length - this.head
  }

  /** The last seq recorded. */
  get lastSeq(): number {
    return this.end
  }

  /** The frames of every event after `lastSeq`, or null when the buffer does not hold them all. */
  after(lastSeq: number): string[] | null {
    if (lastSeq < this.coveredAfter || lastSeq > this.end) return null
    const out: string[] = []
    for (let i = this.head; i < this.entries.length; i++) {
      const e = this.entries[i]!
      if (e.seq > lastSeq) for (const f of e.frames) out.push(f)
    }
    return out
  }
}

/** A closed connection's buffer and view, kept for a reconnect within the window. */
export interface Parked {
  principal: string
  connectionId: string
  buffer: AckBuffer
  view: MyAgentView
  timer: NodeJS.Timeout
}

/** Parked buffers by session id (one per session: the most recently closed connection's). */
export class ParkedBuffers {
  private readonly bySession = new Map<string, Parked>()

  constructor(private readonly windowMs: number) {}

  park(sessionId: string, p: Omit<Parked, 'timer'>): void {
    if (this.windowMs <= 0) return
    this.take(sessionId)
    const timer = setTimeout(() => this.bySession.delete(sessionId), this.windowMs)
    timer.unref()
    this.bySession.set(sessionId, { ...p, timer })
  }

  /** Removes and returns the parked buffer of `sessionId` if `principal` owns it. */
  take(sessionId: string, principal?: string): Parked | undefined {
    const p = this.bySession.get(sessionId)
    if (!p || (principal !== undefined && p.principal !== principal)) return undefined
    clearTimeout(p.timer)
    this.bySession.delete(sessionId)
    return p
  }

  clear(): void {
    for (const p of this.bySession.values()) clearTimeout(p.timer)
    this.bySession.clear()
  }
}

/** Rewrites the `connection_id` of a frame encoded for another connection (the second key of every frame). */
export function restamp(frame: string, from: string, to: string): string {
  return from === to ? frame : frame.replace(`"connection_id":${JSON.stringify(from)}`, `"connection_id":${JSON.stringify(to)}`)
}
