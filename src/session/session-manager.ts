import { ParlanceError, type Limits, type Principal, type SessionId } from '../core/index.js'
import type { AgentDefinition } from '../agent/index.js'
import type { EventStore } from '../store/index.js'
import { closingEvents } from './recover.js'
import { Session, type SessionHooks } from './session.js'

/** What the session manager needs. */
export interface SessionManagerOptions {
  store: EventStore
  /** Agents by name. */
  agents: ReadonlyMap<string, AgentDefinition>
  /** Agent of new sessions when the client names none. */
  defaultAgent: string
  limits: Limits
  hooks?: SessionHooks
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
      this.ready.delete(id)
      this.loaded.delete(id)
      this.lastUsed.delete(id)
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

  /** The session in which an approval or client tool call id is waiting. */
  findPending(id: string): Session | undefined {
    return this.pendingIndex.get(id)
  }

  /** Stops every active run (recorded as interrupted) and waits for the store. */
  async shutdown(reason = 'the server is shutting down'): Promise<void> {
    clearInterval(this.sweeper)
    for (const p of this.loaded.values()) {
      const s = await p.catch(() => undefined)
      s?.stop('interrupted', reason)
      s?.detachAll()
    }
    await this.options.store.flush()
  }

  private async load(id: SessionId, principal: Principal, opts: OpenOptions): Promise<Session> {
    const deps = {
      store: this.options.store,
      agent: (name: string) => this.options.agents.get(name),
      limits: this.options.limits,
      hooks: this.hooks,
      admitRun: () => this.options.limits.maxConcurrentRuns <= 0 || this.activeRuns < this.options.limits.maxConcurrentRuns,
    }
    const record = await this.options.store.backend.getSession(id)
    if (record) {
      const closing = record.activeRunId
        ? await closingEvents((sid, after, limit) => this.options.store.read(sid, after, limit), id, record.activeRunId, record.lastSeq)
        : []
      return new Session(deps, record, closing)
    }
    if (opts.create === false) throw new ParlanceError('not_found', `no session ${id}`, { sessionId: id })
    const max = this.options.limits.maxSessionsPerPrincipal
    if (max > 0 && (await this.options.store.backend.countSessions(principal)) >= max) {
      throw new ParlanceError('rate_limited', `you already own ${max} sessions, the limit; reuse or delete one`, { maxSessionsPerPrincipal: max })
    }
    const agent = opts.agent ?? this.options.defaultAgent
    if (!this.options.agents.has(agent)) throw new ParlanceError('not_found', `no agent named "${agent}"`, { agent })
    const now = Date.now()
    const session = new Session(deps, {
      id,
      agent,
      owner: principal,
      createdAt: now,
      updatedAt: now,
      lastSeq: 0,
      activeRunId: null,
      state: {},
      messages: [],
    })
    this.options.store.touch(session)
    return session
  }
}
