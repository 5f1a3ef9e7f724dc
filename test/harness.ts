import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, demoAgent, type ParlanceServer, type ServerOptions } from '../src/index.js'
import { HaiClient, type HaiClientOptions } from '../src/client/index.js'
import { tcpProxy } from './support/tcp-proxy.js'
import { dropPrefix, REDIS_URL, testPrefix } from './support/redis.js'

/** A server on a free port for one test; `close()` tears it down (and its temp dir). */
export interface TestServer {
  url: string
  server: ParlanceServer
  /** Directory of the SQLite file (kept until `removeData`). */
  dataDir: string
  close(): Promise<void>
  removeData(): void
  /** Connects a HAI client to this server. */
  hai(opts?: Omit<HaiClientOptions, 'url'>): Promise<HaiClient>
}

/**
 * Starts a Parlance server with the demo agent on 127.0.0.1:0. Defaults to the
 * memory store; pass `store: 'sqlite'` (and optionally `dataDir` to reuse a file).
 *
 * With PARLANCE_TEST_NODES=N (N > 1), a test that asks for the default store gets a cluster instead: N nodes
 * sharing a fresh Redis prefix behind a round-robin TCP balancer (no sticky sessions); `url` is the
 * balancer's and `server` is node 1. The same client tests then prove the cluster behaves like one node.
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
  const lb = await tcpProxy(urls.map((u) => ({ host: u.hostname, port: Number(u.port) })))
  const clients: HaiClient[] = []
  return {
    url: lb.url,
    server: servers[0]!,
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
