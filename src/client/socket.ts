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
export type SocketCtor = new (url: string, protocols?: string | string[]) => SocketLike

/** The WebSocket constructor: the one given, the global one, else the `ws` package (Node 20). */
export async function socketCtor(given?: SocketCtor): Promise<SocketCtor> {
  return given ?? (globalThis as { WebSocket?: SocketCtor }).WebSocket ?? ((await import('ws')).WebSocket as unknown as SocketCtor)
}

/** The ws:// URL for `base` (an http:// base URL gets `path`). The token never goes in it: see `openClient`. */
export function socketUrl(base: string, path: string): URL {
  const url = new URL(base.replace(/^http/, 'ws'))
  if (url.pathname === '/' || url.pathname === '') url.pathname = path
  return url
}

/**
 * The subprotocols that carry a bearer token where headers cannot go (a browser's WebSocket): `parlance.bearer`,
 * which the server answers with, and `parlance.bearer.<token as base64url>`, which it reads and never echoes.
 */
export function bearerProtocols(token: string): string[] {
  const bytes = new TextEncoder().encode(token)
  let bin = ''
  for (const b of bytes) bin += String.fromCharCode(b)
  const b64url = btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
  return ['parlance.bearer', `parlance.bearer.${b64url}`]
}

/** True under Node, where the `ws` package can send headers (a browser's WebSocket cannot). */
const inNode = (): boolean => typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string'

/**
 * A WebSocket to `url`, with the bearer token (if any) out of the URL: under Node, the `ws` package sends it as
 * `Authorization: Bearer`; a browser's WebSocket, or one passed in, offers it as a subprotocol (`bearerProtocols`).
 */
async function newSocket(options: { WebSocket?: SocketCtor; token?: string }, url: URL): Promise<SocketLike> {
  const { token } = options
  if (token && !options.WebSocket && inNode()) {
    const { WebSocket: WS } = await import('ws')
    return new WS(url, { headers: { authorization: `Bearer ${token}` } }) as unknown as SocketLike
  }
  const Ctor = await socketCtor(options.WebSocket)
  return token ? new Ctor(url.toString(), bearerProtocols(token)) : new Ctor(url.toString())
}

/**
 * Opens a WebSocket to `url` for the client `make` builds around it, and resolves with that client once the
 * socket is open. `make` sets the handlers first: frames the server sends right after the upgrade can
 * arrive in the same tick as 'open'.
 */
export async function openClient<C extends { tap?: WireTap }>(
  options: { WebSocket?: SocketCtor; tap?: WireTap; token?: string },
  url: URL,
  make: (socket: SocketLike) => C,
): Promise<C> {
  const socket = await newSocket(options, url)
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
