import type { IncomingMessage, ServerResponse } from 'node:http'
import { ParlanceError, type Principal } from '../../core/index.js'
import { answerErrors, carryOut, httpStatuses, readBody, sendJson, type EndpointDeps } from '../../binding/index.js'
import type { Session } from '../../session/index.js'
import { admitted, openThread } from './binding-threads.js'
import { agentOf, commandsOf, lgRunId, runThread } from './binding-runs.js'
import { resumeCommands } from './decode-resume.js'
import { lcMessage } from './encode-messages.js'
import { eachEvent, messagesAt, readThread } from './log.js'
import { decodeCommand, decodeEventStreamRequest, resumeOf, type ProtocolCommand } from './protocol-decode.js'
import { PROTOCOL_ENCODER, protocolView, type ProtocolView } from './protocol-encode.js'
import { errorResponse, PROTOCOL_ERRORS } from './protocol-errors.js'
import type { CommandResponse } from './protocol-wire.js'
import { SSE_HEADERS } from './wire.js'

const STATUS = httpStatuses(PROTOCOL_ERRORS)
/** Runs `work`, answering what it throws as the protocol's ErrorResponse for the command `id()` names (null: none). */
const answer = (deps: EndpointDeps, res: ServerResponse, id: () => number | null, work: () => Promise<void>) =>
  answerErrors(deps, 'langgraph', res, work, STATUS, (e) => errorResponse(e, id()))
/** SSE comment sent while a stream is idle (the SDK's idle watchdog learns the cadence from it). */
const HEARTBEAT_MS = 15_000

/** `POST /threads/{id}/commands`: one command, answered with its CommandResponse or ErrorResponse. */
export async function protocolCommands(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, threadId: string): Promise<void> {
  let id: number | null = null
  await answer(
    deps,
    res,
    () => id,
    async () => {
      const principal = admitted(deps, req)
      const d = decodeCommand(await readBody(req, deps.limits.maxFrameBytes, { json: true }), deps.limits)
      if (!d.ok) {
        id = d.id
        throw d.error
      }
      id = d.value.id
      sendJson(res, 200, await carry(deps, principal, threadId, d.value))
    },
  )
}

async function carry(deps: EndpointDeps, principal: Principal, threadId: string, cmd: ProtocolCommand): Promise<CommandResponse> {
  if (cmd.method === 'state.get') {
    const { session } = await openThread(deps, principal, threadId)
    return { type: 'success', id: cmd.id, result: { values: { messages: session.model.messages.map(lcMessage) } } }
  }
  if (cmd.method === 'run.start') {
    // The hook makes the thread id itself: the first run creates the thread.
    const agent = agentOf(deps, cmd.run.assistant_id)
    const session = await runThread(deps, principal, threadId, agent, true)
    const { commands } = await commandsOf(session, cmd.run, agent)
    const { from, follow } = await carryOut(session, commands)
    if (follow === null) throw new ParlanceError('conflict', 'the command started no run', {})
    return { type: 'success', id: cmd.id, result: { run_id: lgRunId(follow, from) }, meta: { applied_through_seq: from } }
  }
  const { session } = await openThread(deps, principal, threadId)
  const pending = (await readThread(session)).pending
  const unknown = Object.keys(cmd.resume).filter((k) => pending.length > 0 && !pending.some((p) => p.id === k))
  if (unknown.length > 0)
    throw new ParlanceError('not_found', `no interrupt ${unknown.join(', ')} is pending; pending: ${pending.map((p) => p.id).join(', ')}`, {
      protocolError: 'no_such_interrupt',
    })
  const { from } = await carryOut(session, resumeCommands(session.id, resumeOf(cmd.resume, pending), pending))
  return { type: 'success', id: cmd.id, result: {}, meta: { applied_through_seq: from } }
}

/**
 * Where a stream with no `since` starts: the active run's start, else the last run's (as the Agent Server replays
 * the thread's current run to a new stream, so a client that subscribes after `run.start` returned misses nothing).
 */
async function replayPoint(session: Session): Promise<number> {
  const start = session.activeRunStartSeq
  if (start !== null) return start - 1
  let last: number | null = null
  await eachEvent(session, 0, session.committedSeq, (e) => {
    if (e.type === 'run.started') last = e.seq
  })
  return last !== null ? last - 1 : session.lastSeq
}

/**
 * `POST /threads/{id}/stream/events`: the thread's events on the channels asked for, from `since` (a seq) or the
 * current run's start, then live, across runs, until the client goes away; ids are the log's seqs.
 */
export async function protocolEvents(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, threadId: string): Promise<void> {
  await answer(
    deps,
    res,
    () => null,
    async () => {
      const principal = admitted(deps, req)
      const d = decodeEventStreamRequest(await readBody(req, deps.limits.maxFrameBytes, { json: true }), deps.limits)
      if (!d.ok) throw d.error
      const { session } = await openThread(deps, principal, threadId)
      const q = d.value
      const from = q.since !== undefined ? Math.min(q.since, session.lastSeq) : await replayPoint(session)
      const root = !q.namespaces || q.namespaces.length === 0 || q.namespaces.some((n) => n.length === 0)
      const view = protocolView({ threadId, after: from, messages: await messagesAt(session, from), channels: q.channels, root })
      follow(deps, res, session, from, view)
    },
  )
}

function follow(deps: EndpointDeps, res: ServerResponse, session: Session, from: number, view: ProtocolView): void {
  res.writeHead(200, SSE_HEADERS)
  res.write(': parlance\n\n')
  deps.metrics.connections.inc({ dialect: 'langgraph' })
  const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
  heartbeat.unref()
  const sub = session.subscribe(
    {
      codecKey: `langgraph:protocol:${PROTOCOL_ENCODER.shareKey!(view)}`,
      encoder: PROTOCOL_ENCODER,
      view,
      write(frames) {
        if (res.writableEnded || res.destroyed) return false
        for (const x of frames as string[]) res.write(x)
        return true
      },
      backlog: () => res.writableLength,
      drop: () => res.destroy(),
    },
    from,
  )
  res.once('close', () => {
    clearInterval(heartbeat)
    deps.metrics.connections.dec({ dialect: 'langgraph' })
    sub.close()
  })
}
