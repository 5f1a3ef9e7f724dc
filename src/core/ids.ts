import { randomUUID } from 'node:crypto'

/** A conversation's id, chosen by the client (HAI `session_id`, AG-UI `threadId`) or generated. */
export type SessionId = string & { readonly __brand?: 'SessionId' }
/** One agent run inside a session. */
export type RunId = string & { readonly __brand?: 'RunId' }
/** The authenticated caller a session belongs to. */
export type Principal = string & { readonly __brand?: 'Principal' }

/** The principal used when authentication is off. */
export const ANONYMOUS: Principal = 'anonymous'

/** A new random id with a readable prefix, e.g. `run_3f2c…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`
}
