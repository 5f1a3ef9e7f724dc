import type { IncomingMessage, ServerResponse } from 'node:http'
import { ParlanceError } from '../../core/index.js'
import { answerErrors, httpStatuses, readBody, sendJson, type Dialect, type Endpoint, type EndpointDeps } from '../../binding/index.js'
import { capabilities } from './capabilities.js'
import { admitted, create, get, history, patch, remove, search, state } from './binding-threads.js'
import { cancelRun, getRun, joinRun, startRun } from './binding-runs.js'
import { protocolCommands, protocolEvents } from './protocol-binding.js'
import { decodeAssistantSearch } from './decode.js'
import { assistantObject } from './encode-state.js'
import { errorBody, LANGGRAPH_ERRORS } from './errors.js'

/** Where the API is mounted: its routes (`/info`, `/threads`, `/runs`) are too generic for the server's root. */
export const LANGGRAPH_PREFIX = '/langgraph'

const STATUS = httpStatuses(LANGGRAPH_ERRORS)
const answer = (deps: EndpointDeps, res: ServerResponse, work: () => Promise<void>) =>
  answerErrors(deps, 'langgraph', res, work, STATUS, (e: ParlanceError) => errorBody(e.message))

/**
 * The LangGraph Agent Server API at `/langgraph`, the subset `@langchain/langgraph-sdk`'s `Client`, its React
 * `useStream` and Agent Chat UI use: `GET /info`; assistants (one per agent); threads (= sessions: create, search by
 * metadata, get, state, history, patch, delete); runs streamed over SSE (`/threads/:id/runs/stream`, stateless
 * `/runs/stream`), waited for (`…/runs/wait`), read, joined by `Last-Event-ID` and cancelled. Errors as
 * `{"detail": …}` with the API's statuses; streamed ones as `event: error`.
 */
export const langgraphDialect: Dialect = { name: 'langgraph', capabilities, mount: (deps) => langgraphEndpoint(deps) }

const seg = '([^/]{1,256})'
const PROTOCOL_PATH = new RegExp(`^${LANGGRAPH_PREFIX}/threads/[^/]{1,256}/(commands|stream/events)/?$`)
const ROUTES: Array<
  [method: string, path: RegExp, handler: (deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, url: URL, p: string[]) => Promise<void>]
> = [
  ['GET', /^\/info$/, async (deps, req, res, _url, _p) => info(deps, req, res)],
  ['POST', /^\/assistants\/search$/, (deps, req, res) => assistants(deps, req, res, false)],
  ['POST', /^\/assistants\/count$/, (deps, req, res) => assistants(deps, req, res, true)],
  ['GET', new RegExp(`^/assistants/${seg}$`), async (deps, req, res, _url, p) => assistant(deps, req, res, p[0]!)],
  ['GET', new RegExp(`^/assistants/${seg}/graph$`), async (deps, req, res, _url, p) => graph(deps, req, res, p[0]!)],
  ['GET', new RegExp(`^/assistants/${seg}/schemas$`), async (deps, req, res, _url, p) => schemas(deps, req, res, p[0]!)],
  ['POST', /^\/threads$/, (deps, req, res) => create(deps, req, res)],
  ['POST', /^\/threads\/search$/, (deps, req, res) => search(deps, req, res)],
  ['GET', new RegExp(`^/threads/${seg}$`), (deps, req, res, _url, p) => get(deps, req, res, p[0]!)],
  ['PATCH', new RegExp(`^/threads/${seg}$`), (deps, req, res, _url, p) => patch(deps, req, res, p[0]!)],
  ['DELETE', new RegExp(`^/threads/${seg}$`), (deps, req, res, _url, p) => remove(deps, req, res, p[0]!)],
  ['GET', new RegExp(`^/threads/${seg}/state$`), (deps, req, res, _url, p) => state(deps, req, res, p[0]!)],
  ['POST', new RegExp(`^/threads/${seg}/history$`), (deps, req, res, _url, p) => history(deps, req, res, p[0]!)],
  ['POST', new RegExp(`^/threads/${seg}/runs/stream$`), (deps, req, res, _url, p) => startRun(deps, req, res, p[0]!, false)],
  ['POST', new RegExp(`^/threads/${seg}/runs/wait$`), (deps, req, res, _url, p) => startRun(deps, req, res, p[0]!, true)],
  ['GET', new RegExp(`^/threads/${seg}/runs/${seg}$`), (deps, req, res, _url, p) => getRun(deps, req, res, p[0]!, p[1]!)],
  ['GET', new RegExp(`^/threads/${seg}/runs/${seg}/stream$`), (deps, req, res, url, p) => joinRun(deps, req, res, url, p[0]!, p[1]!)],
  ['POST', new RegExp(`^/threads/${seg}/runs/${seg}/cancel$`), (deps, req, res, url, p) => cancelRun(deps, req, res, url, p[0]!, p[1]!)],
  ['POST', new RegExp(`^/threads/${seg}/commands$`), (deps, req, res, _url, p) => protocolCommands(deps, req, res, p[0]!)],
  ['POST', new RegExp(`^/threads/${seg}/stream/events$`), (deps, req, res, _url, p) => protocolEvents(deps, req, res, p[0]!)],
  ['POST', /^\/runs\/stream$/, (deps, req, res) => startRun(deps, req, res, null, false)],
  ['POST', /^\/runs\/wait$/, (deps, req, res) => startRun(deps, req, res, null, true)],
]

const langgraphEndpoint = (deps: EndpointDeps): Endpoint => {
  return {
    dialect: 'langgraph',
    paths: { langgraph: LANGGRAPH_PREFIX },
    request(req, res, url) {
      const p = url.pathname
      if (p !== LANGGRAPH_PREFIX && !p.startsWith(`${LANGGRAPH_PREFIX}/`)) return false
      const path = p.slice(LANGGRAPH_PREFIX.length).replace(/\/$/, '')
      let known = false
      for (const [method, re, handler] of ROUTES) {
        const m = re.exec(path)
        if (!m) continue
        known = true
        if (method !== req.method) continue
        let params: string[]
        try {
          params = m.slice(1).map((x) => decodeURIComponent(x))
        } catch {
          sendJson(res, 422, errorBody(`${p}: a path segment is not valid percent-encoding`))
          return true
        }
        void answer(deps, res, () => handler(deps, req, res, url, params))
        return true
      }
      req.resume()
      sendJson(res, known ? 405 : 404, errorBody(known ? `Method ${req.method} not allowed on ${p}` : `${req.method} ${p} is not part of this API`))
      return true
    },
    unauthorized(_req, res, url, message) {
      if (url.pathname !== LANGGRAPH_PREFIX && !url.pathname.startsWith(`${LANGGRAPH_PREFIX}/`)) return false
      // The streaming protocol's routes answer in its ErrorResponse shape; the rest in the API's `{"detail"}`.
      const body = PROTOCOL_PATH.test(url.pathname) ? { type: 'error', id: null, error: 'permission_denied', message } : errorBody(message)
      sendJson(res, 401, body, { 'www-authenticate': 'Bearer' })
      return true
    },
  }
}

/** The assistants' `created_at`: when this process loaded the dialect. */
const since = Date.now()

function info(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse): void {
  admitted(deps, req)
  sendJson(res, 200, {
    version: 'parlance',
    flags: { assistants: true, crons: false, langsmith: false, langsmith_tracing_replicas: false },
    host: null,
  })
}

function assistantNamed(deps: EndpointDeps, id: string) {
  const agent = deps.sessions.agent(id)
  if (!agent) throw new ParlanceError('not_found', `Assistant ${id} not found`, { assistantId: id })
  return assistantObject(id, agent.description, since)
}

async function assistants(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, count: boolean): Promise<void> {
  admitted(deps, req)
  const decoded = decodeAssistantSearch(await readBody(req, deps.limits.maxFrameBytes, { json: true }), deps.limits)
  if (!decoded.ok) throw decoded.error
  const q = decoded.value
  const all = deps.sessions
    .agentNames()
    .filter((n) => (!q.graph_id || q.graph_id === n) && (!q.name || n.includes(q.name)))
    .map((n) => assistantNamed(deps, n))
    .filter((a) => !q.metadata || Object.entries(q.metadata).every(([k, v]) => JSON.stringify(a.metadata[k]) === JSON.stringify(v)))
  if (count) return sendJson(res, 200, all.length)
  sendJson(res, 200, all.slice(q.offset ?? 0, (q.offset ?? 0) + (q.limit ?? 10)))
}

function assistant(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, id: string): void {
  admitted(deps, req)
  sendJson(res, 200, assistantNamed(deps, id))
}

/** A Parlance agent as a one-node graph. */
function graph(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, id: string): void {
  admitted(deps, req)
  assistantNamed(deps, id)
  sendJson(res, 200, {
    nodes: [{ id: '__start__' }, { id: 'agent', name: id }, { id: '__end__' }],
    edges: [
      { source: '__start__', target: 'agent' },
      { source: 'agent', target: '__end__' },
    ],
  })
}

function schemas(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, id: string): void {
  admitted(deps, req)
  assistantNamed(deps, id)
  const state = { type: 'object', properties: { messages: { type: 'array', items: { type: 'object' } } } }
  sendJson(res, 200, { graph_id: id, input_schema: state, output_schema: state, state_schema: state, config_schema: null, context_schema: null })
}
