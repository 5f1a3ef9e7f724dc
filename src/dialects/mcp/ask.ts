import { randomUUID } from 'node:crypto'
import type { CallToolResult, ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { newId, ParlanceError, type Principal, type StoredEvent } from '../../core/index.js'
import type { Session, SessionManager } from '../../session/index.js'
import {
  APPROVAL_FORM,
  APPROVAL_META,
  approvalAnswer,
  approvalMeta,
  approvalPrompt,
  completed,
  failed,
  progressOf,
  refused,
  waiting,
} from './mapping.js'
import { follow } from '../../binding/index.js'
import type { AskArgs } from './wire.js'

/** What a call can do towards its MCP client: progress, and an elicitation when the client supports it. */
export interface AskChannel {
  /** Reports progress (only when the caller asked for it with a progress token). */
  progress(message: string): void
  /** Asks the user (elicitation); null when the client cannot be asked. */
  elicit: ((message: string, schema: ElicitRequestFormParams['requestedSchema'], meta: Record<string, unknown>) => Promise<ElicitResult>) | null
  /** Aborted when the client cancels the call (notifications/cancelled) or goes away. */
  signal: AbortSignal
}

/**
 * Runs one `ask_<agent>` call: the message as a user turn of a Parlance session (the one named, or a new one),
 * its run's events as progress, its final text (and state, session and run ids as structured content) as the
 * result. An approval is asked through elicitation when the client supports it; otherwise the call ends at once
 * saying what waits, and any other client of the session (HAI, the inspector, …) may answer it. A client tool
 * cannot run in an MCP client: the call ends the same way, the call left for another client of the session.
 * While another run of the session is active, `args.onBusy` (else the agent's, else the server's policy) decides:
 * a queued message's call waits for its own run and answers with it; a refused one (`reject`: `busy`) is a tool
 * error, as is any other refusal of the message.
 */
export async function ask(
  sessions: SessionManager,
  principal: Principal,
  agent: string,
  args: AskArgs,
  channel: AskChannel,
): Promise<CallToolResult> {
  const session = await sessions.open(args.sessionId ?? `mcp_${randomUUID()}`, principal, { agent })
  return new Promise<CallToolResult>((resolve, reject) => {
    let text = ''
    let settled = false
    const finish = (result: CallToolResult | Error) => {
      if (settled) return
      settled = true
      follower.close()
      channel.signal.removeEventListener('abort', onAbort)
      if (result instanceof Error) reject(result)
      else resolve(result)
    }
    const ids = () => ({ sessionId: session.id, runId: follower.runId() })
    const on = (e: StoredEvent) => {
      if (settled) return
      const said = progressOf(e)
      if (said !== null) channel.progress(said)
      switch (e.type) {
        case 'text.delta':
          text += e.delta
          return
        case 'text.end':
          text += '\n'
          return
        case 'message.sent':
          text += `${e.message}\n`
          return
        case 'tool.call':
          if (e.target !== 'client') return
          return finish(
            waiting(
              text,
              `${agent} waits for the client tool ${e.toolName} (call ${e.toolCallId}); an MCP client cannot run it: answer it from another client of session ${session.id}`,
              { ...ids(), status: 'input-required', toolCallId: e.toolCallId, tool: e.toolName },
            ),
          )
        case 'approval.requested':
          return void approve(session, e, channel).then(
            (asked) => {
              if (!asked)
                finish(
                  waiting(
                    text,
                    `${agent} waits for approval ${e.approvalId} to run ${e.toolName}; answer it from another client of session ${session.id} (this MCP client cannot be asked)`,
                    { ...ids(), status: 'input-required', approvalId: e.approvalId, tool: e.toolName },
                  ),
                )
            },
            (err: unknown) => finish(err instanceof Error ? err : new Error(String(err))),
          )
        case 'run.finished':
          return finish(completed(text, ids(), session.model.state))
        case 'run.error':
          return finish(failed(e, ids()))
      }
    }
    const onAbort = () => {
      // The client cancelled the call (or left): its run stops too, or, while its message is still queued, the
      // message is withdrawn — never another call's run. The SDK answers nothing to a cancelled request.
      const mine = follower.runId()
      if (mine === null || session.activeRunId === mine) {
        // Async, so a refusal thrown at once (a writer's handle is synchronous) is caught too: it is an abort listener.
        void (async () =>
          session.handle({ type: 'run.cancel', sessionId: session.id, reason: 'cancelled by the MCP client', messageId: cmd.messageId }))().catch(
          () => {},
        )
      }
      finish(new ParlanceError('cancelled', 'cancelled by the MCP client'))
    }
    channel.signal.addEventListener('abort', onAbort, { once: true })
    const cmd = {
      type: 'user.message' as const,
      sessionId: session.id,
      content: args.message,
      agent,
      messageId: newId('msg'),
      ...(args.onBusy ? { onBusy: args.onBusy } : {}),
    }
    const follower = follow(session, cmd, 'mcp', {
      event: on,
      queued: () => channel.progress(`queued: waits for the active run of session ${session.id}`),
      // A refused message (busy, an unknown agent, the store failing) is a tool error; anything else is a bug.
      failed: (err) => finish(err instanceof ParlanceError ? refused(err, ids()) : err),
    })
  })
}

/** Asks the user to approve through elicitation; false when the client cannot be asked. */
async function approve(session: Session, e: Extract<StoredEvent, { type: 'approval.requested' }>, channel: AskChannel): Promise<boolean> {
  if (!channel.elicit) return false
  const { approved, feedback } = approvalAnswer(
    await channel.elicit(approvalPrompt(session.agentName, e), APPROVAL_FORM, { [APPROVAL_META]: approvalMeta(e) }),
  )
  // Refused when the approval was answered meanwhile from another client (or timed out): that answer stands.
  await Promise.resolve(
    session.handle({ type: 'approval.response', sessionId: session.id, approvalId: e.approvalId, approved, ...(feedback ? { feedback } : {}) }),
  ).catch(() => {})
  return true
}
