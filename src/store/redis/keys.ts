/**
 * Every Redis key and channel name Parlance uses, built here and nowhere else: the store, its commit script and
 * the cluster coordinator all take their names from `redisKeys(prefix)`, and every script receives the keys it
 * touches in KEYS (none is built inside Lua), so key-pattern ACLs (`~parlance:*`) apply and Redis can check them.
 *
 * | name | type | holds |
 * |---|---|---|
 * | `{p}s:{<session>}:log` | stream | the session's events, entry id `<seq>-0` |
 * | `{p}s:{<session>}:meta` | hash | the session's record (agent, owner, lastSeq, logSeq, state, messages…) |
 * | `{p}s:{<session>}:lease` | string, TTL | the node writing the session (cluster mode) |
 * | `{p}s:{<session>}:ev` | channel | committed events, for replicas (published by the commit script) |
 * | `{p}sessions` | sorted set | session ids by update time (listings) |
 * | `{p}owner:<principal>` | set | a principal's session ids (the per-principal quota) |
 * | `{p}leases` | sorted set | leased session ids by expiry (finding orphaned runs without a scan) |
 * | `{p}pending:<request>` | string, TTL | the session an approval / client tool call waits in (cluster) |
 * | `{p}node:<node>` | channel | commands forwarded to a node, and their answers |
 * | `{p}secret` | string | the cluster's signing key |
 *
 * Slots: a session's own keys share the hash tag `{<session>}`, so one session's log, record and lease hash to
 * one slot. The indexes (`sessions`, `owner:*`, `leases`) are global, and a commit unit batches many sessions,
 * so the commit script and the lease scripts are cross-slot: Parlance runs on one Redis primary (with replicas
 * or Sentinel), not on Redis Cluster. Cluster support would shard the indexes by tag and split each commit per
 * slot — the declared keys above are the part of that already done.
 */
export function redisKeys(prefix: string) {
  const session = (id: string) => `${prefix}s:{${id}}:`
  return {
    log: (id: string) => `${session(id)}log`,
    meta: (id: string) => `${session(id)}meta`,
    lease: (id: string) => `${session(id)}lease`,
    /** Channel of a session's committed events. */
    channel: (id: string) => `${session(id)}ev`,
    sessions: `${prefix}sessions`,
    owner: (owner: string) => `${prefix}owner:${owner}`,
    leases: `${prefix}leases`,
    /** Channel of a node's forwarded commands. */
    node: (nodeId: string) => `${prefix}node:${nodeId}`,
    pending: (requestId: string) => `${prefix}pending:${requestId}`,
    secret: `${prefix}secret`,
    /** Prefix of the Socket.IO Redis streams adapter's keys and channels. */
    socketIo: `${prefix}socket.io`,
    socketIoSession: `${prefix}sio:session:`,
  }
}

/** The key names of one prefix. */
export type RedisKeys = ReturnType<typeof redisKeys>
