import type { IncomingMessage, ServerResponse } from 'node:http'
import { ParlanceError, type OnBusy, type Principal } from '../../core/index.js'
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
import { agui, AGUI_SSE, type AguiView } from './codec.js'
import type { AguiRunInput } from './wire.js'
import { onBusyOfInput } from './decode.js'
import { reconcile } from './reconcile.js'

/** HTTP status of an error answered before the stream starts, from AG-UI's error table. */
const STATUS = httpStatuses(agui.errors)
const answer = (deps: EndpointDeps, res: ServerResponse, work: () => Promise<void>) => answerErrors(deps, 'agui', res, work, STATUS)
const THREAD_ROUTE = /^\/agui\/threads\/([^/]{1,256})\/(events|cancel)$/
const RUN_ROUTE = /^\/agui(?:\/([A-Za-z0-9_.-]{1,64}))?\/?$/

/**
 * AG-UI over HTTP + Server-Sent Events:
 * - `POST /agui`, `POST /agui/:agent`: a RunAgentInput in, AG-UI events out (threadId = session).
 * - `GET /agui/threads/:threadId/events?after=SEQ`: resume a stream (also `POST` with `Last-Event-ID`).
 * - `POST /agui/threads/:threadId/cancel`: stop the thread's active run.
 */
export const aguiDialect: Dialect = { name: 'agui', capabilities, mount: (deps) => aguiEndpoint(deps) }

const aguiEndpoint = (deps: EndpointDeps): Endpoint => ({
  dialect: 'agui',
  paths: { agui: '/agui' },
  request(req, res, url) {
    const thread = THREAD_ROUTE.exec(url.pathname)
    if (thread) {
      const threadId = decodeURIComponent(thread[1]!)
      if (thread[2] === 'events' && req.method === 'GET') void answer(deps, res, () => resumeStream(deps, req, res, url, threadId))
      else if (thread[2] === 'cancel' && req.method === 'POST') void answer(deps, res, () => cancel(deps, req, res, threadId))
      else sendJson(res, 405, { error: { code: 'invalid_message', message: `${req.method} is not allowed on ${url.pathname}` } })
      return true
    }
    const run = RUN_ROUTE.exec(url.pathname)
    if (!run) return false
    if (req.method !== 'POST') {
      sendJson(res, 405, { error: { code: 'invalid_message', message: 'POST a RunAgentInput to this URL' } }, { allow: 'POST' })
      return true
    }
    void answer(deps, res, () => startRun(deps, req, res, run[1]))
    return true
  },
})

function admit(deps: EndpointDeps, req: IncomingMessage, principal: Principal): void {
  const refused = deps.admission(principal, deps.clientAddress(req))()
  if (refused) throw refused
}

async function startRun(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, agent: string | undefined): Promise<void> {
  const principal = deps.principal(req)
  admit(deps, req, principal)
  if (agent !== undefined && !deps.sessions.agent(agent)) throw new ParlanceError('not_found', `no agent named "${agent}"`, { agent })
  const body = await readBody(req, deps.limits.maxFrameBytes, { json: true })
  const decoded = agui.decode(body, deps.limits)
  if (!decoded.ok) throw decoded.error
  const input = decoded.value
  const session = await deps.sessions.open(input.threadId, principal, agent ? { agent } : {})
  const view: AguiView = { threadId: input.threadId, runId: input.runId }
  const lastEventId = req.headers['last-event-id']
  if (typeof lastEventId === 'string' && /^\d{1,15}$/.test(lastEventId)) {
    // A reconnect: replay what the client missed and continue; the input was already applied.
    return stream(deps, res, session, Number(lastEventId), view, null)
  }
  const retried = await retryOf(deps, session, input, res)
  if (retried !== undefined) return void (retried && stream(deps, res, session, retried.seq - 1, view, retried.runId))
  const plan = reconcile(session, input, { ...(agent ? { agent } : {}), ...withOnBusy(onBusyOfInput(input)) })
  // The client's runId goes on record with its message, so a retry of this request finds this run (`retryOf`).
  const tagged = plan.commands.map((c) =>
    c.type === 'user.message' && c.messageId === plan.userMessageId ? { ...c, metadata: { ...c.metadata, [RUN_TAG]: input.runId } } : c,
  )
  // Edit-and-resend: the old branch lives on as a fork of its own, named in the rewind (and so in history.rewound).
  const commands = await branchEdits(deps, session, principal, tagged)
  const busyWith = session.activeRunId
  const { from, follow } = await carryOut(session, commands)
  if (plan.userMessageId !== undefined && busyWith !== null && follow === busyWith) {
    // Queued (`enqueue`): this response streams the message's own run once it starts (the active run's responses
    // carry CUSTOM parlance.message_queued).
    const started = await whenMessageStarts(session, from, plan.userMessageId, res, 'agui:queued')
    if (started) stream(deps, res, session, started.seq - 1, view, started.runId)
    return
  }
  stream(deps, res, session, from, view, follow)
}

const withOnBusy = (onBusy: OnBusy | undefined) => (onBusy ? { onBusy } : {})

/** The `message.user` metadata key that records the AG-UI `runId` of the request that sent the message. */
const RUN_TAG = 'aguiRunId'

/**
 * A retried request (a client resending after a dropped connection): its last message is a user message the
 * session already has or queues, sent by a request with the same `runId`. It re-attaches to that run, replayed
 * from its start and live to its end, instead of running the turn again. Undefined: not a retry; null: the queued
 * message's run had not started when the client went away.
 *
 * A request that answers something the session is waiting for (a `resume` entry for an open interrupt, a tool
 * message for a pending client tool call) is never a retry, whatever its `runId`: CopilotKit sends its resume in a
 * new request that reuses the interrupted run's `runId`, and that request must answer the approval, not replay
 * the run that asked for it.
 */
async function retryOf(
  deps: EndpointDeps,
  session: Session,
  input: AguiRunInput,
  res: ServerResponse,
): Promise<{ runId: string; seq: number } | null | undefined> {
  if (answersOpen(session, input)) return undefined
  const last = input.messages.at(-1)
  if (last?.role !== 'user') return undefined
  if (session.model.queue.some((q) => q.messageId === last.id && q.metadata?.[RUN_TAG] === input.runId)) {
    return whenMessageStarts(session, session.committedSeq, last.id, res, 'agui:retry')
  }
  if (!session.model.messages.some((m) => m.role === 'user' && m.id === last.id)) return undefined
  return (await runAnswering(session, last.id, deps.limits.replayPageSize, [RUN_TAG, input.runId])) ?? undefined
}

/** The input answers an interrupt or a client tool call the session is waiting for. */
const answersOpen = (session: Session, input: AguiRunInput): boolean =>
  (input.resume ?? []).some((r) => session.waitsFor(r.interruptId)) || input.messages.some((m) => m.role === 'tool' && session.waitsFor(m.toolCallId))

async function resumeStream(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, url: URL, threadId: string): Promise<void> {
  const principal = deps.principal(req)
  admit(deps, req, principal)
  const session = await deps.sessions.open(threadId, principal, { create: false })
  const raw = url.searchParams.get('after') ?? (req.headers['last-event-id'] as string | undefined) ?? null
  if (raw !== null && !/^\d{1,15}$/.test(raw))
    throw new ParlanceError('invalid_message', '"after" must be a non-negative integer (a seq)', { field: 'after' })
  // Without a seq: the active run from its start, or the last run if a stop cut it off lately (its RUN_ERROR shows it).
  const cut = raw === null && session.activeRunId === null ? await cutRun(session, deps.limits.sessionIdleMs) : null
  const start = session.activeRunStartSeq ?? cut?.startSeq ?? null
  const after = raw !== null ? Number(raw) : start !== null ? start - 1 : session.lastSeq
  const runId = url.searchParams.get('runId') ?? session.activeRunId ?? cut?.runId ?? `replay_${after}`
  stream(deps, res, session, after, { threadId, runId }, null)
}

async function cancel(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, threadId: string): Promise<void> {
  const principal = deps.principal(req)
  admit(deps, req, principal)
  const session = await deps.sessions.open(threadId, principal, { create: false })
  const runId = session.activeRunId
  await session.handle({ type: 'run.cancel', sessionId: session.id, reason: 'cancelled by the client' })
  sendJson(res, 202, { threadId, cancelled: runId })
}

/** Streams `from` onwards as one AG-UI run (see `streamRun`). */
function stream(deps: EndpointDeps, res: ServerResponse, session: Session, from: number, view: AguiView, follow: string | null): void {
  streamRun(deps, res, session, from, follow, AGUI_SSE, view)
}
