import type { IncomingMessage, ServerResponse } from 'node:http'
import { JSONRPC_ERRORS, rpcError, rpcResult, type Connection, type RpcErrorObject, type RpcId, type RpcParsed } from '../core/index.js'
import type { EndpointDeps } from './endpoint.js'
import { BodyError, readBody, sendJson } from './http-util.js'

/** What a JSON-RPC dialect gives the shared runner, per peer (a socket, or one HTTP request). */
export interface JsonRpcHandlers<M extends string> {
  /** Parses a body (the dialect's codec: envelope plus its methods' params); never throws. */
  parse(text: string): RpcParsed<M>
  /** Runs one method; resolves with its result or throws (answered through `toError`). */
  call(method: M, params: unknown): Promise<unknown>
  /** The other side answered a request sent to it. */
  answer?(id: RpcId, result: unknown, error?: RpcErrorObject): void
  /** The JSON-RPC error object of what `call` threw. */
  toError(err: unknown): RpcErrorObject
  /** Items a batch runs before the others (HugAI: `initialize`, so the rest see an initialized peer). */
  first?(method: M): boolean
  /** A notification's method failed (nobody to answer): report it. */
  notificationFailed?(method: M, err: unknown): void
}

/**
 * Answers one body, a message or a batch. Notifications and responses get no answer; a batch answers its
 * requests in order (null when it held none). Items `first` names run before the rest; the others run concurrently.
 */
export async function answerRpc<M extends string>(text: string, h: JsonRpcHandlers<M>): Promise<object | object[] | null> {
  const parsed = h.parse(text)
  const one = async (m: RpcParsed<M>['items'][number]): Promise<object | null> => {
    switch (m.kind) {
      case 'invalid':
        return m.notification ? null : rpcError(m.id, m.error)
      case 'response':
        h.answer?.(m.id, m.result, m.error)
        return null
      case 'notification':
        await h.call(m.method, m.params).catch((err: unknown) => h.notificationFailed?.(m.method, err))
        return null
      case 'request':
        try {
          return rpcResult(m.id, await h.call(m.method, m.params))
        } catch (err) {
          return rpcError(m.id, h.toError(err))
        }
    }
  }
  const early = parsed.items.map((m) => (h.first && m.kind === 'request' && h.first(m.method) ? one(m) : null))
  const firsts = early.filter((p): p is Promise<object | null> => p !== null)
  if (firsts.length) await Promise.all(firsts)
  const out = await Promise.all(parsed.items.map((m, i) => early[i] ?? one(m)))
  const answers = out.filter((x): x is object => x !== null)
  if (!parsed.batch) return answers[0] ?? null
  return answers.length ? answers : null
}

/**
 * Serves JSON-RPC over one socket: rate limit per frame (refused frames answered with the dialect's error),
 * each body answered as soon as it is done — not in arrival order, since a method may take long and JSON-RPC
 * matches answers by id.
 */
export function serveJsonRpcSocket<M extends string>(
  conn: Connection,
  deps: Pick<EndpointDeps, 'admission' | 'metrics' | 'log'>,
  dialect: string,
  h: JsonRpcHandlers<M>,
): { closed(): void } {
  const send = (msg: object) => conn.send([JSON.stringify(msg)])
  const admit = deps.admission(conn.principal, conn.remoteAddress)
  deps.metrics.connections.inc({ dialect })
  conn.onframe = (text) => {
    const refused = admit()
    if (refused) return void send(rpcError(null, h.toError(refused)))
    void answerRpc(text, h).then(
      (out) => out !== null && send(out),
      (err: unknown) => deps.log.error({ err, dialect }, 'JSON-RPC frame failed'),
    )
  }
  return { closed: () => deps.metrics.connections.dec({ dialect }) }
}

/**
 * Serves one JSON-RPC HTTP request (`POST`, one message or a batch): 405 for other methods, the rate limit
 * (429), the body read with its size and content-type checks (413 / 415 / 400 as JSON-RPC errors), then 200
 * with the answer, or 204 when it held only notifications and responses.
 */
export async function serveJsonRpcHttp<M extends string>(
  req: IncomingMessage,
  res: ServerResponse,
  deps: Pick<EndpointDeps, 'admission' | 'clientAddress' | 'limits' | 'log' | 'principal'>,
  dialect: string,
  path: string,
  h: JsonRpcHandlers<M>,
): Promise<void> {
  const E = JSONRPC_ERRORS
  if (req.method !== 'POST') {
    req.resume()
    return sendJson(
      res,
      405,
      rpcError(null, { code: E.invalidRequest, message: `Invalid Request: POST a JSON-RPC 2.0 request or batch to ${path}` }),
      { allow: 'POST' },
    )
  }
  try {
    const refused = deps.admission(deps.principal(req), deps.clientAddress(req))()
    if (refused) {
      req.resume()
      return sendJson(res, 429, rpcError(null, h.toError(refused)))
    }
    const body = await readBody(req, deps.limits.maxFrameBytes, { json: true })
    const out = await answerRpc(body, h)
    if (out === null) return void res.writeHead(204).end()
    sendJson(res, 200, out)
  } catch (err) {
    if (err instanceof BodyError) {
      const code = err.status === 400 ? E.parseError : E.invalidRequest
      return sendJson(res, err.status, rpcError(null, { code, message: err.message, data: { field: err.status === 415 ? 'content-type' : 'body' } }))
    }
    deps.log.error({ err, dialect }, 'JSON-RPC HTTP request failed')
    if (!res.headersSent) sendJson(res, 500, rpcError(null, { code: E.internalError, message: 'Internal error' }))
  }
}
