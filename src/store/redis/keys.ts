/**
 * Every Redis key and channel name Parlance uses is built here and nowhere else: the store, its commit script,
 * the cluster coordinator and its lease scripts, the signing key and the Socket.IO adapter all take their names
 * from `redisKeys(prefix)`. Scripts receive every key they touch in KEYS (none is built inside Lua; ARGV holds
 * values and channel names only), so Redis, a proxy or a cluster client sees which keys a script touches, and
 * key-pattern ACLs apply: a user limited to `~<prefix>*` and `&<prefix>*` (channels) can run Parlance.
 *
 * ## Layout (`p` = the prefix, default `parlance:`)
 *
 * | name | type | holds | slot |
 * |---|---|---|---|
 * | `p{s:<session>}:log` | stream | the session's events, entry id `<seq>-0` | the session's |
 * | `p{s:<session>}:meta` | hash | the session's record (agent, owner, lastSeq, logSeq, state, queue…) | the session's |
 * | `p{s:<session>}:history` | list | the session's history, one JSON message per entry (a turn appends its own) | the session's |
 * | `p{s:<session>}:lease` | string, PX | the node writing the session (cluster mode) | the session's |
 * | `p{s:<session>}:ev` | channel | committed events, for replicas (published by the commit script) | the session's |
 * | `p{s:<session>}:confirming` | hash | nodes with subscribers that confirm delivery (HUMA): node → count | the session's |
 * | `p{r:<scope>}:records` | hash | a scope's records (`getRecord`): key → JSON | the scope's |
 * | `p{r:<scope>}:keys` | sorted set | the same keys, all scored 0, listed in byte order (`ZRANGEBYLEX`) | the scope's |
 * | `psessions` | sorted set | session ids by update time (listings) | global |
 * | `powner:<principal>` | set | a principal's session ids (the per-principal quota) | global |
 * | `pleases` | sorted set | leased session ids by expiry (orphaned runs found without a scan) | global |
 * | `ppending:<request>` | string, EX 1 day | the session an approval / client tool call waits in (cluster) | its own |
 * | `pnode:<node>` | channel | commands forwarded to a node, and their answers | — |
 * | `psecret` | string | the cluster's signing key | its own |
 * | `phugai:agents` | hash | HugAI agents registered by connections: agent id → `{node, info}` | its own |
 * | `phugai:checkpoints` | hash | HugAI open checkpoints: id → `{node, name, owner}` | its own |
 * | `phugai:early` | hash | HugAI decisions made before their checkpoint: id or name → the decision | its own |
 * | `phugai:task:<task>` | string, EX 1 day | the node running a HugAI task | its own |
 * | `phugai:node:<node>`, `phugai:all` | channels | HugAI hub calls and pushes to one node, and to all | — |
 * | `psocket.io`, `psio:session:*` | stream, strings | the Socket.IO Redis streams adapter's (HUMA) | their own |
 *
 * A session's keys share the hash tag `{s:<session>}` (Redis hashes what lies between the first `{` and the next
 * `}`), so one session's log, record and lease hash to one slot whatever the id holds: an id with braces still
 * gives one tag per session, and an empty id still a non-empty tag. A prefix with its own tag (`{parlance}:`)
 * takes precedence: every key then hashes to that one slot.
 *
 * ## Operations and slots
 *
 * | operation | keys | single-slot |
 * |---|---|---|
 * | commit (script) | sessions, leases; per session of the unit: meta, log, lease, and owner and history on a record write | no |
 * | readEvents (XRANGE), getSession (HGETALL, LRANGE) | the session's log / meta and history | yes |
 * | listSessions | sessions (ZREVRANGE), then each listed meta (HMGET, pipelined) | each command yes, the pipeline spans slots |
 * | countSessions (SCARD) | owner | yes |
 * | getRecord (HGET), putRecord (MULTI of HSET/HDEL and ZADD/ZREM), listRecords (ZRANGEBYLEX, HMGET) | the scope's records and keys | yes |
 * | acquire, renew, release (scripts; renew pipelined per session) | the session's lease, leases | no |
 * | claimOrphans: expired (script) | leases | yes |
 * | claimOrphans: claim (script, per session) | leases, the session's lease and meta | no |
 * | holder, share/locatePending, signing key | one key each | yes |
 *
 * The commit script is cross-slot twice over: it writes the global indexes (`sessions` on every record write,
 * `owner:*` when a session is created, `leases` when it takes an expired lease back), and a commit unit is one
 * event-loop tick of every session that produced events, so it spans many sessions. It stays one script because
 * a unit is all or nothing (`StoreBackend.commit`; the contract suite and the lease-fencing test check it) and
 * `EventStore` relies on that: a failed unit is retried whole, a refused one (`StoreConflict`) is committed again
 * without the refused sessions, both correct only if nothing of it was written. Split into per-slot scripts it
 * would pass those tests only by checking every session first and writing after, which is not atomic: a Redis
 * outage between two writes (test/cluster-outage.test.ts cuts Redis mid-stream) would leave part of a unit
 * written, and its whole retry would then fail the seq check forever (one node) or drop live sessions as fenced
 * (cluster). Moving the index writes out of the script would not help while a unit spans sessions, and would
 * let a crash leave a session unlisted or uncounted. The lease scripts' one global key is the `leases` index;
 * written first, as a superset of the live leases (claim forgets entries whose lease and run are gone), it
 * would make each lease script single-slot. That is not done while the commit needs one primary anyway.
 *
 * ## What this means for Redis Cluster
 *
 * Parlance needs one Redis primary: standalone, with replicas, under Sentinel, or a managed service with
 * cluster mode disabled. On Redis Cluster the cross-slot scripts fail with CROSSSLOT. A prefix with one hash
 * tag (`{parlance}:`) puts every key in one slot, so every script is single-slot; with a cluster-aware client
 * that would run on one shard of a Cluster (its failover, none of its sharding), but the store connects with a
 * plain ioredis client, which does not follow MOVED redirections, so not today. Sharding sessions across slots
 * needs commit units grouped by slot (in `EventStore`), each retried idempotently, and the indexes sharded by tag.
 */
export function redisKeys(prefix: string) {
  const session = (id: string) => `${prefix}{s:${id}}:`
  return {
    /** The session's event stream. */
    log: (id: string) => `${session(id)}log`,
    /** The session's record (hash). */
    meta: (id: string) => `${session(id)}meta`,
    /** The session's history (list of JSON messages; a version before it kept them whole in meta's `messages`). */
    history: (id: string) => `${session(id)}history`,
    /** The session's write lease (cluster mode). */
    lease: (id: string) => `${session(id)}lease`,
    /** Channel of a session's committed events. */
    channel: (id: string) => `${session(id)}ev`,
    /** Nodes with subscribers of the session that confirm delivery (HUMA): node → how many. */
    confirming: (id: string) => `${session(id)}confirming`,
    /** A scope's records (hash: key → JSON). */
    records: (scope: string) => `${prefix}{r:${scope}}:records`,
    /** The keys of a scope's records, in byte order (sorted set, every score 0). */
    recordKeys: (scope: string) => `${prefix}{r:${scope}}:keys`,
    /** Session ids by update time. */
    sessions: `${prefix}sessions`,
    /** A principal's session ids. */
    owner: (owner: string) => `${prefix}owner:${owner}`,
    /** Leased session ids by expiry. */
    leases: `${prefix}leases`,
    /** Channel of a node's forwarded commands. */
    node: (nodeId: string) => `${prefix}node:${nodeId}`,
    /** The session an approval / client tool call id waits in. */
    pending: (requestId: string) => `${prefix}pending:${requestId}`,
    /** HugAI's hub across nodes (src/dialects/hugai/hub/redis-link.ts). */
    hugai: {
      agents: `${prefix}hugai:agents`,
      checkpoints: `${prefix}hugai:checkpoints`,
      early: `${prefix}hugai:early`,
      task: (taskId: string) => `${prefix}hugai:task:${taskId}`,
      node: (nodeId: string) => `${prefix}hugai:node:${nodeId}`,
      all: `${prefix}hugai:all`,
    },
    /** The cluster's signing key. */
    secret: `${prefix}secret`,
    /** Prefix of the Socket.IO Redis streams adapter's keys and channels. */
    socketIo: `${prefix}socket.io`,
    socketIoSession: `${prefix}sio:session:`,
    /** SCAN / PSUBSCRIBE pattern of every key and channel under the prefix (glob characters in it escaped). */
    all: `${prefix.replace(/[\\*?[\]]/g, '\\$&')}*`,
  }
}

/** The key names of one prefix. */
export type RedisKeys = ReturnType<typeof redisKeys>
