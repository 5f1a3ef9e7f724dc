import { connect, createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

/**
 * A TCP proxy to one upstream that a test can cut (every connection dropped, new ones refused) and restore:
 * an outage of the service behind it, without touching the service.
 */
export async function tcpProxy(host: string, port: number): Promise<{ port: number; cut(): void; restore(): void; close(): Promise<void> }> {
  let down = false
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    if (down) return void client.destroy()
    const upstream = connect(port, host)
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
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      down = true
      for (const s of sockets) s.destroy()
    },
    restore() {
      down = false
    },
    close: () =>
      new Promise<void>((resolve) => {
        down = true
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
