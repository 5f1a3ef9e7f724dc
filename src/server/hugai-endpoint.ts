import type { IncomingMessage, ServerResponse } from 'node:http'
import { ParlanceError, type Connection } from '../core/index.js'
import { hugai, RPC, type Inbound, type RpcErrorObject } from '../dialects/hugai/index.js'
import type { Endpoint, EndpointDeps, EndpointFactory } from '../binding/endpoint.js'
import { BodyError, readBody, sendJson } from '../binding/http-util.js'
import { Hub } from './hugai/hub.js'
import { RpcFailure, type Peer } from './hugai/peer.js'

type Deps = Pick<EndpointDeps, 'limits' | 'metrics' | 'log' | 'admission' | 'principal'>

/**
 * HugAI v2, JSON-RPC 2.0 on `/rpc`: WebSocket (both directions, `initialize` first) and `POST` (one message or a
 * batch per request; stateless, so no `initialize` needed). Both go through one dispatcher (`answer`).
 */
export const hugaiEndpoint: EndpointFactory = (deps): Endpoint => {
  const hub = new Hub(deps)
  let peers = 0
  return {
    dialect: 'hugai',
    paths: { hugai: '/rpc' },
    upgrade(req, socket, head, url) {
      if (url.pathname !== '/rpc') return false
      deps.ws.upgrade(req, socket, head, deps.principal(req), (conn) => serveSocket(conn, `ws_${++peers}`, hub, deps))
      return true
    },
    request(req, res, url) {
      if (url.pathname !== '/rpc') return false
      void serveHttp(req, res, `http_${++peers}`, hub, deps)
      return true
    },
  }
}

function serveSocket(conn: Connection, id: string, hub: Hub, deps: Deps): void {
  const send = (msg: object) => conn.send([JSON.stringify(msg)])
  const peer: Peer = { id, principal: conn.principal, initialized: false, approver: false, governanceLevel: 'supervised', registered: new Set(), push: send }
  const admit = deps.admission(conn.principal)
  hub.connect(peer)
  deps.metrics.connections.inc({ dialect: 'hugai' })
  conn.onframe = (text) => {
    const refused = admit()
    if (refused) return void send(hugai.error(null, hugai.fromParlance(refused)))
    // Frames are answered as they finish (a task may take long), not in arrival order: JSON-RPC matches by id.
    void answer(hub, peer, text, deps).then(
      (out) => out !== null && send(out),
      (err: unknown) => deps.log.error({ err }, 'HugAI frame failed'),
    )
  }
  conn.onclose = () => {
    deps.metrics.connections.dec({ dialect: 'hugai' })
    hub.disconnect(peer)
  }
}

async function serveHttp(req: IncomingMessage, res: ServerResponse, id: string, hub: Hub, deps: Deps): Promise<void> {
  if (req.method !== 'POST') {
    req.resume()
    return sendJson(res, 405, hugai.error(null, { code: RPC.invalidRequest, message: 'Invalid Request: POST a JSON-RPC 2.0 request or batch to /rpc' }), { allow: 'POST' })
  }
  const principal = deps.principal(req)
  const peer: Peer = { id, principal, initialized: true, approver: false, governanceLevel: 'supervised', registered: new Set() }
  try {
    const refused = deps.admission(principal)()
    if (refused) {
      req.resume()
      return sendJson(res, 429, hugai.error(null, hugai.fromParlance(refused)))
    }
    const body = await readBody(req, deps.limits.maxFrameBytes, { json: true })
    const out = await answer(hub, peer, body, deps)
    if (out === null) return void res.writeHead(204).end()
    sendJson(res, 200, out)
  } catch (err) {
    if (err instanceof BodyError) {
      const code = err.status === 413 ? RPC.invalidRequest : err.status === 415 ? RPC.invalidRequest : RPC.parseError
      return sendJson(res, err.status, hugai.error(null, { code, message: err.message, data: { field: err.status === 415 ? 'content-type' : 'body' } }))
    }
    deps.log.error({ err }, 'HugAI HTTP request failed')
    if (!res.headersSent) sendJson(res, 500, hugai.error(null, { code: RPC.internalError, message: 'Internal error' }))
  }
}

function toRpc(err: unknown, deps: Pick<EndpointDeps, 'log'>): RpcErrorObject {
  if (err instanceof RpcFailure) return err.rpc
  if (err instanceof ParlanceError) return hugai.fromParlance(err)
  deps.log.error({ err }, 'HugAI method failed')
  return { code: RPC.internalError, message: 'Internal error', data: { code: 'internal' } }
}

/**
 * Answers one body, a message or a batch, for either transport. Notifications and responses get no answer; a
 * batch answers its requests (null when it held none). `initialize` items run first, so a batch may start with
 * it and its other items see the initialized peer.
 */
async function answer(hub: Hub, peer: Peer, text: string, deps: Pick<EndpointDeps, 'limits' | 'log'>): Promise<object | object[] | null> {
  const parsed = hugai.parse(text, deps.limits.maxJsonDepth, deps.limits.maxFrameBytes)
  const one = async (m: Inbound): Promise<object | null> => {
    switch (m.kind) {
      case 'invalid':
        return m.notification ? null : hugai.error(m.id, m.error)
      case 'response':
        hub.answer(peer, m.id, m.result, m.error)
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
