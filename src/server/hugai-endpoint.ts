import { ParlanceError, type Connection } from '../core/index.js'
import { hugai, RPC, type Inbound, type RpcErrorObject } from '../dialects/hugai/index.js'
import type { Endpoint, EndpointDeps, EndpointFactory } from './endpoint.js'
import { BodyError, readBody, sendJson } from './http-util.js'
import { Hub, RpcFailure, type Peer } from './hugai/hub.js'

/** HugAI v2, JSON-RPC 2.0: WebSocket `/rpc` (both directions) and `POST /rpc` (single or batch). */
export const hugaiEndpoint: EndpointFactory = (deps): Endpoint => {
  const hub = new Hub(deps)
  let httpPeers = 0
  return {
    dialect: 'hugai',
    paths: { hugai: '/rpc' },
    upgrade(req, socket, head, url) {
      if (url.pathname !== '/rpc') return false
      deps.ws.upgrade(req, socket, head, deps.principal(req), (conn) => serveRpc(conn, hub, deps))
      return true
    },
    request(req, res, url) {
      if (url.pathname !== '/rpc') return false
      if (req.method !== 'POST') {
        sendJson(res, 405, hugai.error(null, { code: RPC.invalidRequest, message: 'POST a JSON-RPC 2.0 request or batch' }), { allow: 'POST' })
        return true
      }
      const peer: Peer = { id: `http_${++httpPeers}`, principal: deps.principal(req), initialized: true, approver: false, registered: new Set(), governanceLevel: 'supervised' }
      const admit = deps.admission(peer.principal)
      void (async () => {
        try {
          const refused = admit()
          if (refused) return sendJson(res, 429, hugai.error(null, hugai.fromParlance(refused)))
          const body = await readBody(req, deps.limits.maxFrameBytes, { json: true })
          const out = await answer(hub, peer, body, deps)
          if (out === null) return void res.writeHead(204).end()
          sendJson(res, 200, out)
        } catch (err) {
          if (err instanceof BodyError) return sendJson(res, err.status, hugai.error(null, { code: err.status === 413 ? RPC.invalidRequest : RPC.parseError, message: err.message }))
          deps.log.error({ err }, 'HugAI HTTP request failed')
          if (!res.headersSent) sendJson(res, 500, hugai.error(null, { code: RPC.internalError, message: 'Internal error' }))
        }
      })()
      return true
    },
  }
}

let peers = 0

function serveRpc(conn: Connection, hub: Hub, deps: Pick<EndpointDeps, 'limits' | 'metrics' | 'log' | 'admission'>): void {
  const peer: Peer = { id: `ws_${++peers}`, principal: conn.principal, initialized: false, approver: false, registered: new Set(), push: (msg) => conn.send([JSON.stringify(msg)]) }
  const admit = deps.admission(conn.principal)
  hub.connect(peer)
  deps.metrics.connections.inc({ dialect: 'hugai' })
  conn.onframe = (text) => {
    const refused = admit()
    if (refused) return void conn.send([JSON.stringify(hugai.error(null, hugai.fromParlance(refused)))])
    if (Buffer.byteLength(text) > deps.limits.maxFrameBytes) {
      return void conn.send([JSON.stringify(hugai.error(null, { code: RPC.invalidRequest, message: `Invalid Request: frame exceeds ${deps.limits.maxFrameBytes} bytes` }))])
    }
    void answer(hub, peer, text, deps).then(
      (out) => {
        if (out !== null) conn.send([JSON.stringify(out)])
      },
      (err: unknown) => deps.log.error({ err }, 'HugAI frame failed'),
    )
  }
  conn.onclose = () => {
    deps.metrics.connections.dec({ dialect: 'hugai' })
    hub.disconnect(peer)
  }
}

function toRpc(err: unknown, deps: Pick<EndpointDeps, 'log'>): RpcErrorObject {
  if (err instanceof RpcFailure) return err.rpc
  if (err instanceof ParlanceError) return hugai.fromParlance(err)
  deps.log.error({ err }, 'HugAI method failed')
  return { code: RPC.internalError, message: 'Internal error' }
}

/**
 * Answers one body: a message or a batch. Notifications and responses get no answer; a batch answers its
 * requests in order (null when it held none). `initialize` items run first, so a batch may start with it.
 */
async function answer(hub: Hub, peer: Peer, text: string, deps: Pick<EndpointDeps, 'limits' | 'log'>): Promise<object | object[] | null> {
  const parsed = hugai.parse(text, deps.limits.maxJsonDepth)
  const one = async (m: Inbound): Promise<object | null> => {
    switch (m.kind) {
      case 'invalid':
        return m.notification ? null : hugai.error(m.id, m.error)
      case 'response':
        hub.answer(m.id, m.result, m.error)
        return null
      case 'notification':
        await hub.call(peer, m.method, m.params).catch((err: unknown) => deps.log.debug({ err, method: m.method }, 'HugAI notification failed'))
        return null
      case 'request':
        try {
          return hugai.result(m.id, await hub.call(peer, m.method, m.params))
        } catch (err) {
          return hugai.error(m.id, toRpc(err, deps))
        }
    }
  }
  const first = parsed.items.map((m) => (m.kind === 'request' && m.method === 'initialize' ? one(m) : null))
  const out = await Promise.all(parsed.items.map((m, i) => first[i] ?? one(m)))
  const answers = out.filter((x): x is object => x !== null)
  if (!parsed.batch) return answers[0] ?? null
  return answers.length ? answers : null
}
