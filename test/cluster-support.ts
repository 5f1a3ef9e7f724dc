import type { ClusterOptions } from '../src/server/index.js'
import { startServer, type TestServer } from './harness.js'
import { REDIS_URL } from './support/redis.js'

export { REDIS_URL, dropPrefix, testPrefix } from './support/redis.js'

/** Limits that keep cluster tests quick: no typing delay, short waits. */
export const FAST = { typingMsPerChar: 0, messageConfirmTimeoutMs: 2_000, approvalTimeoutMs: 5_000, clientToolTimeoutMs: 5_000 }

/** Starts `n` in-process nodes sharing one Redis prefix, each on its own port, with the demo agent. */
export async function startNodes(n: number, prefix: string, cluster: Partial<ClusterOptions> = {}): Promise<TestServer[]> {
  const nodes: TestServer[] = []
  for (let i = 0; i < n; i++) {
    nodes.push(await startServer({ store: REDIS_URL, cluster: { prefix, nodeId: `node-${i + 1}`, leaseMs: 1000, ...cluster }, limits: FAST }))
  }
  return nodes
}
