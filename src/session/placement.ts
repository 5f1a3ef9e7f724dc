import { ParlanceError, type Principal, type SessionId } from '../core/index.js'
import { loadSession, type EventStore, type SessionRecord } from '../store/index.js'
import { closingEvents, forkCutMessage } from './recover.js'
import type { SessionDeps } from './deps.js'
import { Session } from './session.js'
import type { OpenOptions } from './session-manager.js'

/**
 * Where sessions live and who writes them: the seam between the session manager and a cluster. A single node
 * (`LocalPlacement`) writes every session it loads; a cluster node (`ClusterNode`, cluster-node.ts) loads each as
 * the writer or a replica, moves leases and forwards commands. The manager only loads, indexes and evicts.
 */
export interface Placement {
  /** This node's id in a cluster, else null. */
  readonly nodeId: string | null
  /** What sessions are built with besides the manager's own deps (cluster: routing, resync, pending sharing). */
  readonly sessionDeps: Pick<SessionDeps, 'route' | 'rejected' | 'sharePending' | 'confirming' | 'confirmingElsewhere'>
  /** Loads a session on this node (from its record, or new), as the writer or a replica. */
  load(id: SessionId, principal: Principal, opts: OpenOptions): Promise<Session>
  /** May this idle session leave memory now? */
  mayUnload(session: Session): boolean
  /** It left memory. */
  unloaded(id: SessionId): void
  /** The session an approval or client tool call id waits in, when it is not loaded here. */
  locatePending(id: string): Promise<SessionId | null>
  /** Draining began: hand over what can go now (cluster: the leases of quiet sessions); called again as runs end. */
  drain(): void
  /** Shutdown, first step: stop timers. */
  stop(): void
  /** Shutdown, last step, once runs are stopped and everything is committed. */
  leave(sessions: readonly Session[]): Promise<void>
}

/** What a placement needs from the session manager. */
export interface PlacementHost {
  readonly store: EventStore
  /** The dependencies sessions are built with (placement's own included). */
  readonly deps: SessionDeps
  /** A new session's record, after the quota and agent checks. */
  newRecord(id: SessionId, principal: Principal, opts: OpenOptions): Promise<SessionRecord>
}

/** One node with its own store: every session loaded here is written here. */
export class LocalPlacement implements Placement {
  readonly nodeId = null
  readonly sessionDeps = {}

  constructor(private readonly host: PlacementHost) {}

  /** Loads from the store, ending a run the record shows active (the process stopped) as interrupted; else creates it. */
  async load(id: SessionId, principal: Principal, opts: OpenOptions): Promise<Session> {
    const { store, deps } = this.host
    const record = await loadSession(store.backend, id)
    if (record) {
      const closing = record.activeRunId
        ? await closingEvents((sid, after, limit) => store.read(sid, after, limit), id, record.activeRunId, record.lastSeq)
        : []
      const forked = forkCutMessage(record)
      return new Session(deps, record, { closing, ...(forked ? { interruptedMessage: forked } : {}) })
    }
    if (opts.create === false) throw new ParlanceError('not_found', `no session ${id}`, { sessionId: id })
    const session = new Session(deps, await this.host.newRecord(id, principal, opts))
    store.touch(session)
    return session
  }

  mayUnload(): boolean {
    return true
  }

  unloaded(): void {}

  locatePending(): Promise<SessionId | null> {
    return Promise.resolve(null)
  }

  drain(): void {}

  stop(): void {}

  leave(): Promise<void> {
    return Promise.resolve()
  }
}
