import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ParlanceError, type Json } from '../../core/index.js'
import {
  answerErrors,
  carryOut,
  collectRun,
  httpStatuses,
  readBody,
  sendJson,
  streamRun,
  type Dialect,
  type Endpoint,
  type EndpointDeps,
} from '../../binding/index.js'
import type { Session } from '../../session/index.js'
import { capabilities } from './capabilities.js'
import { chatCompletion, chatView, CHAT_SSE } from './encode-chat.js'
import { decodeChatCompletion, decodeResponseRequest } from './decode.js'
import { errorBody, OPENAI_ERRORS } from './errors.js'
import { parseChatToolCallId, parseResponseId, responseId, type ResponseRef } from './codec-ids.js'
import { reconcileChat, reconcileResponse } from './reconcile.js'
import { responseObject, responsesStep, responsesView, RESPONSES_SSE, type ResponseHead, type ResponsesView } from './encode-responses.js'
import type { ResponseObject } from './wire.js'

const STATUS = httpStatuses(OPENAI_ERRORS)
const shape = (e: ParlanceError) => errorBody(e.code, e.message, e.details?.field)
const answer = (deps: EndpointDeps, res: ServerResponse, work: () => Promise<void>) => answerErrors(deps, 'openai', res, work, STATUS, shape)

/** Record scope of the responses a client may fetch again: response id → its `ResponseHead` (not with `store: false`). */
export const RESPONSE_SCOPE = 'openai.response'
/** The request header (also `metadata.parlance_session`) naming the session of a chat completion; echoed on every answer. */
export const SESSION_HEADER = 'x-parlance-session'

const MODEL_ROUTE = /^\/v1\/models(?:\/([^/]{1,256}))?\/?$/
const RESPONSE_ROUTE = /^\/v1\/responses\/([^/]{1,2048}?)(\/cancel)?\/?$/

/**
 * OpenAI's API at `/v1`: `GET /v1/models[/:id]` (one model per agent), `POST /v1/chat/completions` (streamed or
 * not), `POST /v1/responses`, `GET /v1/responses/:id` (`?stream=true&starting_after=N` replays from the log) and
 * `POST /v1/responses/:id/cancel`. Errors in OpenAI's shape.
 */
export const openaiDialect: Dialect = { name: 'openai', capabilities, mount: (deps) => openaiEndpoint(deps) }

const openaiEndpoint = (deps: EndpointDeps): Endpoint => {
  const mounted = Math.floor(Date.now() / 1000)
  return {
    dialect: 'openai',
    paths: { openai: '/v1' },
    request(req, res, url) {
      const p = url.pathname
      if (p !== '/v1' && !p.startsWith('/v1/')) return false
      const models = MODEL_ROUTE.exec(p)
      const response = RESPONSE_ROUTE.exec(p)
      if (models && req.method === 'GET') void answer(deps, res, async () => listModels(deps, req, res, models[1], mounted))
      else if ((p === '/v1/chat/completions' || p === '/v1/chat/completions/') && req.method === 'POST')
        void answer(deps, res, () => chat(deps, req, res))
      else if ((p === '/v1/responses' || p === '/v1/responses/') && req.method === 'POST') void answer(deps, res, () => create(deps, req, res))
      else if (response && !response[2] && req.method === 'GET')
        void answer(deps, res, () => retrieve(deps, req, res, url, decodeURIComponent(response[1]!)))
      else if (response?.[2] && req.method === 'POST') void answer(deps, res, () => cancel(deps, req, res, decodeURIComponent(response[1]!)))
      else
        sendJson(
          res,
          models || response ? 405 : 404,
          errorBody(models || response ? 'invalid_message' : 'not_found', `${req.method} ${p} is not part of this API`),
        )
      return true
    },
    unauthorized(_req, res, url, message) {
      if (url.pathname !== '/v1' && !url.pathname.startsWith('/v1/')) return false
      sendJson(res, 401, errorBody('unauthorized', message), { 'www-authenticate': 'Bearer' })
      return true
    },
  }
}

/** The caller, admitted by the rate limit. */
function admitted(deps: EndpointDeps, req: IncomingMessage) {
  const principal = deps.principal(req)
  const refused = deps.admission(principal, deps.clientAddress(req))()
  if (refused) throw refused
  return principal
}

/** The agent a `model` names. */
function agentOf(deps: EndpointDeps, model: string): string {
  if (deps.sessions.agent(model)) return model
  throw new ParlanceError(
    'not_found',
    `the model "${model}" does not exist; this server serves ${deps.sessions
      .agentNames()
      .map((n) => `"${n}"`)
      .join(', ')}`,
    {
      field: 'model',
    },
  )
}

const modelOf = (id: string, created: number) => ({ id, object: 'model', created, owned_by: 'parlance' })

function listModels(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, id: string | undefined, created: number): void {
  admitted(deps, req)
  if (id === undefined) return sendJson(res, 200, { object: 'list', data: deps.sessions.agentNames().map((n) => modelOf(n, created)) })
  sendJson(res, 200, modelOf(agentOf(deps, decodeURIComponent(id)), created))
}

const now = () => Math.floor(Date.now() / 1000)

async function chat(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const principal = admitted(deps, req)
  const decoded = decodeChatCompletion(await readBody(req, deps.limits.maxFrameBytes, { json: true }), deps.limits)
  if (!decoded.ok) throw decoded.error
  const body = decoded.value
  const agent = agentOf(deps, body.model)
  const header = req.headers[SESSION_HEADER]
  const answered = body.messages.flatMap((m) => (m.role === 'tool' ? [parseChatToolCallId(m.tool_call_id)?.sessionId ?? []].flat() : []))[0]
  const sessionId =
    named(typeof header === 'string' ? header : undefined, SESSION_HEADER) ??
    named(body.metadata?.parlance_session, 'metadata.parlance_session') ??
    named(answered, 'messages') ??
    `chat_${randomUUID()}`
  const session = await deps.sessions.open(sessionId, principal, { agent })
  const commands = reconcileChat(session, body, agent)
  if (commands.length === 0) {
    throw new ParlanceError('invalid_message', 'messages: end with a user message, or with tool messages answering the pending tool calls', {
      field: 'messages',
    })
  }
  const { from, follow } = await carryOut(session, commands)
  res.setHeader(SESSION_HEADER, session.id)
  const view = chatView({
    id: `chatcmpl-${follow ?? from}`,
    model: body.model,
    created: now(),
    sessionId: session.id,
    after: from,
    includeUsage: body.stream_options?.include_usage === true,
  })
  if (body.stream) return streamRun(deps, res, session, from, follow, CHAT_SSE, view)
  const done = await collectRun(res, session, from, follow, CHAT_SSE, view)
  if (!done) return
  if (done.error) throw new ParlanceError(done.error.code, done.error.message)
  sendJson(res, 200, chatCompletion(done))
}

/** What an HTTP header value may hold (Node's check: tab, visible ASCII and space, and the bytes 0x80–0xFF). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

/**
 * A session id the request names, checked: it is echoed in `x-parlance-session`, so it must fit there (found by the
 * HTTP fuzz: a 100 KB id overflowed the client's header parser; an id holding U+FFFD, invalid UTF-8 read as text,
 * made setting the header throw, a 500).
 */
function named(id: string | undefined, field: string): string | undefined {
  if (!id) return undefined
  if (id.length > 256) throw new ParlanceError('invalid_message', `${field}: a session id is at most 256 characters`, { field })
  if (!HEADER_VALUE.test(id))
    throw new ParlanceError('invalid_message', `${field}: a session id holds only characters an HTTP header can (it is echoed in one)`, { field })
  return id
}

async function create(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const principal = admitted(deps, req)
  const decoded = decodeResponseRequest(await readBody(req, deps.limits.maxFrameBytes, { json: true }), deps.limits)
  if (!decoded.ok) throw decoded.error
  const body = decoded.value
  const agent = agentOf(deps, body.model)
  let session: Session
  if (body.previous_response_id) {
    const ref = await stored(deps, body.previous_response_id, 'previous_response_id')
    session = await deps.sessions.open(ref.ref.sessionId, principal, { create: false })
  } else {
    session = await deps.sessions.open(`conv_${randomUUID()}`, principal, { agent })
  }
  const commands = reconcileResponse(session, body, agent)
  if (commands.length === 0) {
    throw new ParlanceError('invalid_message', 'input: end with a user message, or answer the pending approval request or function call', {
      field: 'input',
    })
  }
  const { from, follow } = await carryOut(session, commands)
  if (follow === null) throw new ParlanceError('conflict', 'the input started no response (nothing was waiting for it)', { field: 'input' })
  const keep = body.store !== false
  const id = responseId({ sessionId: session.id, runId: follow, after: from, ...(keep ? {} : { noStore: true as const }) })
  const head: ResponseHead = {
    id,
    created_at: now(),
    model: body.model,
    instructions: body.instructions ?? null,
    previous_response_id: body.previous_response_id ?? null,
    store: keep,
    background: body.background === true,
    metadata: body.metadata ?? {},
    tools: body.tools ?? [],
  }
  if (keep) await deps.sessions.store.backend.putRecord(RESPONSE_SCOPE, id, head as unknown as Json)
  res.setHeader(SESSION_HEADER, session.id)
  const view = responsesView(head, from)
  if (body.stream) return streamRun(deps, res, session, from, follow, RESPONSES_SSE, view)
  if (body.background) return sendJson(res, 200, responseObject({ ...view, status: 'queued' }))
  const done = await collectRun(res, session, from, follow, RESPONSES_SSE, view)
  if (done) sendJson(res, 200, withText(responseObject(done)))
}

/** A response id this server handed out and kept: what it names, and its head. */
async function stored(deps: EndpointDeps, id: string, field?: string): Promise<{ ref: ResponseRef; head: ResponseHead }> {
  const ref = parseResponseId(id)
  const head =
    ref && !ref.noStore ? ((await deps.sessions.store.backend.getRecord(RESPONSE_SCOPE, id)) as unknown as ResponseHead | undefined) : undefined
  if (!ref || !head)
    throw new ParlanceError(
      'not_found',
      `no response with id "${id.slice(0, 80)}" (responses made with store: false are not kept)`,
      field ? { field } : {},
    )
  return { ref, head }
}

async function retrieve(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, url: URL, id: string): Promise<void> {
  const principal = admitted(deps, req)
  const { ref, head } = await stored(deps, id)
  const session = await deps.sessions.open(ref.sessionId, principal, { create: false })
  res.setHeader(SESSION_HEADER, session.id)
  if (url.searchParams.get('stream') === 'true') {
    const raw = url.searchParams.get('starting_after')
    if (raw !== null && !/^\d{1,15}$/.test(raw))
      throw new ParlanceError('invalid_message', 'starting_after must be a sequence number', { field: 'starting_after' })
    return streamRun(deps, res, session, ref.after, ref.runId, RESPONSES_SSE, responsesView(head, ref.after, raw === null ? -1 : Number(raw)))
  }
  sendJson(res, 200, withText(responseObject(await foldLogged(deps, session, ref, head))))
}

async function cancel(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
  const principal = admitted(deps, req)
  const { ref, head } = await stored(deps, id)
  const session = await deps.sessions.open(ref.sessionId, principal, { create: false })
  if (session.activeRunId === ref.runId) await session.handle({ type: 'run.cancel', sessionId: session.id, reason: 'cancelled by the client' })
  const done = await collectRun(res, session, ref.after, ref.runId, RESPONSES_SSE, responsesView(head, ref.after))
  if (done) sendJson(res, 200, withText(responseObject(done)))
}

/** A response as the log holds it now: its run's events after `ref.after`, folded up to its end or the log's. */
async function foldLogged(deps: EndpointDeps, session: Session, ref: ResponseRef, head: ResponseHead): Promise<ResponsesView> {
  let view = responsesView(head, ref.after)
  const end = session.committedSeq
  for (let after = ref.after; after < end;) {
    const page = await deps.sessions.store.read(session.id, after, Math.min(deps.limits.replayPageSize, end - after))
    if (page.length === 0) break
    for (const e of page) {
      if (e.runId !== ref.runId) continue
      const s = responsesStep(e, view)
      view = s.view
      if (s.end) return view
    }
    after = page.at(-1)!.seq
  }
  return view
}

/** The `output_text` convenience the SDKs also compute: the text of the response's messages. */
function withText(r: ResponseObject): ResponseObject {
  return { ...r, output_text: r.output.flatMap((i) => (i.type === 'message' ? i.content.map((c) => c.text) : [])).join('') }
}
