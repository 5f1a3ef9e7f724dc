import type { Command } from '../core/index.js'
import type { ForwardOutcome } from './cluster.js'
import type { AbortCode, Run } from './run.js'

/**
 * What a session does with commands, by role: the `Writer` (writer.ts; this node runs the agent and commits,
 * always so on a single node) or, in cluster mode, a `Replica` (replica.ts; another node writes, this one follows
 * its events and forwards commands). The session holds one and swaps it on promotion and demotion.
 */
export interface Role {
  readonly kind: 'writer' | 'replica'
  /** The run this node executes (only ever on the writer). */
  readonly run: Run | null
  /** The active run's id, if any (on a replica: the run active on the writer). */
  readonly activeRunId: string | null
  /** seq of the active run's first event. */
  readonly activeRunStartSeq: number | null
  /** Does an approval or client tool call `id` wait in this session? The pending index, derived from the run or the log. */
  waitsFor(id: string): boolean
  /** Carries out a client command (a writer synchronously; a replica returns the writer's outcome). */
  handle(cmd: Command): Promise<ForwardOutcome | undefined> | undefined
  /** Stops the run this node executes, recording its end (a replica has none). */
  stop(code: AbortCode, message: string): void
  /** The role is being replaced: a writer's run stops unrecorded, a replica's waiters are released. */
  leave(): void
}
