import { connect, createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

/** A TCP proxy on 127.0.0.1 that a test can cut and restore. */
export interface TcpProxy {
  readonly port: number
  /** `http://127.0.0.1:port`. */
  readonly url: string
  /** Drops every connection and refuses new ones: an outage of what is behind, without touching it. */
  cut(): void
  restore(): void
  close(): Promise<void>
}

/**
 * A TCP proxy to `upstreams`, each new connection to the next one in turn: with several, a load balancer
 * without sticky sessions (what a cluster must work behind: any WebSocket, Socket.IO connection or HTTP
 * request may land on any node); with one, a link to a service a test can cut.
 */
export async function tcpProxy(upstreams: ReadonlyArray<{ host: string; port: number }>): Promise<TcpProxy> {
  let down = false
  let next = 0
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    if (down) return void client.destroy()
    const target = upstreams[next++ % upstreams.length]!
    const upstream = connect(target.port, target.host)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.once('close', () => sockets.delete(s))
      s.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const dropAll = () => {
    for (const s of sockets) s.destroy()
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    cut() {
      down = true
      dropAll()
    },
    restore() {
      down = false
    },
    close: () =>
      new Promise<void>((resolve) => {
        down = true
        dropAll()
        server.close(() => resolve())
      }),
  }
}
