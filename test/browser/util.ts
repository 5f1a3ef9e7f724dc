// Helpers of the browser pages: ids (no crypto.randomUUID: an http://app.test page is not a secure context),
// bounded waits, and a WebSocket opened the browser's way. The project type-checks without the DOM library, so
// the browser's globals are reached through `globalThis` with the few members used here.
import type { SocketCtor } from '../../src/client/socket.js'

/** The browser's own WebSocket constructor. */
const BrowserWebSocket = (globalThis as unknown as { WebSocket: SocketCtor }).WebSocket

/** A random id; works outside secure contexts. */
export function uid(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`
}

/** Rejects with `what` when `p` has not settled within `ms`. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)
  })
  return Promise.race([p, late]).finally(() => clearTimeout(timer))
}

/** `http://host:port` → `ws://host:port/path`. */
export function wsUrl(base: string, path: string): string {
  const u = new URL(path, base)
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:'
  return u.href
}

/** A browser WebSocket whose JSON messages are read in order with `until`. */
export interface JsonSocket {
  send(msg: unknown): void
  /** Calls `take` on each message (from the first not yet taken) until it returns true; rejects on close or after `ms`. */
  until(take: (m: Record<string, unknown>) => boolean, ms?: number): Promise<void>
  close(): void
}

/** Opens `url`; rejects (with the close code) when the handshake is refused. */
export function openSocket(url: string): Promise<JsonSocket> {
  const ws = new BrowserWebSocket(url)
  const queue: Array<Record<string, unknown>> = []
  let wake: (() => void) | undefined
  let closed: string | undefined
  ws.onmessage = (ev) => {
    queue.push(JSON.parse(String(ev.data)) as Record<string, unknown>)
    wake?.()
  }
  const opened = new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onclose = (ev) => {
      closed = `closed ${ev.code}`
      reject(new Error(`WebSocket ${url} ${closed} before it opened`))
      wake?.()
    }
  })
  const socket: JsonSocket = {
    send: (msg) => ws.send(JSON.stringify(msg)),
    async until(take, ms = 30_000) {
      const work = (async () => {
        for (;;) {
          while (queue.length > 0) if (take(queue.shift()!)) return
          if (closed) throw new Error(`WebSocket ${url} ${closed}`)
          await new Promise<void>((r) => (wake = r))
        }
      })()
      return within(work, ms, `awaited message on ${url}`)
    },
    close: () => ws.close(1000, 'bye'),
  }
  return within(opened, 30_000, `open of ${url}`).then(() => socket)
}
