// The one way a test waits: for a condition, polled, with a bounded timeout that fails the test naming what it
// waited for. A fixed sleep is not a wait (a slow machine makes it too short, a fast one wastes it), and the lint
// rule for tests forbids one everywhere but here.
import { setTimeout as delay } from 'node:timers/promises'

/** How `waitFor` polls. */
export interface WaitOptions {
  /** What is awaited, for the failure message ("the subscription in Redis"). */
  what: string
  /** Give up after this long (ms). @default 5000 */
  timeoutMs?: number
  /** Between two checks (ms). @default 20 */
  intervalMs?: number
}

/**
 * Resolves with the first truthy value `check` returns (awaited); rejects once `timeoutMs` has passed without
 * one, with `what` and the last error `check` threw, if any.
 */
export async function waitFor<T>(check: () => T | Promise<T>, opts: WaitOptions): Promise<NonNullable<T>> {
  const { what, timeoutMs = 5000, intervalMs = 20 } = opts
  const until = Date.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const value = await check()
      if (value) return value
      lastError = undefined
    } catch (err) {
      lastError = err
    }
    if (Date.now() >= until) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : ''
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`, { cause: lastError })
    }
    await delay(intervalMs)
  }
}

/** A promise that rejects after `timeoutMs`, naming `what`, unless `p` settles first. */
export async function within<T>(p: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  const ac = new AbortController()
  try {
    return await Promise.race([
      p,
      delay(timeoutMs, undefined, { signal: ac.signal }).then(() => {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
      }),
    ])
  } finally {
    ac.abort()
  }
}
