import type { StoredEvent } from '../src/index.js'
import { RAW_EVENTS } from '../src/session/index.js'
import { HumaClient, type HumaClientOptions } from '../src/client/index.js'
import { startServer, type TestServer } from './harness.js'

/** Limits for HUMA tests: no typing delay, short timeouts. */
export const FAST = { typingMsPerChar: 0, messageConfirmTimeoutMs: 2_000, approvalTimeoutMs: 2_000, clientToolTimeoutMs: 2_000 }

/** A server with the demo agent plus a helper to connect HUMA clients that are closed with it. */
export async function humaServer(
  limits: Record<string, number> = {},
): Promise<TestServer & { huma(o?: Omit<HumaClientOptions, 'url'>): Promise<HumaClient> }> {
  const s = await startServer({ limits: { ...FAST, ...limits } })
  const clients: HumaClient[] = []
  return {
    ...s,
    async huma(o = {}) {
      const c = await HumaClient.connect({ url: s.url, ...o })
      clients.push(c)
      return c
    },
    async close() {
      for (const c of clients) c.close()
      await s.close()
    },
  }
}

/**
 * The canonical events of a session as committed, read by a subscriber inside the server (to see run ends). On a
 * cluster it subscribes on the first node, writer or not: a replica delivers every event its writer commits, in
 * order, so what it sees is the log (its `session` is that node's copy: read state from `s.stored` instead).
 */
export async function watch(s: TestServer, sessionId: string) {
  const session = await s.nodes[0]!.sessions.open(sessionId, 'anonymous')
  const events: StoredEvent[] = []
  let wake = () => {}
  session.subscribe(
    {
      codecKey: 'test-watch',
      encoder: RAW_EVENTS,
      view: null,
      write(frames) {
        events.push(...(frames as StoredEvent[]))
        wake()
        return true
      },
    },
    0,
  )
  let cursor = 0
  return {
    session,
    events,
    /** Next event matching `pred` after those already returned. */
    async next(pred: (e: StoredEvent) => boolean, timeoutMs = 5_000): Promise<StoredEvent> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        while (cursor < events.length) {
          const e = events[cursor++]!
          if (pred(e)) return e
        }
        if (Date.now() > deadline) throw new Error('timed out waiting for a server event')
        await new Promise<void>((r) => {
          const t = setTimeout(r, deadline - Date.now() + 1)
          wake = () => {
            clearTimeout(t)
            r()
          }
        })
      }
    },
    /** The next run end (run.finished / run.error). */
    runEnd(timeoutMs?: number) {
      return this.next((e) => e.type === 'run.finished' || e.type === 'run.error', timeoutMs)
    },
  }
}
