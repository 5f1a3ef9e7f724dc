import { connect, createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

/**
 * A TCP load balancer without sticky sessions: each new connection goes to the next upstream in turn. What
 * a cluster must work behind (an HTTP request, a WebSocket or a Socket.IO connection may land on any node).
 */
export async function roundRobin(upstreams: readonly URL[]): Promise<{ url: string; close(): Promise<void> }> {
  let next = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const target = upstreams[next++ % upstreams.length]!
    const upstream = connect(Number(target.port), target.hostname)
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
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
