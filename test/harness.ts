import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, demoAgent, type ParlanceServer, type ServerOptions } from '../src/index.js'
import { HaiClient, type HaiClientOptions } from '../src/client/index.js'

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
 */
export async function startServer(opts: Partial<ServerOptions> = {}): Promise<TestServer> {
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
      for (const c of clients) c.close()
      await server.close()
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
