import { ParlanceError, type Connection } from '../../core/index.js'
import { serveJsonRpcHttp, serveJsonRpcSocket, type Dialect, type EndpointDeps, type JsonRpcHandlers } from '../../binding/index.js'
import { capabilities } from './capabilities.js'
import { hugai } from './codec.js'
import { RPC, type RpcErrorObject } from './errors.js'
import { Hub } from './hub/hub.js'
import { createRedisLink } from './hub/redis-link.js'
import { RpcFailure, type Peer } from './hub/peer.js'
import type { Method } from './wire.js'

type Deps = Pick<EndpointDeps, 'limits' | 'metrics' | 'log' | 'admission' | 'principal'>

/**
 * HugAI v2, JSON-RPC 2.0 on `/rpc`: WebSocket (both directions, `initialize` first) and `POST` (one message or a
 * batch per request; stateless, so no `initialize` needed). Both run on the shared JSON-RPC runner with one hub.
 */
export const hugaiDialect: Dialect = {
  name: 'hugai',
  capabilities,
  mount: (deps) => {
    // In a cluster the hub reaches the other nodes' hubs through Redis (agents, tasks, checkpoints).
    const hub = new Hub(deps, deps.cluster ? createRedisLink(deps.cluster.redis, deps.cluster.keys.hugai, deps.cluster.nodeId) : null)
    const started = hub.start()
    started.catch(() => {}) // reported by ready()
    let peers = 0
    return {
      dialect: 'hugai',
      paths: { hugai: '/rpc' },
      ready: () => started,
      async close() {
        await hub.close()
        // The integrations end with the server (an MCP server's connection, a stdio server's process).
        for (const i of Object.values(deps.integrations ?? {})) await (i as { close?: () => Promise<void> }).close?.().catch(() => {})
      },
      upgrade(req, socket, head, url) {
        if (url.pathname !== '/rpc') return false
        deps.ws.upgrade(req, socket, head, deps.principal(req), (conn) => serveSocket(conn, `ws_${++peers}`, hub, deps))
        return true
      },
      request(req, res, url) {
        if (url.pathname !== '/rpc') return false
        // Stateless: each request is a peer of its own, initialized, that can receive no requests.
        const peer: Peer = {
          id: `http_${++peers}`,
          principal: deps.principal(req),
          initialized: true,
          approver: false,
          governanceLevel: 'supervised',
          registered: new Set(),
        }
        void serveJsonRpcHttp(req, res, deps, 'hugai', '/rpc', handlers(hub, peer, deps))
        return true
      },
    }
  },
}

/** The hub's methods as JSON-RPC handlers for one peer. */
function handlers(hub: Hub, peer: Peer, deps: Pick<EndpointDeps, 'limits' | 'log'>): JsonRpcHandlers<Method> {
  return {
    parse: (text) => hugai.parse(text, deps.limits.maxJsonDepth, deps.limits.maxFrameBytes),
    call: (method, params) => hub.call(peer, method, params),
    answer: (id, result, error) => hub.answer(peer, id, result, error),
    toError: (err) => toRpc(err, deps),
    first: (method) => method === 'initialize',
    notificationFailed: (method, err) => deps.log.debug({ err, method }, 'HugAI notification failed'),
  }
}

function serveSocket(conn: Connection, id: string, hub: Hub, deps: Deps): void {
  const send = (msg: object) => conn.send([JSON.stringify(msg)])
  const peer: Peer = {
    id,
    principal: conn.principal,
    initialized: false,
    approver: false,
    governanceLevel: 'supervised',
    registered: new Set(),
    push: send,
  }
  hub.connect(peer)
  const run = serveJsonRpcSocket(conn, deps, 'hugai', handlers(hub, peer, deps))
  conn.onclose = () => {
    run.closed()
    hub.disconnect(peer)
  }
}

function toRpc(err: unknown, deps: Pick<EndpointDeps, 'log'>): RpcErrorObject {
  if (err instanceof RpcFailure) return err.rpc
  if (err instanceof ParlanceError) return hugai.fromParlance(err)
  deps.log.error({ err }, 'HugAI method failed')
  return { code: RPC.internalError, message: 'Internal error', data: { code: 'internal' } }
}
