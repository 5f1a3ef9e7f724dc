import { randomFillSync } from 'node:crypto'

/** A conversation's id, chosen by the client (HAI `session_id`, AG-UI `threadId`) or generated. */
export type SessionId = string & { readonly __brand?: 'SessionId' }
/** One agent run inside a session. */
export type RunId = string & { readonly __brand?: 'RunId' }
/** The authenticated caller a session belongs to. */
export type Principal = string & { readonly __brand?: 'Principal' }

/** The principal used when authentication is off. */
export const ANONYMOUS: Principal = 'anonymous'

/** Random bytes drawn 4 KiB at a time (256 ids); each id takes 16 bytes of it, never reused. */
const pool = Buffer.alloc(4096)
let poolAt = pool.length

/**
 * A new random id with a readable prefix and 128 random bits in hex, e.g. `run_3f2c…` (32 hex digits). From a
 * pool of the OS's random bytes: 0.12 µs an id instead of 0.46 for `randomUUID().replace(/-/g, '')`, and a
 * session in a burst makes several (its run, its messages).
 */
export function newId(prefix: string): string {
  if (poolAt === pool.length) {
    randomFillSync(pool)
    poolAt = 0
  }
  const hex = pool.toString('hex', poolAt, poolAt + 16)
  poolAt += 16
  return `${prefix}_${hex}`
}
