import { ParlanceError, type Command, type Limits, type Principal, type SessionId, type StoredEvent } from '../core/index.js'
import { loadSession, type SessionRecord } from '../store/index.js'
import type { ClusterPort, ForwardedCommand, ForwardOutcome } from './cluster.js'
import { closingEvents, forkCutMessage, runEvents } from './recover.js'
import type { Placement, PlacementHost } from './placement.js'
import type { SessionDeps } from './deps.js'
import { Session } from './session.js'
import { drainingError } from './writer.js'
import type { OpenOptions } from './session-manager.js'

/** What a cluster node needs from the session manager it serves. */
export interface ClusterHost extends PlacementHost {
  readonly limits: Limits
  /** A session loaded here, if any. */
  get(id: SessionId): Session | undefined
  /** The sessions loaded here. */
  sessions(): Iterable<Session>
  open(id: SessionId, principal: Principal, opts?: OpenOptions): Promise<Session>
}

/**
 * Carries out a command on the writer (synchronously; throws what the sender must answer) and reports it.
 * The run is read at once: a quick run may be over before the answer leaves, and the sender streams it.
 */
function handleHere(session: Session, cmd: Command): ForwardOutcome {
  const before = session.lastSeq
  void session.handle(cmd) // a writer carries it out synchronously
  return { before, seq: session.lastSeq, runId: session.activeRunId }
}

/** Run error message when a node takes over a run whose node stopped. */
const ORPHANED = 'the node running this run stopped (its lease expired); send the message again to retry'

/**
 * The session manager's cluster half: loads sessions as writer or replica, routes a replica's commands
 * (take the lease, or forward to its holder), answers commands other nodes forward, keeps leases renewed
 * and released, and ends runs whose node died. See docs/DESIGN.md "Multi-node".
 */
export class ClusterNode implements Placement {
  /** The timer renewing and releasing leases and adopting orphaned runs. */
  private readonly timer: NodeJS.Timeout
  /** A renewal pass under way (the next tick skips it rather than run two at once). */
  private tending = false
  /** An orphan pass under way: kept apart from renewals, so loading adopted sessions never delays them. */
  private adopting = false
  /** Draining: takes no lease for new work, gives up quiet sessions' leases (see `drain`). */
  private draining = false
  /** A `drain` release pass under way. */
  private releasing: Promise<void> | null = null
  /** Sessions quiet at the last lease tick (released if still quiet at the next). */
  private quietLastTick = new Set<SessionId>()
  /** Promotions under way, so concurrent commands promote a replica once. */
  private readonly promoting = new Map<SessionId, Promise<void>>()

  constructor(
    readonly port: ClusterPort,
    private readonly host: ClusterHost,
  ) {
    port.onForward((f) => this.receive(f))
    port.onReconnect(() => {
      for (const s of host.sessions()) void s.replica?.catchUp()
    })
    this.timer = setInterval(
      () => {
        void this.tendLeases()
        void this.adoptOrphans()
      },
      Math.max(50, Math.floor(port.leaseMs / 3)),
    )
    this.timer.unref()
  }

  get nodeId(): string {
    return this.port.nodeId
  }

  /** Sessions built here route a replica's commands through this node, resync when a write was refused, and share where requests wait. */
  readonly sessionDeps: Pick<SessionDeps, 'route' | 'rejected' | 'sharePending' | 'confirming' | 'confirmingElsewhere'> = {
    route: (session, cmd) => this.route(session, cmd),
    rejected: (session) => void this.resync(session),
    sharePending: (id, sessionId) => this.port.sharePending(id, sessionId),
    confirming: (sessionId, delta) => this.port.confirming(sessionId, delta),
    confirmingElsewhere: (sessionId) => this.port.confirmingElsewhere(sessionId),
  }

  /** A writer keeps its lease until the lease timer releases it; it may leave memory after that. */
  mayUnload(session: Session): boolean {
    return !session.writer
  }

  /** Stops following an unloaded session (a reload relearns it from the log). */
  unloaded(id: SessionId): void {
    this.port.unwatch(id)
  }

  /** Where an id waits, as its writer recorded it for every node. */
  locatePending(id: string): Promise<SessionId | null> {
    return this.port.locatePending(id)
  }

  /**
   * Draining: gives up the lease of every quiet session written here now (once everything is committed), so the
   * next command for it, on any node, makes a live node its writer. Called again as each run ends.
   */
  drain(): void {
    this.draining = true
    if (this.releasing) return
    this.releasing = (async () => {
      await this.host.store.flush()
      for (const s of [...this.host.sessions()]) if (s.writer && s.demote()) await this.port.release(s.id).catch(() => {})
    })()
      .catch(() => {}) // the store is unreachable: shutdown releases what is left, or the leases expire
      .finally(() => (this.releasing = null))
  }

  /** Stops the lease timer. */
  stop(): void {
    clearInterval(this.timer)
  }

  /** At shutdown, once everything is committed: hands the leases back so other nodes take over at once, not after expiry. */
  async leave(sessions: readonly Session[]): Promise<void> {
    await Promise.all(sessions.filter((s) => s.writer).map((s) => this.port.release(s.id).catch(() => {})))
    for (const s of sessions) this.port.unwatch(s.id)
  }

  /**
   * Carries out `cmd` on a replica: takes the lease when nobody holds it (becoming the writer), else
   * forwards it to the node that does. A lease that moves meanwhile is followed a bounded number of times.
   */
  async route(session: Session, cmd: Command, hops = 0): Promise<ForwardOutcome> {
    const cluster = this.port
    // A holder that stopped keeps its lease until it expires: wait that out (bounded), then take over.
    const deadline = Date.now() + 2 * cluster.leaseMs
    for (let attempt = 0; attempt < 100 && Date.now() < deadline; attempt++) {
      if (session.writer) return handleHere(session, cmd)
      if (!this.draining && (await cluster.acquire(session.id))) {
        await this.promote(session)
        continue
      }
      const holder = await cluster.holder(session.id)
      // Draining, nobody writes it: a live node takes it when the client sends there.
      if (holder === null && this.draining) throw drainingError()
      if (holder === null || holder === cluster.nodeId) continue
      if (hops >= 2) break
      let outcome: ForwardOutcome
      try {
        outcome = await cluster.forward(holder, { sessionId: session.id, principal: session.owner, command: cmd, hops: hops + 1 })
      } catch (err) {
        if (!(err instanceof ParlanceError && err.details?.unreachable === true) || Date.now() >= deadline) throw err
        await new Promise((r) => setTimeout(r, Math.max(20, cluster.leaseMs / 5)))
        continue
      }
      // Read your writes: the caller's next look at this replica (activeRunId, lastSeq) sees the command's effects.
      await session.replica?.caughtUp(outcome.seq, cluster.leaseMs)
      return outcome
    }
    throw new ParlanceError('unavailable', `could not reach the node writing session ${session.id}; try again`, { sessionId: session.id })
  }

  /** A command another node forwarded: this node is (or was) the session's writer. */
  private async receive(f: ForwardedCommand): Promise<ForwardOutcome> {
    const session = await this.host.open(f.sessionId, f.principal, { create: false })
    return session.writer ? handleHere(session, f.command) : this.route(session, f.command, f.hops)
  }

  /** Makes a replica the writer once (this node holds the lease): catch up, then end a run orphaned by its node. */
  private promote(session: Session): Promise<void> {
    let p = this.promoting.get(session.id)
    if (!p) {
      p = (async () => {
        await session.replica?.catchUp()
        const replica = session.replica
        if (!replica) return
        const runId = replica.remote?.id
        const closing = runId
          ? await closingEvents((sid, after, limit) => this.host.store.read(sid, after, limit), session.id, runId, session.lastSeq)
          : []
        session.promote(closing, ORPHANED)
      })().finally(() => this.promoting.delete(session.id))
      this.promoting.set(session.id, p)
    }
    return p
  }

  /** The store refused a session's writes: reload its record and carry on as a replica. */
  async resync(session: Session): Promise<void> {
    const record = await loadSession(this.host.store.backend, session.id).catch(() => undefined)
    if (record) await session.replica?.resync(record)
  }

  /**
   * Renews the leases of sessions written here and releases those quiet for a whole tick. Nothing here waits for
   * more than two round trips to Redis (the releases go out together): a pass that took longer than a renewal
   * interval would delay the next renewal, and a lease left unrenewed for `leaseMs` moves its session to another
   * node, which ends its run as interrupted.
   */
  private async tendLeases(): Promise<void> {
    const cluster = this.port
    if (this.tending) return
    this.tending = true
    try {
      const renew: SessionId[] = []
      const quiet = new Set<SessionId>()
      for (const s of this.host.sessions()) {
        if (!s.writer) continue
        if (s.quiet) quiet.add(s.id)
        renew.push(s.id)
      }
      if (renew.length) {
        for (const id of await cluster.renew(renew)) {
          const s = this.host.get(id)
          s?.lostWrite()
        }
      }
      // Quiet at two ticks in a row (a third of the lease apart): its last record write has long been
      // committed (commits go out every event-loop tick). Not `store.flush()`: under load other sessions keep
      // the store busy, and waiting for it would stall the renewals.
      const release = [...quiet].filter((id) => this.quietLastTick.has(id))
      this.quietLastTick = quiet
      const demoted = release.filter((id) => this.host.get(id)?.demote() === true)
      await Promise.all(demoted.map((id) => cluster.release(id)))
    } catch {
      // The store is unreachable: the next tick tries again (leases not renewed in time move to other nodes).
    } finally {
      this.tending = false
    }
  }

  /** Claims the leases of runs whose node died and ends those runs (loading their sessions here). */
  private async adoptOrphans(): Promise<void> {
    if (this.adopting) return
    this.adopting = true
    try {
      for (const id of await this.port.claimOrphans()) await this.adopt(id).catch(() => {})
    } catch {
      // The store is unreachable: the next tick tries again.
    } finally {
      this.adopting = false
    }
  }

  /** This node claimed the lease of a run whose node died: end the run (loading the session if needed). */
  private async adopt(id: SessionId): Promise<void> {
    const s = this.host.get(id)
    if (s) {
      if (!s.writer) await this.promote(s)
      return
    }
    const record = await this.host.store.backend.getSession(id)
    if (record) await this.host.open(id, record.owner, { create: false })
  }

  /**
   * Cluster load: follow the session's events from before reading its record (so nothing falls between),
   * then load it as the writer (new session, or an active run whose node is gone) or as a replica.
   */
  async load(id: SessionId, principal: Principal, opts: OpenOptions): Promise<Session> {
    const cluster = this.port
    const backend = this.host.store.backend
    let session: Session | undefined
    const early: StoredEvent[][] = []
    await cluster.watch(id, (events) => (session ? session.replica?.follow(events) : early.push(events)))
    try {
      let record = await loadSession(backend, id)
      if (!record) {
        if (opts.create === false) throw new ParlanceError('not_found', `no session ${id}`, { sessionId: id })
        const fresh = await this.host.newRecord(id, principal, opts)
        if (await cluster.acquire(id)) {
          record = await loadSession(backend, id)
          if (!record) {
            session = new Session(this.host.deps, fresh, { writer: true })
            this.host.store.touch(session)
            return session
          }
        } else {
          // Another node is creating it right now: wait for its record.
          for (let i = 0; i < 20 && !record; i++) {
            await new Promise((r) => setTimeout(r, 25))
            record = await loadSession(backend, id)
          }
          if (!record) throw new ParlanceError('unavailable', `session ${id} is being created on another node; try again`, { sessionId: id })
        }
      }
      session = await this.fromRecord(record)
      for (const events of early) session.replica?.follow(events)
      return session
    } catch (err) {
      cluster.unwatch(id)
      throw err
    }
  }

  private async fromRecord(record: SessionRecord): Promise<Session> {
    const read = (sid: SessionId, after: number, limit: number) => this.host.store.read(sid, after, limit)
    if (!record.activeRunId) return new Session(this.host.deps, record, { writer: false })
    if (await this.port.acquire(record.id)) {
      // Nobody runs it any more (its node died): take it over and end the run.
      const fresh = (await loadSession(this.host.store.backend, record.id)) ?? record
      const closing = fresh.activeRunId ? await closingEvents(read, fresh.id, fresh.activeRunId, fresh.lastSeq) : []
      return new Session(this.host.deps, fresh, { writer: true, closing, interruptedMessage: forkCutMessage(fresh) ?? ORPHANED })
    }
    // One read of the run so far: where it starts (clients attaching mid-run replay from there) and what it waits for.
    const events = await runEvents(read, record.id, record.activeRunId, record.lastSeq)
    const session = new Session(this.host.deps, record, { writer: false, runStartSeq: events[0]?.seq })
    session.replica?.prime(events)
    return session
  }
}
