import type { StoredEvent } from '../src/index.js'
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

/** Collects the canonical events a node delivers for a session (a subscriber inside that node's server). */
export async function canonical(node: TestServer, sessionId: string, afterSeq = 0) {
  const session = await node.server.sessions.open(sessionId, 'anonymous')
  const events: StoredEvent[] = []
  let wake = () => {}
  session.subscribe(
    {
      codecKey: 'test-canonical',
      encode: (evs) => evs.slice(),
      write(frames) {
        events.push(...(frames as StoredEvent[]))
        wake()
        return true
      },
    },
    afterSeq,
  )
  return {
    events,
    /** Resolves once an event matching `pred` arrived (rejects after `timeoutMs`). */
    async until(pred: (e: StoredEvent) => boolean, timeoutMs = 10_000): Promise<StoredEvent> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const hit = events.find(pred)
        if (hit) return hit
        if (Date.now() > deadline) throw new Error(`no matching event within ${timeoutMs} ms; got ${events.map((e) => `${e.seq}:${e.type}`).join(' ')}`)
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, 50)
        })
      }
    },
  }
}
