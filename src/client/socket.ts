import type { WireTap } from './tap.js'

/** The structural WebSocket the clients need: the browser's, Node 22's global, or the `ws` package's. */
export interface SocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((ev: unknown) => void) | null
  onmessage: ((ev: { data: unknown }) => void) | null
  onclose: ((ev: { code: number; reason: string }) => void) | null
  onerror: ((ev: unknown) => void) | null
}
export type SocketCtor = new (url: string) => SocketLike

/** The WebSocket constructor: the one given, the global one, else the `ws` package (Node 20). */
export async function socketCtor(given?: SocketCtor): Promise<SocketCtor> {
  return given ?? (globalThis as { WebSocket?: SocketCtor }).WebSocket ?? ((await import('ws')).WebSocket as unknown as SocketCtor)
}

/** The ws:// URL for `base` (an http:// base URL gets `path`), with the bearer token as `access_token`. */
export function socketUrl(base: string, path: string, token?: string): URL {
  const url = new URL(base.replace(/^http/, 'ws'))
  if (url.pathname === '/' || url.pathname === '') url.pathname = path
  if (token) url.searchParams.set('access_token', token)
  return url
}

/**
 * Opens a WebSocket to `url` for the client `make` builds around it, and resolves with that client once the
 * socket is open. `make` sets the handlers first: frames the server sends right after the upgrade can
 * arrive in the same tick as 'open'.
 */
export async function openClient<C extends { tap?: WireTap }>(
  options: { WebSocket?: SocketCtor; tap?: WireTap },
  url: URL,
  make: (socket: SocketLike) => C,
): Promise<C> {
  const Ctor = await socketCtor(options.WebSocket)
  const socket = new Ctor(url.toString())
  const client = make(socket)
  client.tap = options.tap
  await opened(socket, url)
  return client
}

/** Resolves once the socket is open (set handlers before calling: frames can arrive in the same tick). */
export function opened(socket: SocketLike, url: URL): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    socket.onopen = () => {
      socket.onerror = null
      resolve()
    }
    socket.onerror = (ev) => reject(new Error(`cannot connect to ${url.origin}${url.pathname}: ${(ev as { message?: string }).message ?? 'error'}`))
  })
}

/** What a client received, in order, with a cursor to wait for the next matching item. */
export class Inbox<T> {
  readonly items: T[] = []
  private cursor = 0
  private waiters: Array<() => void> = []

  /** Index of the next item `next` will look at. */
  get position(): number {
    return this.cursor
  }

  push(item: T): void {
    this.items.push(item)
    this.wake()
  }

  /** Wakes waiters without an item (the connection closed). */
  wake(): void {
    const w = this.waiters
    this.waiters = []
    for (const f of w) f()
  }

  /** The next item after those already returned that matches; rejects once `closed()` or after `timeoutMs`. */
  async next(match: (item: T) => boolean, timeoutMs: number, closed: () => boolean, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      while (this.cursor < this.items.length) {
        const item = this.items[this.cursor++]!
        if (match(item)) return item
      }
      if (closed()) throw new Error(`socket closed while waiting for ${what}`)
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left)
        this.waiters.push(() => {
          clearTimeout(t)
          resolve()
        })
      })
    }
  }
}
