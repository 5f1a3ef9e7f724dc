import { newId, ParlanceError, type Limits, type OnBusy, type Principal, type SessionId } from '../core/index.js'
import type { AgentDefinition } from '../agent-api/index.js'
import { forkSession, type EventStore, type SessionRecord } from '../store/index.js'
import type { ClusterPort } from './cluster.js'
import { ClusterNode } from './cluster-node.js'
import { LocalPlacement, type Placement } from './placement.js'
import type { SessionDeps, SessionHooks } from './deps.js'
import type { Session } from './session.js'

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
  /** What a message does while a run is active when neither it nor its agent says. @default 'interrupt' */
  onBusy?: OnBusy
  /** Clients get an agent's failure as thrown (SessionDeps.exposeErrors). */
  exposeErrors?: boolean
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
  private activeRuns = 0
  private readonly hooks: SessionHooks
  private readonly lastUsed = new Map<SessionId, number>()
  /** Loaded sessions, once their load resolved. */
  private readonly ready = new Map<SessionId, Session>()
  private readonly sweeper: NodeJS.Timeout
  /** Where sessions live and who writes them: this node alone, or a cluster (leases, replicas, forwarding). */
  private readonly placement: Placement
  private stopping = false
  private draining = false
  /** Callers of `drain` waiting for the last active run to end. */
  private idleWaiters: Array<() => void> = []

  constructor(private readonly options: SessionManagerOptions) {
    const outer = options.hooks ?? {}
    this.hooks = {
      ...outer,
      runStarted: (s) => {
        this.activeRuns++
        outer.runStarted?.(s)
      },
      runEnded: (s, runId, outcome, failure) => {
        this.activeRuns--
        outer.runEnded?.(s, runId, outcome, failure)
        if (this.draining) {
          this.placement.drain() // cluster: this session's lease goes to a live node once its end is committed
          if (this.activeRuns === 0) for (const w of this.idleWaiters.splice(0)) w()
        }
      },
    }
    const idleMs = options.limits.sessionIdleMs
    this.sweeper = setInterval(() => this.evictIdle(Date.now() - idleMs), Math.max(1000, Math.min(60_000, idleMs / 2)))
    this.sweeper.unref()
    const deps: SessionDeps = {
      store: options.store,
      agent: (name: string) => options.agents.get(name),
      limits: options.limits,
      hooks: this.hooks,
      ...(options.onBusy ? { onBusy: options.onBusy } : {}),
      ...(options.exposeErrors ? { exposeErrors: true } : {}),
      stopping: () => this.stopping,
      draining: () => this.draining,
      admitRun: () => options.limits.maxConcurrentRuns <= 0 || this.activeRuns < options.limits.maxConcurrentRuns,
    }
    const host = {
      store: options.store,
      limits: options.limits,
      deps,
      newRecord: (id: SessionId, principal: Principal, opts: OpenOptions) => this.newRecord(id, principal, opts),
    }
    this.placement = options.cluster
      ? new ClusterNode(options.cluster, {
          ...host,
          get: (id) => this.ready.get(id),
          sessions: () => this.ready.values(),
          open: (id, principal, opts) => this.open(id, principal, opts),
        })
      : new LocalPlacement(host)
    // The placement's own session deps (cluster: routing, resync, pending sharing), before any session is built.
    Object.assign(deps, this.placement.sessionDeps)
  }

  /** This node's id in a cluster, else null. */
  get nodeId(): string | null {
    return this.placement.nodeId
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
      if ((this.lastUsed.get(id) ?? 0) > before || !s.idle || !this.placement.mayUnload(s)) continue
      this.ready.delete(id)
      this.loaded.delete(id)
      this.lastUsed.delete(id)
      this.placement.unloaded(id)
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

  /**
   * The session in which an approval or client tool call id is waiting, among those loaded here: asked of each
   * session (its run's state, or on a replica what the log shows), so it can never go stale. For an answer that
   * names only its id; a dialect that knows the session asks `session.waitsFor(id)`.
   */
  findPending(id: string): Session | undefined {
    for (const s of this.ready.values()) if (s.waitsFor(id)) return s
    return undefined
  }

  /** The id of the session an approval or client tool call id waits in: loaded here, else (cluster) on any node. */
  async locatePending(id: string): Promise<SessionId | undefined> {
    return this.findPending(id)?.id ?? (await this.placement.locatePending(id).catch(() => null)) ?? undefined
  }

  /**
   * Opens the sessions the store shows unfinished (a run was active, messages were queued when the previous
   * process stopped), as their owners, so their runs are closed as interrupted and their queues run now rather
   * than when a client next opens them. Single node only (a cluster's nodes take over sessions through leases).
   * Resolves with how many were opened; one that fails to open is skipped.
   */
  async resumeUnfinished(limit = 10_000): Promise<number> {
    if (this.options.cluster || !this.options.store.backend.unfinished) return 0
    let n = 0
    for (const { id, owner } of await this.options.store.backend.unfinished(limit)) {
      if (this.stopping) break
      if (
        await this.open(id, owner, { create: false }).then(
          () => true,
          () => false,
        )
      )
        n++
    }
    return n
  }

  /**
   * Forks session `sourceId` (which `principal` must own) at `atSeq` (default: its last committed event) into a
   * new session `id` (default: a new id) owned by `principal`: its log is the source's events 1..atSeq, its
   * history and state theirs (see `forkSession`); a run still active at atSeq is closed in the fork at once
   * (`run.error` interrupted, after the copied events). The source is unchanged. Counts against the session quota.
   */
  async fork(sourceId: SessionId, principal: Principal, opts: { atSeq?: number; id?: SessionId } = {}): Promise<SessionRecord> {
    const source = await this.open(sourceId, principal, { create: false })
    // Events up to atSeq must be committed before they can be copied.
    if (opts.atSeq === undefined || opts.atSeq > source.committedSeq) await this.options.store.flush()
    const atSeq = opts.atSeq ?? source.committedSeq
    if (atSeq === 0)
      throw new ParlanceError('invalid_message', `session ${sourceId} has no events yet; there is nothing to fork`, { sessionId: sourceId })
    const id = opts.id ?? newId('fork')
    if (this.ready.has(id) || this.loaded.has(id)) throw new ParlanceError('conflict', `session ${id} already exists`, { sessionId: id })
    const max = this.options.limits.maxSessionsPerPrincipal
    if (max > 0 && (await this.options.store.backend.countSessions(principal)) >= max) {
      throw new ParlanceError('rate_limited', `you already own ${max} sessions, the limit; reuse or delete one`, { maxSessionsPerPrincipal: max })
    }
    const record = await forkSession(this.options.store.backend, sourceId, { id, atSeq, owner: principal })
    // A run the fork cut is closed now (as after a restart), so no listing shows the fork running.
    if (!record.activeRunId) return record
    const fork = await this.open(id, principal, { create: false })
    return { ...record, lastSeq: fork.lastSeq, activeRunId: fork.activeRunId }
  }

  /** Draining (see `drain`): no new run starts here. */
  get isDraining(): boolean {
    return this.draining
  }

  /**
   * Starts draining: from now on no new run starts on this node (a message that would start one is refused as
   * `unavailable` with `retryAfterMs`; in a cluster the leases of quiet sessions are given up at once and those of
   * busy ones as their runs end, so a live node writes them next), while active runs go on streaming to their
   * clients. Resolves true once no run is active, or false after `timeoutMs` with runs still active (`shutdown`
   * then interrupts them).
   */
  async drain(timeoutMs: number): Promise<boolean> {
    if (!this.draining) {
      this.draining = true
      this.placement.drain()
    }
    if (this.activeRuns === 0) return true
    let timer: NodeJS.Timeout | undefined
    const done = await Promise.race([
      new Promise<true>((resolve) => this.idleWaiters.push(() => resolve(true))),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ])
    clearTimeout(timer)
    return done
  }

  /**
   * Stops every active run (recorded as interrupted), waits for the store, and only then detaches the
   * subscribers: a live client receives the interrupted error in its dialect before its connection closes.
   */
  async shutdown(reason = 'the server is shutting down'): Promise<void> {
    this.stopping = true
    clearInterval(this.sweeper)
    this.placement.stop()
    const sessions: Session[] = []
    for (const p of this.loaded.values()) {
      const s = await p.catch(() => undefined)
      if (!s) continue
      sessions.push(s)
      s.stop('interrupted', reason) // a replica's run is stopped by its writer
    }
    await this.options.store.flush()
    for (const s of sessions) s.detachAll()
    await this.placement.leave(sessions)
  }

  /** A new session's record for `principal`, after the per-principal quota and agent checks. */
  private async newRecord(id: SessionId, principal: Principal, opts: OpenOptions): Promise<SessionRecord> {
    const max = this.options.limits.maxSessionsPerPrincipal
    if (max > 0 && (await this.options.store.backend.countSessions(principal)) >= max) {
      throw new ParlanceError('rate_limited', `you already own ${max} sessions, the limit; reuse or delete one`, { maxSessionsPerPrincipal: max })
    }
    const agent = opts.agent ?? this.options.defaultAgent
    if (!this.options.agents.has(agent)) throw new ParlanceError('not_found', `no agent named "${agent}"`, { agent })
    const now = Date.now()
    return {
      id,
      agent,
      owner: principal,
      createdAt: now,
      updatedAt: now,
      lastSeq: 0,
      activeRunId: null,
      state: {},
      messages: [],
      queue: [],
      forkedFrom: null,
    }
  }

  private load(id: SessionId, principal: Principal, opts: OpenOptions): Promise<Session> {
    return this.placement.load(id, principal, opts)
  }
}
