import type { IncomingMessage, ServerResponse } from 'node:http'
import { A2A_VERSION_HEADER } from '@a2a-js/sdk'
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server'
import {
  DefaultExecutionEventBusManager,
  JsonRpcTransportHandler,
  defaultServerCallContextBuilder,
  validateVersion,
  type User,
} from '@a2a-js/sdk/server'
import {
  checkJsonShape,
  checkMessageLength,
  ParlanceError,
  rpcEnvelopeError,
  rpcError as rpcErrorOf,
  SSE_HEADERS,
  type Principal,
} from '../../core/index.js'
import { BodyError, readBody, sendJson, type Dialect, type Endpoint, type EndpointDeps } from '../../binding/index.js'
import { capabilities } from './capabilities.js'
import { agentCard, legacyAgentCard, onBusyOfMessage, SEND_METHODS, type CardInput } from './mapping.js'
import { A2A_ERRORS, a2aRpcError } from './errors.js'
import { ParlanceExecutor } from './executor.js'
import { guardedPushStore, RetryingPushSender } from './push.js'
import { RecordPushStore } from './push-store.js'
import { closesWith, fairShare, ParlanceRequestHandler } from './request-handler.js'
import { LogTaskStore, taskLogOf } from './task-store.js'
import { WebhookGuard } from './webhook-guard.js'
import { WELL_KNOWN_CARD } from './wire.js'

const CARD_ROUTE = /^\/a2a\/([A-Za-z0-9_.-]{1,64})\/\.well-known\/agent-card\.json$/
const RPC_ROUTE = /^\/a2a(?:\/([A-Za-z0-9_.-]{1,64}))?\/?$/

/** One agent's A2A service: its card, tasks and executor behind the SDK's request handler. */
interface AgentService {
  rpc: JsonRpcTransportHandler
  /** The same handler behind the A2A 0.3 method names (the SDK's compat layer). */
  legacy: LegacyJsonRpcTransportHandler
  handler: ParlanceRequestHandler
  card: CardInput
}

/**
 * A2A 1.0 over JSON-RPC (the official `@a2a-js/sdk` request handler and transport handler, on Parlance's HTTP
 * server): each agent's card at `/a2a/:agent/.well-known/agent-card.json` (the default agent's also at
 * `/.well-known/agent-card.json`), JSON-RPC at `POST /a2a/:agent` (`POST /a2a`: the default agent).
 */
export const a2aDialect: Dialect = { name: 'a2a', capabilities, mount: (deps) => a2aEndpoint(deps) }

function a2aEndpoint(deps: EndpointDeps): Endpoint {
  const services = new Map<string, AgentService>()
  const guard = new WebhookGuard({ allowHosts: deps.allowWebhookHosts ?? [] })
  const service = (agent: string, base: string): AgentService => {
    let s = services.get(agent)
    if (!s) {
      const def = deps.sessions.agent(agent)!
      const input: CardInput = {
        name: agent,
        description: def.description ?? `The ${agent} agent`,
        tools: Object.keys(def.tools ?? {}),
        url: `${base}/a2a/${agent}`,
        auth: deps.authOn,
      }
      const card = agentCard(input)
      // Tasks are read back from the session logs and webhooks kept as store records: both outlive this process.
      const log = taskLogOf(deps.sessions.store)
      const tasks = new LogTaskStore(log, agent)
      const executor = new ParlanceExecutor(deps.sessions, agent, (rc) => rc.context.user?.userName ?? 'anonymous', tasks)
      // Webhooks are checked when a config is saved and again at each delivery (webhook-guard.ts); the sender reads
      // a task's webhooks again once they change through this node (else at most once a second).
      const pushes = guardedPushStore(new RecordPushStore(log), guard, (taskId) => sender.forget(taskId))
      const sender = new RetryingPushSender(pushes, deps.log, guard)
      // SubscribeToTask and CancelTask follow the session log, so they work on any node (request-handler.ts).
      const handler = new ParlanceRequestHandler(
        card,
        tasks,
        executor,
        new DefaultExecutionEventBusManager(),
        pushes,
        sender,
        deps.sessions,
        deps.log,
      )
      services.set(
        agent,
        (s = { handler, card: input, rpc: new JsonRpcTransportHandler(handler), legacy: new LegacyJsonRpcTransportHandler(handler) }),
      )
    }
    return s
  }
  const defaultAgent = () => deps.sessions.agentNames()[0]!
  return {
    dialect: 'a2a',
    paths: { a2a: '/a2a', a2aCard: WELL_KNOWN_CARD },
    request(req, res, url) {
      const card = url.pathname === WELL_KNOWN_CARD ? defaultAgent() : CARD_ROUTE.exec(url.pathname)?.[1]
      if (card !== undefined) {
        if (!deps.sessions.agent(card)) sendJson(res, 404, { error: { code: 'not_found', message: `no agent named "${card}"` } })
        else {
          // A2A 1.0 clients ask with `A2A-Version: 1.0`; without it (0.3 clients send none) the 0.3 card.
          const s = service(card, baseUrl(req))
          // Added to the server's `Vary: Origin` (set before dispatch for browser requests), which writeHead would replace.
          const headers = { 'cache-control': 'no-cache', vary: [res.getHeader('vary'), A2A_VERSION_HEADER].filter(Boolean).join(', ') }
          if (isLegacy(header(req, A2A_VERSION_HEADER))) sendJson(res, 200, legacyAgentCard(s.card), headers)
          else void s.handler.getAgentCard().then((c) => sendJson(res, 200, c, headers))
        }
        return true
      }
      const rpc = RPC_ROUTE.exec(url.pathname)
      if (!rpc) return false
      void serveRpc(deps, req, res, rpc[1] ?? defaultAgent(), service).catch((err: unknown) => {
        deps.log.error({ err }, 'A2A request failed')
        if (!res.headersSent) rpcError(res, null, new ParlanceError('internal', 'Internal error'))
        else res.end()
      })
      return true
    },
  }
}

async function serveRpc(
  deps: EndpointDeps,
  req: IncomingMessage,
  res: ServerResponse,
  agent: string,
  service: (agent: string, base: string) => AgentService,
): Promise<void> {
  if (req.method !== 'POST')
    return rpcError(res, null, new ParlanceError('invalid_message', 'Invalid Request: POST a JSON-RPC 2.0 request to this URL'), 405)
  if (!deps.sessions.agent(agent)) return rpcError(res, null, new ParlanceError('not_found', `no agent named "${agent}"`, { agent }))
  const principal = deps.principal(req)
  const refused = deps.admission(principal, deps.clientAddress(req))()
  if (refused) return rpcError(res, null, refused)
  let text: string
  try {
    text = await readBody(req, deps.limits.maxFrameBytes, { json: true })
  } catch (err) {
    const status = err instanceof BodyError ? err.status : 400
    return rpcError(
      res,
      null,
      new ParlanceError(status === 413 ? 'frame_too_large' : 'invalid_message', `Invalid Request: ${(err as Error).message}`),
      status,
    )
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (err) {
    return rpcError(res, null, new ParlanceError('invalid_json', `Parse error: ${(err as Error).message}`))
  }
  // Odd ids and deep bodies are refused here, before the SDK (which answered a deeply nested id with a 500).
  const odd = rpcEnvelopeError(body, { maxDepth: deps.limits.maxJsonDepth })
  if (odd) return sendJson(res, 200, rpcErrorOf(odd.id, odd.error))
  const id = (body as { id?: string | number } | null)?.id ?? null
  // The guard every dialect runs (depth, forbidden keys), before the SDK sees the body; an id it refuses is not echoed.
  const shape = checkJsonShape(body, deps.limits.maxJsonDepth)
  if (shape) return rpcError(res, typeof id === 'string' || typeof id === 'number' ? id : null, shape)
  // The SDK passes message metadata through unread: the policy a message asks for is checked here, as a param.
  const call = body as { method?: unknown; params?: { message?: { metadata?: unknown; parts?: unknown; taskId?: unknown } } } | null
  if (typeof call?.method === 'string' && SEND_METHODS.has(call.method)) {
    const asked = onBusyOfMessage(call.params?.message?.metadata)
    if (!asked.ok) return rpcError(res, id, new ParlanceError('invalid_message', asked.message, { field: asked.field }))
    // The message limit, here as a JSON-RPC error before any task exists (the session would refuse it too, but as a failed task).
    const text = wireText(call.params?.message?.parts)
    const tooLong = checkMessageLength(text, deps.limits.maxUserMessageChars, 'message.parts')
    if (tooLong) return rpcError(res, id, tooLong)
    // A new task needs text to run (an answer to a waiting task may be a data part): refused here, not as a failed task
    // the SDK also reports on stderr, stack and all, for every such request (found by the HTTP fuzz).
    if (!call.params?.message?.taskId && !text.trim())
      return rpcError(
        res,
        id,
        new ParlanceError('invalid_message', 'message.parts: a message that starts a task needs a text part', { field: 'message.parts' }),
      )
  }
  const s = service(agent, baseUrl(req))
  const context = defaultServerCallContextBuilder({
    extensions: undefined,
    user: userOf(principal, deps.authOn),
    headers: req.headers,
    requestedVersion: header(req, A2A_VERSION_HEADER),
  })
  try {
    validateVersion(context.requestedVersion, await s.handler.getAgentCard(), 'JSONRPC')
  } catch (err) {
    return sendJson(res, 200, {
      jsonrpc: '2.0',
      id,
      error: { code: JsonRpcTransportHandler.mapToJSONRPCError(err).code, message: (err as Error).message },
    })
  }
  // A stream's wait for the next update ends when its client goes away (SubscribeToTask may wait long).
  const gone = new AbortController()
  res.once('close', () => gone.abort())
  closesWith(context, gone.signal)
  const legacy = isLegacy(context.requestedVersion)
  const out = legacy ? await s.legacy.handle(body as Record<string, unknown>, context) : await s.rpc.handle(body as Record<string, unknown>, context)
  if (!isStream(out)) return sendJson(res, 200, out)
  res.writeHead(200, SSE_HEADERS)
  const turn = fairShare()
  try {
    for await (const event of out) {
      await turn()
      if (res.destroyed) break
      res.write(`data: ${JSON.stringify(event)}\n\n`)
    }
  } catch (err) {
    const error = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) : JsonRpcTransportHandler.mapToJSONRPCError(err)
    res.write(`event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error })}\n\n`)
  }
  res.end()
}

/** A2A 0.3 (or no `A2A-Version`, which A2A defines as 0.3). */
const isLegacy = (version: string | undefined) => !version || version.startsWith('0.')

const isStream = (v: unknown): v is AsyncGenerator<unknown> =>
  typeof (v as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function'

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()]
  return Array.isArray(v) ? v[0] : v
}

function userOf(principal: Principal, authOn: boolean): User {
  return { isAuthenticated: authOn, userName: principal }
}

/** This server's base URL as the client reached it (the card names absolute URLs). */
function baseUrl(req: IncomingMessage): string {
  const proto = header(req, 'x-forwarded-proto') ?? 'http'
  return `${proto}://${header(req, 'x-forwarded-host') ?? req.headers.host ?? '127.0.0.1'}`
}

/** Answers `e` outside the SDK's handler: the JSON-RPC error and HTTP status of A2A's error table (`status` overrides it). */
/** The text of a message's parts as sent (A2A 0.3 `{kind: 'text', text}`, 1.0 `{text}`), joined as the executor joins them. */
function wireText(parts: unknown): string {
  if (!Array.isArray(parts)) return ''
  let text = ''
  for (const p of parts as unknown[]) {
    const t = (p as { text?: unknown } | null)?.text
    if (typeof t === 'string') text += t
  }
  return text
}

function rpcError(res: ServerResponse, id: string | number | null, e: ParlanceError, status = A2A_ERRORS[e.code].status): void {
  sendJson(res, status, { jsonrpc: '2.0', id, error: a2aRpcError(e) })
}
