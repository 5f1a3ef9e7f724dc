import type { IncomingMessage, ServerResponse } from 'node:http'
import { ParlanceError } from '../../core/index.js'
import {
  answerErrors,
  branchEdits,
  carryOut,
  cutRun,
  httpStatuses,
  readBody,
  runAnswering,
  sendJson,
  streamRun,
  whenMessageStarts,
  type Dialect,
  type Endpoint,
  type EndpointDeps,
} from '../../binding/index.js'
import type { Session } from '../../session/index.js'
import { capabilities } from './capabilities.js'
import { aisdk, AISDK_SSE } from './codec.js'
import { reconcile } from './reconcile.js'
import type { ChatRequest } from './wire.js'

/** HTTP status of an error answered before the stream starts, from the dialect's error table. */
const STATUS = httpStatuses(aisdk.errors)

const CHAT_ROUTE = /^\/api\/chat(?:\/([A-Za-z0-9_.-]{1,64}))?\/?$/
const STREAM_ROUTE = /^\/api\/chat\/([^/]{1,256})\/stream$/

/**
 * The Vercel AI SDK UI message stream (v1): `POST /api/chat` and `/api/chat/:agent` take `useChat`'s body,
 * `GET /api/chat/:id/stream` re-attaches to the chat's active stream (what `resume: true` asks), or to its last run
 * when a stop cut it off within the session idle window (its stored part, then `error` and `finish`), 204 when none.
 */
export const aisdkDialect: Dialect = { name: 'aisdk', capabilities, mount: (deps) => aisdkEndpoint(deps) }

const aisdkEndpoint = (deps: EndpointDeps): Endpoint => ({
  dialect: 'aisdk',
  paths: { aisdk: '/api/chat' },
  request(req, res, url) {
    const resume = STREAM_ROUTE.exec(url.pathname)
    if (resume && req.method === 'GET') {
      void answerErrors(deps, 'aisdk', res, () => reattach(deps, req, res, decodeURIComponent(resume[1]!)), STATUS)
      return true
    }
    const chat = CHAT_ROUTE.exec(url.pathname)
    if (!chat) return false
    if (req.method !== 'POST') {
      sendJson(res, 405, { error: { code: 'invalid_message', message: 'POST a chat request to this URL' } }, { allow: 'POST' })
      return true
    }
    void answerErrors(deps, 'aisdk', res, () => submit(deps, req, res, chat[1]), STATUS)
    return true
  },
})

async function submit(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, agent: string | undefined): Promise<void> {
  const principal = deps.principal(req)
  const refused = deps.admission(principal, deps.clientAddress(req))()
  if (refused) throw refused
  if (agent !== undefined && !deps.sessions.agent(agent)) throw new ParlanceError('not_found', `no agent named "${agent}"`, { agent })
  const decoded = aisdk.decode(await readBody(req, deps.limits.maxFrameBytes, { json: true }), deps.limits)
  if (!decoded.ok) throw decoded.error
  const session = await deps.sessions.open(decoded.value.id, principal, agent ? { agent } : {})
  const plan = reconcile(session, decoded.value, agent)
  // A retry (the request that sent the last stored user message, again): the run answering it, replayed to its end.
  const retried = plan.commands.length === 0 ? await retryOf(deps, session, decoded.value) : null
  if (retried) return respond(deps, res, session, retried.seq - 1, retried.runId)
  // Edit-and-resend: the old branch lives on as a fork of its own, named in the rewind (data-history-rewound).
  const commands = await branchEdits(deps, session, principal, plan.commands)
  const busyWith = session.activeRunId
  const { from, follow } = await carryOut(session, commands)
  if (plan.userMessageId !== undefined && busyWith !== null && follow === busyWith) {
    // Queued (`enqueue`): this response streams the message's own run once it starts (the active run's responses
    // carry data-message-queued).
    const started = await whenMessageStarts(session, from, plan.userMessageId, res, 'aisdk:queued')
    if (started) respond(deps, res, session, started.seq - 1, started.runId)
    return
  }
  respond(deps, res, session, from, follow)
}

async function reattach(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, chatId: string): Promise<void> {
  // `useChat({ resume: true })` asks on every page load, before a new chat's first message: a chat the server has
  // not seen has nothing to resume either (the AI SDK reads only 204 as "nothing", and shows an error otherwise).
  const session = await deps.sessions.open(chatId, deps.principal(req), { create: false }).catch((err: unknown) => {
    if (err instanceof ParlanceError && err.code === 'not_found') return null
    throw err
  })
  if (session === null) return void res.writeHead(204).end()
  const startSeq = session.activeRunStartSeq
  if (startSeq !== null) return respond(deps, res, session, startSeq - 1, session.activeRunId)
  // A run a crash or restart cut off: without this the UI would keep its half answer as if it had ended well.
  const cut = await cutRun(session, deps.limits.sessionIdleMs)
  if (cut === null) return void res.writeHead(204).end()
  respond(deps, res, session, cut.startSeq - 1, cut.runId)
}

/** The run answering the request's last message, when that is the session's last user turn, sent again as it is. */
async function retryOf(deps: EndpointDeps, session: Session, body: ChatRequest): Promise<{ runId: string; seq: number } | null> {
  const last = body.messages.at(-1)
  const lastStored = session.model.messages.findLast((m) => m.role === 'user')
  if (body.trigger === 'regenerate-message' || last?.role !== 'user' || last.id !== lastStored?.id) return null
  return runAnswering(session, last.id, deps.limits.replayPageSize)
}

function respond(deps: EndpointDeps, res: ServerResponse, session: Session, from: number, follow: string | null): void {
  streamRun(deps, res, session, from, follow, AISDK_SSE, { messageId: `msg_${follow ?? session.lastSeq}` })
}
