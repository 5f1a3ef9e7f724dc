import type { Command, EventBody, Limits, OnBusy, SessionId, StoredEvent } from '../core/index.js'
import type { AgentDefinition } from '../agent-api/index.js'
import type { EventStore } from '../store/index.js'
import type { ForwardOutcome } from './cluster.js'
import type { Session } from './session.js'

/** Observers of session activity (metrics, the manager's run count). */
export interface SessionHooks {
  runStarted?(session: Session): void
  /** `outcome` is 'finished' or the run error's code; `failure`: what the agent threw, and the ref clients were given. */
  runEnded?(session: Session, runId: string, outcome: string, failure?: { ref: string; error: unknown }): void
  /** Events committed and fanned out (by the session's writer). */
  committed?(count: number, events: readonly StoredEvent[]): void
}

/** What a session needs from its surroundings. */
export interface SessionDeps {
  store: EventStore
  agent(name: string): AgentDefinition | undefined
  limits: Limits
  hooks: SessionHooks
  /** Clients get an agent's failure as thrown, not `the agent failed (ref …)` (development; see failure.ts). */
  exposeErrors?: boolean
  /** What a message does while a run is active when neither it nor its agent says. @default 'interrupt' */
  onBusy?: OnBusy
  /** The server is shutting down: queued messages wait for the next start instead of running now. */
  stopping?(): boolean
  /** The server is draining (SIGTERM, `server.drain()`): no new run starts here; active runs go on. */
  draining?(): boolean
  /** May a new run start now (the server-wide concurrent-run limit)? @default always */
  admitRun?(): boolean
  /** Cluster mode: carries out a command on a replica (takes the lease, or forwards to the writer). */
  route?: (session: Session, cmd: Command) => Promise<ForwardOutcome | undefined>
  /** Cluster mode: the store refused this session's events (another node writes it now); resynchronise. */
  rejected?: (session: Session) => void
  /** Cluster mode: tells every node where a request id waits (null: it no longer does). */
  sharePending?: (id: string, sessionId: SessionId | null) => void
  /** Cluster mode: a subscriber that confirms delivery attached here (+1) or left (-1). */
  confirming?: (sessionId: SessionId, delta: 1 | -1) => void
  /** Cluster mode: does one follow the session on another node (the writer's bursts then wait for it)? */
  confirmingElsewhere?: (sessionId: SessionId) => Promise<boolean>
}

/** How a session starts out besides its record. */
export interface SessionOptions {
  /** Events closing what an interrupted run left open (see `closingEvents`). */
  closing?: readonly EventBody[]
  /**
   * Cluster mode: false loads the session as a replica that follows another node's writes. A writer
   * (the default, and always so on a single node) ends a run the record shows active as interrupted.
   */
  writer?: boolean
  /** Replica of a session with an active run elsewhere: the seq of that run's first event. */
  runStartSeq?: number
  /** The message of the run error recording an interrupted run. */
  interruptedMessage?: string
}
