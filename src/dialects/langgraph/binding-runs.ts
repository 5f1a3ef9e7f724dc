import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ParlanceError, type Command, type HistoryMessage, type OnBusy, type Principal } from '../../core/index.js'
import { carryOut, collectRun, readBody, sendJson, streamRun, whenMessageStarts, type EndpointDeps } from '../../binding/index.js'
import type { Session } from '../../session/index.js'
import { admitted, createThread, openThread, putThreadRecord, threadRecord } from './binding-threads.js'
import { decodeRunRequest, roleOf, textOf } from './decode.js'
import { resumeCommands } from './decode-resume.js'
import { langGraphView, LANGGRAPH_SSE, modesOf, type LangGraphView } from './encode.js'
import { lcMessage } from './encode-messages.js'
import { runObject } from './encode-state.js'
import { messagesAt, readRun, readThread, seqOfCheckpoint } from './log.js'
import type { LcMessage, MessageDict, RunRequest, StreamMode } from './wire.js'

/**
 * A LangGraph run id names the Parlance run and the seq its part starts after (`<run>.<seq>`): a LangGraph run is
 * the part of a Parlance run from its input or resume to its end or next pause, and the log holds everything else.
 */
export const lgRunId = (runId: string, after: number) => `${runId}.${after}`
export function parseRunId(id: string): { runId: string; after: number } | null {
  const m = /^(.{1,200})\.(\d{1,15})$/.exec(id)
  return m ? { runId: m[1]!, after: Number(m[2]) } : null
}

export const agentOf = (deps: EndpointDeps, id: string): string => {
  if (deps.sessions.agent(id)) return id
  throw new ParlanceError(
    'not_found',
    `Assistant ${id} not found; this server serves ${deps.sessions
      .agentNames()
      .map((n) => `"${n}"`)
      .join(', ')}`,
    {
      field: 'assistant_id',
    },
  )
}

/** Input messages before the last, as history (ids kept, or made from the thread and position). */
function earlierOf(sessionId: string, msgs: readonly MessageDict[], base: number): HistoryMessage[] {
  const out: HistoryMessage[] = []
  msgs.forEach((m, i) => {
    const id = m.id ?? `${sessionId}:${base + i}`
    const t = textOf(m.content)
    const content = 'text' in t ? t.text : ''
    const role = roleOf(m)
    if (role === 'human') out.push({ id, role: 'user', content })
    else if (role === 'ai') out.push({ id, role: 'assistant', content })
    else if (role === 'tool' && m.tool_call_id) out.push({ id, role: 'tool', toolCallId: m.tool_call_id, content })
  })
  return out
}

/** The message id of a checkpoint's last message (an edit from an older checkpoint cuts the history back to it). */
async function rewindOf(session: Session, body: RunRequest): Promise<{ toMessageId: string | null } | undefined> {
  const id = body.checkpoint?.checkpoint_id ?? body.checkpoint_id
  if (!id) return undefined
  const seq = seqOfCheckpoint(id)
  if (seq === null || seq > session.committedSeq)
    throw new ParlanceError('not_found', `checkpoint ${id} not found in this thread`, { field: 'checkpoint' })
  const messages = await messagesAt(session, seq)
  const head = session.model.messages.at(-1)?.id ?? null
  const to = messages.at(-1)?.id ?? null
  return to === head && messages.length === session.model.messages.length ? undefined : { toMessageId: to }
}

/**
 * A run with no input from a checkpoint (Agent Chat UI's Regenerate: the checkpoint before an answer): the last human
 * message as of that checkpoint is answered again, and what came after it is superseded. A regenerate cannot wait in
 * the queue, so `enqueue` (and no strategy) refuses while a run is active.
 */
async function regenerateOf(session: Session, body: RunRequest, agent: string, interrupted: boolean): Promise<Command> {
  const id = body.checkpoint?.checkpoint_id ?? body.checkpoint_id ?? ''
  const seq = seqOfCheckpoint(id)
  if (seq === null || seq > session.committedSeq)
    throw new ParlanceError('not_found', `checkpoint ${id} not found in this thread`, { field: 'checkpoint' })
  const turn = (await messagesAt(session, seq)).findLast((m) => m.type === 'human')
  if (!turn) throw new ParlanceError('not_found', `checkpoint ${id} has no human message to answer again`, { field: 'checkpoint' })
  const strategy = body.multitask_strategy
  const onBusy: OnBusy = interrupted ? 'interrupt' : strategy && strategy !== 'enqueue' ? strategy : 'reject'
  return { type: 'run.regenerate', sessionId: session.id, messageId: turn.id, agent, onBusy }
}

/** The commands a run request carries out, and the user message it sends (null: a resume). */
export async function commandsOf(session: Session, body: RunRequest, agent: string): Promise<{ commands: Command[]; messageId: string | null }> {
  const thread = await readThread(session)
  if (body.command?.resume !== undefined) return { commands: resumeCommands(session.id, body.command.resume, thread.pending), messageId: null }
  const msgs = body.input?.messages ?? []
  if (msgs.length === 0) return { commands: [await regenerateOf(session, body, agent, thread.status === 'interrupted')], messageId: null }
  const last = msgs.at(-1)!
  const commands: Command[] = []
  const earlier = earlierOf(session.id, msgs.slice(0, -1), session.model.messages.length)
  if (earlier.length > 0) commands.push({ type: 'history.replace', sessionId: session.id, messages: [...session.model.messages, ...earlier] })
  // A new input abandons a pause for the client, as on the Agent Server; otherwise the thread's strategy decides.
  const onBusy: OnBusy = thread.status === 'interrupted' ? 'interrupt' : (body.multitask_strategy ?? 'enqueue')
  const rewind = await rewindOf(session, body)
  // LangGraph runs a message that reuses an id again (its reducer replaces by id); here a taken id would make the
  // command a resend of that message (carried out at most once, see Writer), so the new turn gets an id of its own.
  const taken = !rewind && typeof last.id === 'string' && session.model.userMessage(last.id) !== undefined
  const messageId = (taken ? null : last.id) ?? randomUUID()
  const t = textOf(last.content)
  commands.push({
    type: 'user.message',
    sessionId: session.id,
    content: 'text' in t ? t.text : '',
    messageId,
    agent,
    onBusy,
    ...(rewind ? { rewind } : {}),
    ...(body.metadata ? { metadata: { langgraph: body.metadata } } : {}),
  })
  return { commands, messageId }
}

/** The session of a thread a run is started on (`create`: made if missing), its metadata stamped with the assistant. */
export async function runThread(deps: EndpointDeps, principal: Principal, threadId: string, agent: string, create: boolean): Promise<Session> {
  let record = await threadRecord(deps, principal, threadId)
  if (!record && create) record = await createThread(deps, principal, threadId, { graph_id: agent })
  const session = (await openThread(deps, principal, threadId)).session
  record = record!
  if (record.metadata.graph_id !== agent || record.metadata.assistant_id !== agent)
    await putThreadRecord(deps, principal, { ...record, metadata: { ...record.metadata, graph_id: agent, assistant_id: agent } })
  return session
}

/** `POST /threads/{id}/runs/stream` (`wait`: `/runs/wait`); `threadId` null: a stateless run on a thread of its own. */
export async function startRun(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, threadId: string | null, wait: boolean): Promise<void> {
  const principal = admitted(deps, req)
  const decoded = decodeRunRequest(await readBody(req, deps.limits.maxFrameBytes, { json: true }), deps.limits)
  if (!decoded.ok) throw decoded.error
  const body = decoded.value
  const agent = agentOf(deps, body.assistant_id)
  let session: Session
  const id = threadId ?? `lg_${randomUUID()}`
  if (threadId === null) session = await deps.sessions.open(id, principal, { agent })
  else session = await runThread(deps, principal, threadId, agent, body.if_not_exists === 'create')
  const { commands, messageId } = await commandsOf(session, body, agent)
  const busyWith = session.activeRunId
  const before = session.lastSeq
  const history = session.model.messages.map(lcMessage)
  let { from, follow } = await carryOut(session, commands)
  if (messageId !== null && busyWith !== null && follow === busyWith && session.model.queue.some((q) => q.messageId === messageId)) {
    // Queued (`enqueue`): this response is the message's own run, once the queue reaches it.
    const started = await whenMessageStarts(session, from, messageId, res, 'langgraph:queued')
    if (!started) return
    from = started.seq - 1
    follow = started.runId
  }
  if (follow === null) throw new ParlanceError('conflict', 'the request started no run', {})
  const runId = lgRunId(follow, from)
  const messages: readonly LcMessage[] = from === before ? history : await messagesAt(session, from)
  const modes = modesOf(typeof body.stream_mode === 'string' ? [body.stream_mode] : (body.stream_mode ?? (['values'] as StreamMode[])))
  const view = langGraphView({
    threadId: session.id,
    runId,
    assistantId: agent,
    modes: wait ? { ...modes, values: true } : modes,
    after: from,
    messages,
  })
  res.setHeader('content-location', `/threads/${encodeURIComponent(session.id)}/runs/${encodeURIComponent(runId)}`)
  if (wait) return answerWait(res, session, from, follow, view)
  res.setHeader('location', `/threads/${encodeURIComponent(session.id)}/runs/${encodeURIComponent(runId)}/stream`)
  if (body.on_disconnect === 'cancel') cancelOnDisconnect(res, session, follow)
  streamRun(deps, res, session, from, follow, LANGGRAPH_SSE, view)
}

/** `on_disconnect: "cancel"`: a client that goes away before its run ends (or pauses) cancels it. */
function cancelOnDisconnect(res: ServerResponse, session: Session, runId: string): void {
  res.once('close', () => {
    if (res.writableEnded || session.activeRunId !== runId) return
    void Promise.resolve(session.handle({ type: 'run.cancel', sessionId: session.id, reason: 'the client disconnected' })).catch(() => undefined)
  })
}

/** `…/runs/wait`: the run's last values (with `__interrupt__` when it paused), or `{__error__}`. */
async function answerWait(res: ServerResponse, session: Session, from: number, follow: string, view: LangGraphView): Promise<void> {
  const done = await collectRun(res, session, from, follow, LANGGRAPH_SSE, view)
  if (!done) return
  const t = await readThread(session)
  sendJson(
    res,
    200,
    done.error
      ? { __error__: { error: done.error.code, message: done.error.message } }
      : { messages: done.messages, ...(t.interrupts.length ? { __interrupt__: t.interrupts } : {}) },
  )
}

/** A run of the thread (from its id), or `not_found`. */
async function runOf(deps: EndpointDeps, req: IncomingMessage, threadId: string, id: string) {
  const principal = admitted(deps, req)
  const { session } = await openThread(deps, principal, threadId)
  const ref = parseRunId(id)
  const read = ref ? await readRun(session, ref.runId, ref.after) : null
  if (!ref || !read) throw new ParlanceError('not_found', `Run ${id} not found`, { runId: id })
  return { session, ref, read }
}

/** `GET /threads/{id}/runs/{run_id}`. */
export async function getRun(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, threadId: string, id: string): Promise<void> {
  const { read } = await runOf(deps, req, threadId, id)
  const now = Date.now()
  sendJson(
    res,
    200,
    runObject({
      runId: id,
      threadId,
      assistantId: read.assistantId ?? '',
      createdAt: read.createdAt ?? now,
      updatedAt: read.updatedAt ?? now,
      status: read.status,
      multitask: null,
    }),
  )
}

/** `GET /threads/{id}/runs/{run_id}/stream` (`joinStream`): `Last-Event-ID` a seq to continue after; `-1` or none: the whole run. */
export async function joinRun(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, url: URL, threadId: string, id: string): Promise<void> {
  const { session, ref, read } = await runOf(deps, req, threadId, id)
  const raw = req.headers['last-event-id']
  const last = typeof raw === 'string' && raw !== '' && raw !== '-1' ? raw : null
  if (last !== null && !/^\d{1,15}$/.test(last))
    throw new ParlanceError('invalid_message', 'Last-Event-ID must be an event id of this run, or -1', { field: 'last-event-id' })
  const from = Math.max(ref.after, last === null ? 0 : Number(last))
  const modes = url.searchParams.getAll('stream_mode') as StreamMode[]
  const view = langGraphView({
    threadId,
    runId: id,
    assistantId: read.assistantId ?? '',
    modes: modesOf(modes.length ? modes : ['values', 'messages-tuple', 'updates', 'custom']),
    after: from,
    messages: await messagesAt(session, from),
  })
  if (url.searchParams.get('cancel_on_disconnect') === '1') cancelOnDisconnect(res, session, ref.runId)
  streamRun(deps, res, session, from, ref.runId, LANGGRAPH_SSE, view)
}

/** `POST /threads/{id}/runs/{run_id}/cancel` (`?wait=1`: answered once the run has ended). */
export async function cancelRun(
  deps: EndpointDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  threadId: string,
  id: string,
): Promise<void> {
  const { session, ref } = await runOf(deps, req, threadId, id)
  if (session.activeRunId !== ref.runId) return void res.writeHead(url.searchParams.get('wait') === '1' ? 204 : 202).end()
  const from = session.lastSeq
  await session.handle({ type: 'run.cancel', sessionId: session.id, reason: 'cancelled by the client' })
  if (url.searchParams.get('wait') === '1') {
    const view = langGraphView({ threadId, runId: id, assistantId: '', modes: modesOf([]), after: from, messages: [] })
    if (!(await collectRun(res, session, from, ref.runId, LANGGRAPH_SSE, view))) return
    return void res.writeHead(204).end()
  }
  res.writeHead(202).end()
}
