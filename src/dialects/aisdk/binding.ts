import type { IncomingMessage, ServerResponse } from 'node:http'
import { ParlanceError, stringOf, type Command, type Json } from '../../core/index.js'
import { answerErrors, carryOut, httpStatuses, readBody, sendJson, streamRun, type Dialect, type EndpointDeps } from '../../binding/index.js'
import type { Session } from '../../session/index.js'
import { capabilities } from './capabilities.js'
import { aisdk, AISDK_SSE } from './codec.js'
import type { ChatRequest, UIPart } from './wire.js'

/** HTTP status of an error answered before the stream starts, from the dialect's error table. */
const STATUS = httpStatuses(aisdk.errors)

const CHAT_ROUTE = /^\/api\/chat(?:\/([A-Za-z0-9_.-]{1,64}))?\/?$/
const STREAM_ROUTE = /^\/api\/chat\/([^/]{1,256})\/stream$/

/**
 * The Vercel AI SDK UI message stream (v1): `POST /api/chat` and `/api/chat/:agent` take `useChat`'s body,
 * `GET /api/chat/:id/stream` re-attaches to the chat's active stream (what `resume: true` asks), 204 when none.
 */
export const aisdkBinding: Dialect = { name: 'aisdk', capabilities, endpoint: (deps) => aisdkEndpoint(deps) }

const aisdkEndpoint = (deps: EndpointDeps): ReturnType<Dialect['endpoint']> => ({
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
  const session = await deps.sessions.open(decoded.command.id, principal, agent ? { agent } : {})
  const commands = reconcile(deps, session, decoded.command, agent)
  const { from, follow } = await carryOut(session, commands)
  respond(deps, res, session, from, follow)
}

async function reattach(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, chatId: string): Promise<void> {
  const session = await deps.sessions.open(chatId, deps.principal(req), { create: false })
  const startSeq = session.activeRunStartSeq
  if (startSeq === null) return void res.writeHead(204).end()
  respond(deps, res, session, startSeq - 1, session.activeRunId)
}

function respond(deps: EndpointDeps, res: ServerResponse, session: Session, from: number, follow: string | null): void {
  streamRun(deps, res, session, from, follow, AISDK_SSE, { messageId: `msg_${follow ?? session.lastSeq}` })
}

const isToolPart = (p: UIPart) => p.type.startsWith('tool-') || p.type === 'dynamic-tool'

/**
 * What the request asks for: tool outputs the client produced for pending calls (`tool.result`), approval
 * answers (`approval.response`), and a new trailing user message (`user.message`). The server keeps the
 * conversation; messages it already has are not sent back to it.
 */
function reconcile(deps: EndpointDeps, session: Session, body: ChatRequest, agent: string | undefined): Command[] {
  const sessionId = session.id
  const out: Command[] = []
  for (const m of body.messages) {
    if (m.role !== 'assistant') continue
    for (const p of m.parts as UIPart[]) {
      if (!isToolPart(p)) continue
      const toolCallId = stringOf(p.toolCallId)
      const approval = p.approval as { id?: string; approved?: boolean; reason?: string } | undefined
      if (p.state === 'approval-responded' && approval?.id && session.waitsFor(approval.id)) {
        out.push({ type: 'approval.response', sessionId, approvalId: approval.id, approved: approval.approved === true, ...(approval.reason ? { feedback: approval.reason } : {}) })
      } else if (p.state === 'output-available' && session.waitsFor(toolCallId)) {
        out.push({ type: 'tool.result', sessionId, toolCallId, outcome: 'success', result: (p.output ?? null) as Json })
      } else if (p.state === 'output-error' && session.waitsFor(toolCallId)) {
        out.push({ type: 'tool.result', sessionId, toolCallId, outcome: 'failure', error: stringOf(p.errorText, 'the client tool failed') })
      }
    }
  }
  const last = body.messages[body.messages.length - 1]
  if (last?.role === 'user' && !session.model.messages.some((m) => m.id === last.id)) {
    const text = (last.parts as UIPart[]).flatMap((p) => (p.type === 'text' ? [stringOf(p.text)] : [])).join('')
    if (text) out.push({ type: 'user.message', sessionId, content: text, messageId: last.id, ...(agent ? { agent } : {}) })
  }
  return out
}
