import type { Command, Principal, SessionId, StoredEvent } from '../core/index.js'

/** A command forwarded from another node to the one that writes the session. */
export interface ForwardedCommand {
  sessionId: SessionId
  principal: Principal
  command: Command
  /** How many nodes it has passed through (a lease that moves while it travels); bounded. */
  hops: number
}

/** What the writer answers a forwarded command with. */
export interface ForwardOutcome {
  /** The session's last seq right before the command was carried out. */
  before: number
  /** The session's last seq right after it. */
  seq: number
  /** The run active right after it (the run a message started, or the one an answer continued), if any. */
  runId: string | null
}

/**
 * What the session layer needs from a cluster of nodes sharing one store (the
 * seam of src/cluster; single-node servers have none). Each session has at
 * most one writer at a time, the node holding its lease: that node assigns
 * seqs, runs the agent and commits. Every other node that has the session
 * loaded is a replica: it follows the committed events and forwards the
 * commands its clients send to the writer.
 */
export interface ClusterPort {
  readonly nodeId: string
  /** Lease time to live (ms); renewed every third of it while held. */
  readonly leaseMs: number
  /** Takes the session's write lease (or keeps it, when already held here). True when this node holds it. */
  acquire(sessionId: SessionId): Promise<boolean>
  /** The node holding the lease, or null. */
  holder(sessionId: SessionId): Promise<string | null>
  /** Gives the lease up (no-op unless held here). */
  release(sessionId: SessionId): Promise<void>
  /** Extends the leases held here; returns the sessions whose lease this node has lost. */
  renew(sessionIds: readonly SessionId[]): Promise<SessionId[]>
  /** Takes the expired leases of sessions whose record still shows an active run (their node died). */
  claimOrphans(): Promise<SessionId[]>
  /**
   * Sends a command to the writer `nodeId` and resolves with its outcome: the writer's last seq once it
   * carried the command out (so the sender can wait to see its effects), or throws its ParlanceError.
   */
  forward(nodeId: string, cmd: ForwardedCommand): Promise<ForwardOutcome>
  /** Installs the handler of commands other nodes forward here. */
  onForward(handler: (cmd: ForwardedCommand) => Promise<ForwardOutcome>): void
  /** Follows a session's committed events (as the writer publishes them). */
  watch(sessionId: SessionId, onEvents: (events: StoredEvent[]) => void): Promise<void>
  unwatch(sessionId: SessionId): void
  /** Records (or, with null, forgets) which session an approval / client tool call id waits in, for every node. */
  sharePending(id: string, sessionId: SessionId | null): void
  /** The session an approval / client tool call id waits in, as recorded by its writer. */
  locatePending(id: string): Promise<SessionId | null>
  /** A subscriber that confirms delivery (HUMA) attached to the session here (+1) or left (-1), for the writer to see. */
  confirming(sessionId: SessionId, delta: 1 | -1): void
  /** Does a subscriber that confirms delivery follow the session on another live node? */
  confirmingElsewhere(sessionId: SessionId): Promise<boolean>
  /** Called after the connection to the shared store came back: replicas may have missed events. */
  onReconnect(handler: () => void): void
  close(): Promise<void>
}
