import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, demoAgent, type ParlanceServer, type ServerOptions } from '../src/index.js'
import type { StoredEvent } from '../src/core/index.js'
import { loadSession, type SessionRecord, type StoreBackend } from '../src/store/index.js'
import { HaiClient, type HaiClientOptions } from '../src/client/index.js'
import { tcpProxy } from './support/tcp-proxy.js'
import { dropPrefix, REDIS_URL, testPrefix } from './support/redis.js'

/** A server on a free port for one test; `close()` tears it down (and its temp dir). */
export interface TestServer {
  url: string
  /**
   * The server, on a single node. On a cluster (PARLANCE_TEST_NODES > 1) any use of it throws: which node a client
   * landed on, and which one writes a session, is the balancer's and the leases' business, so a test reads what
   * every node shares instead (`log`, `stored`, `backend`) or picks its node from `nodes` by what it holds.
   */
  readonly server: ParlanceServer
  /** Every node: the one server, or the cluster's nodes. */
  readonly nodes: readonly ParlanceServer[]
  /** The storage every node shares. Read it after `flush()`. */
  readonly backend: StoreBackend
  /** Commits what each node still holds (then the store has every event any client has seen, and more). */
  flush(): Promise<void>
  /** A session's events, read from the store every node shares once each node has committed what it holds. */
  log(sessionId: string): Promise<StoredEvent[]>
  /** A session as stored once each node has committed (its history, its state as of its last event); undefined: none. */
  stored(sessionId: string): Promise<SessionRecord | undefined>
  /** Directory of the SQLite file (kept until `removeData`). */
  dataDir: string
  close(): Promise<void>
  removeData(): void
  /** Connects a HAI client to this server. */
  hai(opts?: Omit<HaiClientOptions, 'url'>): Promise<HaiClient>
}

/** What a test reads the same way on one node or a cluster: the store every node shares. */
function shared(nodes: ParlanceServer[]): Pick<TestServer, 'nodes' | 'backend' | 'flush' | 'log' | 'stored'> {
  const backend = nodes[0]!.sessions.store.backend
  const flush = async () => {
    for (const n of nodes) await n.sessions.store.flush()
  }
  return {
    nodes,
    backend,
    flush,
    async log(id) {
      await flush()
      return backend.readEvents(id, 0, 100_000)
    },
    async stored(id) {
      await flush()
      return loadSession(backend, id)
    },
  }
}

/**
 * Starts a Parlance server with the demo agent on 127.0.0.1:0. Defaults to the
 * memory store; pass `store: 'sqlite'` (and optionally `dataDir` to reuse a file).
 *
 * With PARLANCE_TEST_NODES=N (N > 1), a test that asks for the default store gets a cluster instead: N nodes
 * sharing a fresh Redis prefix behind a round-robin TCP balancer (no sticky sessions); `url` is the
 * balancer's, whose first connection goes to node 2, and `server` throws (see `TestServer`). The same client tests then prove the cluster behaves like one node.
 */
export async function startServer(opts: Partial<ServerOptions> = {}): Promise<TestServer> {
  const nodes = Number(process.env.PARLANCE_TEST_NODES ?? 1)
  if (nodes > 1 && (opts.store === undefined || opts.store === 'memory')) return startCluster(nodes, opts)
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'parlance-test-'))
  const server = await createServer({
    agents: [demoAgent],
    store: 'memory',
    logger: false,
    heartbeatIntervalMs: 0,
    ...opts,
    dataDir,
  })
  const url = await server.listen(0, '127.0.0.1')
  const clients: HaiClient[] = []
  return {
    url,
    server,
    ...shared([server]),
    dataDir,
    async close() {
      // The server first: its clients see a shutdown as a deploy gives it to them (what it sends, then 1001).
      // A client closed first drops what arrives after its close(), as the WHATWG WebSocket (Node 22+'s
      // global, which the clients use there) must; `ws`, the clients' socket on Node 20, still delivers it.
      await server.close()
      for (const c of clients) c.close()
    },
    removeData() {
      rmSync(dataDir, { recursive: true, force: true })
    },
    async hai(o = {}) {
      const c = await HaiClient.connect({ url, ...o })
      clients.push(c)
      return c
    },
  }
}

/** A cluster's `server`: any use throws (a TestServer may still be spread into another object). */
const noNodeByAssumption = new Proxy({} as ParlanceServer, {
  get() {
    throw new Error('a cluster test reads node 1 by assumption: read s.log / s.stored / s.backend, or pick a node of s.nodes')
  },
})

async function startCluster(n: number, opts: Partial<ServerOptions>): Promise<TestServer> {
  const prefix = testPrefix()
  const dataDir = mkdtempSync(join(tmpdir(), 'parlance-test-'))
  const servers: ParlanceServer[] = []
  const urls: URL[] = []
  for (let i = 0; i < n; i++) {
    const server = await createServer({
      agents: [demoAgent],
      logger: false,
      heartbeatIntervalMs: 0,
      ...opts,
      store: REDIS_URL,
      cluster: { prefix, nodeId: `node-${i + 1}`, leaseMs: 1000, ...opts.cluster },
      dataDir,
    })
    servers.push(server)
    urls.push(new URL(await server.listen(0, '127.0.0.1')))
  }
  // The balancer's turn starts at node 2, so a test that assumed its first client landed on node 1 fails.
  const upstreams = urls.map((u) => ({ host: u.hostname, port: Number(u.port) }))
  const lb = await tcpProxy([...upstreams.slice(1), upstreams[0]!])
  const clients: HaiClient[] = []
  return {
    url: lb.url,
    server: noNodeByAssumption,
    ...shared(servers),
    dataDir,
    async close() {
      for (const c of clients) c.close()
      await lb.close()
      for (const s of servers) await s.close()
      await dropPrefix(prefix)
    },
    removeData() {
      rmSync(dataDir, { recursive: true, force: true })
    },
    async hai(o = {}) {
      const c = await HaiClient.connect({ url: lb.url, ...o })
      clients.push(c)
      return c
    },
  }
}
