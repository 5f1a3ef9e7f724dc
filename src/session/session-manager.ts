import { ParlanceError, type Command, type Limits, type Principal, type SessionId, type StoredEvent } from '../core/index.js'
import type { AgentDefinition } from '../agent/index.js'
import { StoreConflict, type EventStore, type SessionRecord } from '../store/index.js'
import type { ClusterPort, ForwardedCommand, ForwardOutcome } from './cluster.js'
import { closingEvents, runStartSeq } from './recover.js'
import { Session, type SessionDeps, type SessionHooks } from './session.js'

/**
 * Carries out a command on the writer (synchronously; throws what the sender must answer) and reports it.
 * The run is read at once: a quick run may be over before the answer leaves, and the sender streams it.
 */
function handleHere(session: Session, cmd: Command): ForwardOutcome {
  const before = session.lastSeq
  session.handle(cmd)
  return { before, seq: session.lastSeq, runId: session.activeRunId }
}

/** Run error message when a node takes over a run whose node stopped. */
const ORPHANED = 'the node running this run stopped (its lease expired); send the message again to retry'

/** What the session manager needs. */
export interface SessionManagerOptions {
  store: EventStore
  /** Agents by name. */
  agents: ReadonlyMap<string, AgentDefinition>
  /** Agent of new sessions when the client names none. */
  defaultAgent: string
  limits: Limits
  hooks?: SessionHooks
  /** Several nodes sharing the store (see ClusterPort); absent on a single node. */
  cluster?: ClusterPort
}

/** Options of `SessionManager.open`. */
export interface OpenOptions {
  /** Agent for a new session. */
  agent?: string
  /** Create the session if it does not exist. @default true */
  create?: boolean
}

/**
 * Loads, creates and indexes sessions. A session belongs to the principal that
 * created it; opening it as anyone else is `forbidden`.
 */
export class SessionManager {
  private readonly loaded = new Map<SessionId, Promise<Session>>()
  private readonly pendingIndex = new Map<string, Session>()
  private activeRuns = 0
  private readonly hooks: SessionHooks
  private readonly lastUsed = new Map<SessionId, number>()
  /** Loaded sessions, once their load resolved. */
  private readonly ready = new Map<SessionId, Session>()
  private readonly sweeper: NodeJS.Timeout
  /** Cluster mode: the timer renewing and releasing leases and adopting orphaned runs. */
  private leaseTimer: NodeJS.Timeout | null = null
  private tending = false
  /** Cluster mode: sessions quiet at the last lease tick (released if still quiet at the next). */
  private quietLastTick = new Set<SessionId>()
  /** Cluster mode: promotions under way, so concurrent commands promote a replica once. */
  private readonly promoting = new Map<SessionId, Promise<void>>()
  private readonly deps: SessionDeps

  constructor(private readonly options: SessionManagerOptions) {
    const outer = options.hooks ?? {}
    this.hooks = {
      ...outer,
      runStarted: (s) => {
        this.activeRuns++
        outer.runStarted?.(s)
      },
      runEnded: (s, runId, outcome) => {
        this.activeRuns--
        outer.runEnded?.(s, runId, outcome)
      },
      pending: (id, s) => {
        if (s) this.pendingIndex.set(id, s)
        else this.pendingIndex.delete(id)
        outer.pending?.(id, s)
      },
    }
    const idleMs = options.limits.sessionIdleMs
    this.sweeper = setInterval(() => this.evictIdle(Date.now() - idleMs), Math.max(1000, Math.min(60_000, idleMs / 2)))
    this.sweeper.unref()
    const cluster = options.cluster
    this.deps = {
      store: options.store,
      agent: (name: string) => options.agents.get(name),
      limits: options.limits,
      hooks: this.hooks,
      admitRun: () => options.limits.maxConcurrentRuns <= 0 || this.activeRuns < options.limits.maxConcurrentRuns,
      ...(cluster
        ? {
            route: (session: Session, cmd: Command) => this.route(session, cmd, 0),
            rejected: (session: Session) => void this.resync(session),
            sharePending: (id: string, sessionId: SessionId | null) => cluster.sharePending(id, sessionId),
          }
        : {}),
    }
    if (cluster) {
      cluster.onForward((f) => this.receive(f))
      cluster.onReconnect(() => {
        for (const s of this.ready.values()) if (!s.writer) void s.catchUp()
      })
      this.leaseTimer = setInterval(() => void this.tendLeases(), Math.max(50, Math.floor(cluster.leaseMs / 3)))
      this.leaseTimer.unref()
    }
  }

  /** This node's id in a cluster, else null. */
  get nodeId(): string | null {
    return this.options.cluster?.nodeId ?? null
  }

  /** Sessions held in memory. */
  get loadedCount(): number {
    return this.loaded.size
  }

  /**
   * Unloads sessions idle (no run, no subscriber, all committed) and unused since `before` (ms epoch).
   * They are reloaded from the store on their next use. Returns how many were unloaded.
   */
  evictIdle(before: number): number {
    let n = 0
    for (const [id, s] of this.ready) {
      if ((this.lastUsed.get(id) ?? 0) > before || !s.idle) continue
      // A writer keeps its lease until the lease timer releases it; it is evicted after that.
      if (this.options.cluster && s.writer) continue
      this.ready.delete(id)
      this.loaded.delete(id)
      this.lastUsed.delete(id)
      this.options.cluster?.unwatch(id)
      n++
    }
    return n
  }

  /** Sessions currently held in memory (for listings such as the inspector's; read-only use). */
  loadedSessions(): IterableIterator<Session> {
    return this.ready.values()
  }

  /** Number of runs in progress across sessions. */
  get activeRunCount(): number {
    return this.activeRuns
  }

  get store(): EventStore {
    return this.options.store
  }

  agent(name: string): AgentDefinition | undefined {
    return this.options.agents.get(name)
  }

  agentNames(): string[] {
    return [...this.options.agents.keys()]
  }

  /** Opens a session for `principal`, loading it from the store or creating it. */
  async open(id: SessionId, principal: Principal, opts: OpenOptions = {}): Promise<Session> {
    this.lastUsed.set(id, Date.now())
    let p = this.loaded.get(id)
    if (!p) {
      p = this.load(id, principal, opts)
      this.loaded.set(id, p)
      p.catch(() => this.loaded.delete(id))
    }
    let session: Session
    try {
      session = await p
    } catch (err) {
      // A concurrent `create: false` open found nothing; this caller may create, so load again.
      const missing = err instanceof ParlanceError && err.code === 'not_found' && err.details?.sessionId === id
      if (!missing || opts.create === false) throw err
      return this.open(id, principal, opts)
    }
    if (this.loaded.get(id) === p) this.ready.set(id, session)
    if (session.owner !== principal) {
      throw new ParlanceError('forbidden', 'this session belongs to someone else', { sessionId: id })
    }
    return session
  }

  /** The session in which an approval or client tool call id is waiting (among those loaded here). */
  findPending(id: string): Session | undefined {
    return this.pendingIndex.get(id)
  }

  /** The id of the session an approval or client tool call id waits in: loaded here, else (cluster) on any node. */
  async locatePending(id: string): Promise<SessionId | undefined> {
    return this.pendingIndex.get(id)?.id ?? (await this.options.cluster?.locatePending(id).catch(() => null)) ?? undefined
  }

  /** Stops every active run (recorded as interrupted) and waits for the store. */
  async shutdown(reason = 'the server is shutting down'): Promise<void> {
    clearInterval(this.sweeper)
    if (this.leaseTimer) clearInterval(this.leaseTimer)
    const sessions: Session[] = []
    for (const p of this.loaded.values()) {
      const s = await p.catch(() => undefined)
      if (!s) continue
      sessions.push(s)
      if (s.writer) s.stop('interrupted', reason)
      s.detachAll()
    }
    await this.options.store.flush()
    const cluster = this.options.cluster
    if (cluster) {
      // Everything is committed: hand the leases back so other nodes take over at once, not after expiry.
      await Promise.all(sessions.filter((s) => s.writer).map((s) => cluster.release(s.id).catch(() => {})))
      for (const s of sessions) cluster.unwatch(s.id)
    }
  }

  // Cluster mode

  /**
   * Carries out `cmd` on a replica: takes the lease when nobody holds it (becoming the writer), else
   * forwards it to the node that does. A lease that moves meanwhile is followed a bounded number of times.
   */
  private async route(session: Session, cmd: Command, hops: number): Promise<ForwardOutcome> {
    const cluster = this.options.cluster!
    // A holder that stopped keeps its lease until it expires: wait that out (bounded), then take over.
    const deadline = Date.now() + 2 * cluster.leaseMs
    for (let attempt = 0; attempt < 100 && Date.now() < deadline; attempt++) {
      if (session.writer) return handleHere(session, cmd)
      if (await cluster.acquire(session.id)) {
        await this.promote(session)
        continue
      }
      const holder = await cluster.holder(session.id)
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
      await session.caughtUp(outcome.seq, cluster.leaseMs)
      return outcome
    }
    throw new ParlanceError('unavailable', `could not reach the node writing session ${session.id}; try again`, { sessionId: session.id })
  }

  /** A command another node forwarded: this node is (or was) the session's writer. */
  private async receive(f: ForwardedCommand): Promise<ForwardOutcome> {
    const session = await this.open(f.sessionId, f.principal, { create: false })
    return session.writer ? handleHere(session, f.command) : this.route(session, f.command, f.hops)
  }

  /** Makes a replica the writer once (this node holds the lease): catch up, then end a run orphaned by its node. */
  private promote(session: Session): Promise<void> {
    let p = this.promoting.get(session.id)
    if (!p) {
      p = (async () => {
        await session.catchUp()
        if (session.writer) return
        const runId = session.remoteRunId
        const closing = runId ? await closingEvents((sid, after, limit) => this.options.store.read(sid, after, limit), session.id, runId, session.lastSeq) : []
        session.promote(closing, ORPHANED)
      })().finally(() => this.promoting.delete(session.id))
      this.promoting.set(session.id, p)
    }
    return p
  }

  /** The store refused a session's writes: reload its record and carry on as a replica. */
  private async resync(session: Session): Promise<void> {
    const record = await this.options.store.backend.getSession(session.id).catch(() => undefined)
    if (record) await session.resync(record)
  }

  /** Renews the leases of sessions written here, releases those quiet for a whole tick, adopts orphaned runs. */
  private async tendLeases(): Promise<void> {
    const cluster = this.options.cluster
    if (!cluster || this.tending) return
    this.tending = true
    try {
      const renew: SessionId[] = []
      const quiet = new Set<SessionId>()
      for (const s of this.ready.values()) {
        if (!s.writer) continue
        if (s.quiet) quiet.add(s.id)
        renew.push(s.id)
      }
      if (renew.length) {
        for (const id of await cluster.renew(renew)) {
          const s = this.ready.get(id)
          if (s?.writer) s.onRejected([], new StoreConflict([id]))
        }
      }
      // Quiet at two ticks in a row (a third of the lease apart): its last record write has long been
      // committed (commits go out every event-loop tick). Not `store.flush()`: under load other sessions keep
      // the store busy, and waiting for it would stall the renewals.
      const release = [...quiet].filter((id) => this.quietLastTick.has(id))
      this.quietLastTick = quiet
      for (const id of release) {
        const s = this.ready.get(id)
        if (s?.demote()) await cluster.release(id)
      }
      for (const id of await cluster.claimOrphans()) await this.adopt(id).catch(() => {})
    } catch {
      // The store is unreachable: the next tick tries again (leases not renewed in time move to other nodes).
    } finally {
      this.tending = false
    }
  }

  /** This node claimed the lease of a run whose node died: end the run (loading the session if needed). */
  private async adopt(id: SessionId): Promise<void> {
    const s = this.ready.get(id)
    if (s) {
      if (!s.writer) await this.promote(s)
      return
    }
    const record = await this.options.store.backend.getSession(id)
    if (record) await this.open(id, record.owner, { create: false })
  }

  /**
   * Cluster load: follow the session's events from before reading its record (so nothing falls between),
   * then load it as the writer (new session, or an active run whose node is gone) or as a replica.
   */
  private async loadClustered(id: SessionId, principal: Principal, opts: OpenOptions): Promise<Session> {
    const cluster = this.options.cluster!
    const backend = this.options.store.backend
    let session: Session | undefined
    const early: StoredEvent[][] = []
    await cluster.watch(id, (events) => (session ? session.follow(events) : early.push(events)))
    try {
      let record = await backend.getSession(id)
      if (!record) {
        if (opts.create === false) throw new ParlanceError('not_found', `no session ${id}`, { sessionId: id })
        const fresh = await this.newRecord(id, principal, opts)
        if (await cluster.acquire(id)) {
          record = await backend.getSession(id)
          if (!record) {
            session = new Session(this.deps, fresh, { writer: true })
            this.options.store.touch(session)
            return session
          }
        } else {
          // Another node is creating it right now: wait for its record.
          for (let i = 0; i < 20 && !record; i++) {
            await new Promise((r) => setTimeout(r, 25))
            record = await backend.getSession(id)
          }
          if (!record) throw new ParlanceError('unavailable', `session ${id} is being created on another node; try again`, { sessionId: id })
        }
      }
      session = await this.fromRecord(record)
      for (const events of early) session.follow(events)
      return session
    } catch (err) {
      cluster.unwatch(id)
      throw err
    }
  }

  private async fromRecord(record: SessionRecord): Promise<Session> {
    const read = (sid: SessionId, after: number, limit: number) => this.options.store.read(sid, after, limit)
    if (!record.activeRunId) return new Session(this.deps, record, { writer: false })
    if (await this.options.cluster!.acquire(record.id)) {
      // Nobody runs it any more (its node died): take it over and end the run.
      const fresh = (await this.options.store.backend.getSession(record.id)) ?? record
      const closing = fresh.activeRunId ? await closingEvents(read, fresh.id, fresh.activeRunId, fresh.lastSeq) : []
      return new Session(this.deps, fresh, { writer: true, closing, interruptedMessage: ORPHANED })
    }
    const start = await runStartSeq(read, record.id, record.activeRunId, record.lastSeq)
    const session = new Session(this.deps, record, { writer: false, runStartSeq: start })
    // What the run waits for, from its events so far (bounded by the run's length, read once per load).
    for (let after = start - 1; after < record.lastSeq; ) {
      const page = await read(record.id, after, Math.min(this.options.limits.replayPageSize, record.lastSeq - after))
      if (page.length === 0) break
      session.primeRemote(page)
      after = page[page.length - 1]!.seq
    }
    return session
  }

  private async newRecord(id: SessionId, principal: Principal, opts: OpenOptions): Promise<SessionRecord> {
    const max = this.options.limits.maxSessionsPerPrincipal
    if (max > 0 && (await this.options.store.backend.countSessions(principal)) >= max) {
      throw new ParlanceError('rate_limited', `you already own ${max} sessions, the limit; reuse or delete one`, { maxSessionsPerPrincipal: max })
    }
    const agent = opts.agent ?? this.options.defaultAgent
    if (!this.options.agents.has(agent)) throw new ParlanceError('not_found', `no agent named "${agent}"`, { agent })
    const now = Date.now()
    return { id, agent, owner: principal, createdAt: now, updatedAt: now, lastSeq: 0, activeRunId: null, state: {}, messages: [] }
  }

  private async load(id: SessionId, principal: Principal, opts: OpenOptions): Promise<Session> {
    if (this.options.cluster) return this.loadClustered(id, principal, opts)
    const record = await this.options.store.backend.getSession(id)
    if (record) {
      const closing = record.activeRunId
        ? await closingEvents((sid, after, limit) => this.options.store.read(sid, after, limit), id, record.activeRunId, record.lastSeq)
        : []
      return new Session(this.deps, record, { closing })
    }
    if (opts.create === false) throw new ParlanceError('not_found', `no session ${id}`, { sessionId: id })
    const session = new Session(this.deps, await this.newRecord(id, principal, opts))
    this.options.store.touch(session)
    return session
  }
}
