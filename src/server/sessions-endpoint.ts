import type { IncomingMessage, ServerResponse } from 'node:http'
import { answerErrors } from '../binding/http-errors.js'
import { BodyError, isJsonContentType, readBody, sendJson } from '../binding/http-util.js'
import type { Endpoint, EndpointDeps, EndpointFactory } from '../binding/endpoint.js'
import { checkJsonShape, parseJson, ParlanceError } from '../core/index.js'

const FORK_ROUTE = /^\/sessions\/([^/]+)\/fork$/

/**
 * Dialect-neutral session operations over HTTP, for any client (the inspector uses them):
 * - `POST /sessions/:id/fork` with an optional JSON body `{atSeq?, id?}`: a new session whose history is the
 *   session's events 1..atSeq (default: all of them), answered `201 {id, forkedFrom: {sessionId, atSeq},
 *   agent, lastSeq, activeRunId}`. The new session is the caller's; any dialect opens it by its id.
 * Errors are `{error: {code, message, field?}}` with the usual statuses (400, 403, 404, 409, 413, 415, 429).
 */
export const sessionsEndpoint: EndpointFactory = (deps: EndpointDeps): Endpoint => ({
  dialect: 'sessions',
  paths: { fork: '/sessions/:id/fork' },
  request(req, res, url) {
    const m = FORK_ROUTE.exec(url.pathname)
    if (!m) return false
    void answerErrors(deps, 'sessions', res, () => fork(deps, req, res, decodeURIComponent(m[1]!)))
    return true
  },
})

async function fork(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, sourceId: string): Promise<void> {
  if (req.method !== 'POST') {
    req.resume()
    return sendJson(res, 405, { error: { code: 'invalid_message', message: 'fork with POST' } }, { allow: 'POST' })
  }
  const principal = deps.principal(req)
  const refused = deps.admission(principal, deps.clientAddress(req))()
  if (refused) throw refused
  const text = await readBody(req, 64 * 1024)
  if (text.trim() !== '' && !isJsonContentType(req))
    throw new BodyError(415, `content-type must be application/json, got ${req.headers['content-type'] ?? 'none'}`)
  let body: unknown = {}
  if (text.trim() !== '') {
    const parsed = parseJson(text, 'body')
    if (!parsed.ok) throw parsed.error
    body = parsed.value
    const bad = checkJsonShape(body, deps.limits.maxJsonDepth)
    if (bad) throw bad
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ParlanceError('invalid_message', 'the body must be a JSON object {atSeq?, id?}')
  const { atSeq, id } = body as { atSeq?: unknown; id?: unknown }
  if (atSeq !== undefined && !(Number.isSafeInteger(atSeq) && (atSeq as number) >= 1)) {
    throw new ParlanceError('invalid_message', 'atSeq must be a whole number ≥ 1 (the last event the fork keeps)', { field: 'atSeq' })
  }
  if (id !== undefined && !(typeof id === 'string' && /^[A-Za-z0-9_.:-]{1,128}$/.test(id))) {
    throw new ParlanceError('invalid_message', 'id must be 1–128 of A-Z a-z 0-9 _ . : -', { field: 'id' })
  }
  const record = await deps.sessions.fork(sourceId, principal, {
    ...(atSeq !== undefined ? { atSeq: atSeq as number } : {}),
    ...(id !== undefined ? { id: id } : {}),
  })
  sendJson(res, 201, { id: record.id, forkedFrom: record.forkedFrom, agent: record.agent, lastSeq: record.lastSeq, activeRunId: record.activeRunId })
}
