import { createServer as createNetServer, type AddressInfo } from 'node:net'
import { aguiBridgeAgent, derivedRemoteThreadId, type AguiBridgeOptions } from '../src/agents/agui/index.js'
import { HumaClient } from '../src/client/index.js'
import { demoAgent, type AgentDefinition } from '../src/index.js'
import { startServer, type TestServer } from './harness.js'

/** Limits for the bridge: no typing delay for HUMA bursts, short confirmation wait. */
const FAST = { typingMsPerChar: 0, messageConfirmTimeoutMs: 2_000 }

/** A remote Parlance serving the demo agent over AG-UI, and a second Parlance serving it through the bridge. */
export interface BridgePair {
  remote: TestServer
  bridge: TestServer
  /** A HUMA client of the bridge, closed with it. */
  huma(sessionId?: string): Promise<HumaClient>
  /** The remote session (AG-UI thread) of a bridge session. */
  remoteSession(sessionId: string): string
  close(): Promise<void>
}

/** Starts the pair (memory stores, port 0); the remote also serves `remoteAgents` (at `/agui/<name>`). */
export async function startBridgePair(opts: Partial<AguiBridgeOptions> = {}, remoteAgents: AgentDefinition[] = []): Promise<BridgePair> {
  const remote = await startServer({ agents: [demoAgent, ...remoteAgents], limits: FAST, exposeErrors: true })
  const url = `${remote.url}/agui`
  // exposeErrors: the tests read the bridge's failure messages, which a server without it keeps for its log.
  const bridge = await startServer({ agents: [aguiBridgeAgent({ url, ...opts })], limits: FAST, exposeErrors: true })
  const humas: HumaClient[] = []
  return {
    remote,
    bridge,
    async huma(sessionId) {
      const c = await HumaClient.connect({ url: bridge.url, ...(sessionId ? { sessionId } : {}) })
      humas.push(c)
      return c
    },
    remoteSession: (sessionId) => derivedRemoteThreadId(opts.name ?? 'agui', url, sessionId),
    async close() {
      for (const c of humas) c.close()
      await bridge.close()
      await remote.close()
    },
  }
}

/**
 * A URL where no AG-UI agent can be listening, deterministically: nothing listens on 127.0.0.2, and holding
 * 127.0.0.1 on the same port keeps anyone from listening on 0.0.0.0 there (a closed server's port could be
 * handed to the next server a test starts). Connecting is refused at once (ECONNREFUSED).
 */
export async function unreachable(): Promise<{ url: string; close(): Promise<void> }> {
  const holder = createNetServer((socket) => socket.destroy())
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
  const { port } = holder.address() as AddressInfo
  return { url: `http://127.0.0.2:${port}/agui`, close: () => new Promise<void>((resolve) => holder.close(() => resolve())) }
}
