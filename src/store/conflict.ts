import type { SessionId } from '../core/index.js'

/**
 * A commit refused because this node is not the writer of some of its sessions (cluster mode: their lease
 * is held by another node, or expired). Nothing of the unit was written. The shared writer drops those
 * sessions' events, tells their listeners (`onRejected`), and commits the rest at once.
 */
export class StoreConflict extends Error {
  constructor(readonly sessionIds: readonly SessionId[]) {
    super(`not the writer of session(s) ${sessionIds.join(', ')}: their lease is held by another node or expired`)
    this.name = 'StoreConflict'
  }
}
