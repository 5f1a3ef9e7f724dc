import { isRunEnd, ParlanceError, type Command, type StoredEvent } from '../core/index.js'
import type { SessionRecord } from '../store/index.js'
import type { ForwardOutcome } from './cluster.js'
import type { Role } from './role.js'
import type { Session } from './session.js'
import { modelOf } from './state-snapshot.js'

/**
 * The replica role of a session (cluster mode): another node writes it; this one follows its committed events
 * in order (filling gaps from the store), feeds them to the same subscribers, learns from them which run is
 * active and what it waits for (so answers arriving here are recognised), and forwards commands to the writer.
 */
export class Replica implements Role {
  readonly kind = 'replica'
  /** No run executes here. */
  readonly run = null
  /** The run active on the writer, as seen in its events. */
  remote: { id: string; startSeq: number } | null
  /** Approval / client tool call ids waiting on the writer, as seen in its events: the pending index, derived from the log. */
  private readonly pending = new Set<string>()
  /** Callers of `caughtUp` waiting for a seq. */
  private readonly seqWaiters = new Set<() => void>()
  /** The chain that applies the writer's events in order. */
  private following: Promise<void> = Promise.resolve()
  /** False once this node became the writer: queued work stops. */
  private active = true

  constructor(
    private readonly s: Session,
    remote: { id: string; startSeq: number } | null,
  ) {
    this.remote = remote
  }

  get activeRunId(): string | null {
    return this.remote?.id ?? null
  }

  get activeRunStartSeq(): number | null {
    return this.remote?.startSeq ?? null
  }

  waitsFor(id: string): boolean {
    return this.pending.has(id)
  }

  /** Forwards a command to the writer (or takes the lease): the cluster's route. */
  handle(cmd: Command): Promise<ForwardOutcome | undefined> {
    const route = this.s.deps.route
    if (!route) throw new ParlanceError('internal', `session ${this.s.id} is a replica but no cluster routes its commands`)
    return route(this.s, cmd)
  }

  /** The writer's run is stopped on the writer, not here. */
  stop(): void {}

  /** This node becomes the writer: waiters are released; what the replica tracked is dropped. */
  leave(): void {
    this.active = false
    this.pending.clear()
    for (const check of [...this.seqWaiters]) check()
  }

  /** Applies events the writer committed (in order; a gap is filled from the store). */
  follow(events: StoredEvent[]): void {
    this.following = this.following.then(() => this.followNow(events)).catch(() => {})
  }

  /** Resolves once events up to `seq` were applied here, or after `timeoutMs`, having caught up with the store. */
  caughtUp(seq: number, timeoutMs: number): Promise<void> {
    if (this.s.committedSeq >= seq || !this.active) return Promise.resolve()
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.seqWaiters.delete(check)
        resolve()
      }
      const check = () => {
        if (this.s.committedSeq >= seq || !this.active) done()
      }
      const timer = setTimeout(() => void this.catchUp().then(done), timeoutMs)
      this.seqWaiters.add(check)
    })
  }

  /** Catches up with everything committed in the store; resolves once applied. */
  catchUp(): Promise<void> {
    this.following = this.following.then(() => this.followNow([])).catch(() => {})
    return this.following
  }

  /** Resets the model from the stored record (after this node's uncommitted writes were refused), delivering what subscribers have not seen. */
  resync(record: SessionRecord): Promise<void> {
    this.following = this.following
      .then(async () => {
        while (this.s.committedSeq < record.lastSeq) {
          const page = await this.s.deps.store.read(
            this.s.id,
            this.s.committedSeq,
            Math.min(this.s.deps.limits.replayPageSize, record.lastSeq - this.s.committedSeq),
          )
          if (page.length === 0) break
          this.s.advance(page)
        }
        this.s.model = modelOf(record)
        this.remote = record.activeRunId ? { id: record.activeRunId, startSeq: this.remote?.startSeq ?? record.lastSeq } : null
      })
      .catch(() => {})
    return this.following
  }

  /** Loaded mid-run: learns what the writer's run waits for from that run's events so far. */
  prime(runEvents: readonly StoredEvent[]): void {
    for (const e of runEvents) if (!isRunEnd(e)) this.track(e)
  }

  private async followNow(events: StoredEvent[]): Promise<void> {
    if (!this.active) return
    const firstLive = events.length ? events[0]!.seq : Infinity
    if (events.length && events[events.length - 1]!.seq <= this.s.committedSeq) return
    // What is missing before this batch (a lost message, a catch-up) comes from the store.
    while (this.s.committedSeq + 1 < firstLive) {
      const want = Math.min(this.s.deps.limits.replayPageSize, firstLive - 1 - this.s.committedSeq)
      const page = await this.s.deps.store.read(this.s.id, this.s.committedSeq, want)
      if (!this.active) return
      if (page.length === 0) break
      this.apply(page)
    }
    if (events.length === 0 || !this.active) return
    const fresh = events[0]!.seq > this.s.committedSeq ? events : events.filter((e) => e.seq > this.s.committedSeq)
    if (fresh.length && fresh[0]!.seq === this.s.committedSeq + 1) this.apply(fresh)
  }

  private apply(events: StoredEvent[]): void {
    for (const e of events) {
      try {
        this.s.model.apply(e)
      } catch {
        // The writer validated it; a model that disagrees must not stop the stream.
      }
      this.track(e)
    }
    this.s.advance(events)
    for (const check of [...this.seqWaiters]) check()
  }

  /** Bookkeeping of the writer's run and of what it waits for. */
  private track(e: StoredEvent): void {
    if (isRunEnd(e)) {
      this.remote = null
      this.pending.clear()
      return
    }
    if (e.runId && this.remote?.id !== e.runId) this.remote = { id: e.runId, startSeq: e.seq }
    switch (e.type) {
      case 'run.started':
        this.s.agentName = e.agent
        return
      case 'approval.requested':
        this.pending.add(e.approvalId)
        return
      case 'approval.resolved':
        this.pending.delete(e.approvalId)
        return
      case 'tool.call':
        if (e.target === 'client') this.pending.add(e.toolCallId)
        return
      case 'tool.result':
      case 'tool.error':
      case 'tool.cancel':
        this.pending.delete(e.toolCallId)
        return
    }
  }
}
