import { Redis, type RedisOptions } from 'ioredis'
import { ParlanceError } from '../../core/index.js'

/** Creates the Redis connection the store and coordinator use: bounded retries per command, reconnect forever. */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, {
    // A command waits through a short outage (the offline queue), then fails clearly instead of hanging;
    // the connection itself keeps reconnecting with backoff.
    maxRetriesPerRequest: 3,
    retryStrategy: (times) => Math.min(2000, 50 * 2 ** Math.min(times, 6)),
    lazyConnect: false,
    ...options,
  })
}

/** A Redis command that failed for want of a connection, as the clear error clients get. */
export function unreachable<T>(p: Promise<T>): Promise<T> {
  return p.catch((err: unknown) => {
    if (err instanceof ParlanceError) throw err
    const why = err instanceof Error ? err.message : String(err)
    throw new ParlanceError('unavailable', `the session store (Redis) is unreachable: ${why}; retry shortly`, undefined, { cause: err })
  })
}

/** `p`, or a rejection once `ms` passed without an answer. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]).finally(
    () => clearTimeout(timer),
  )
}
