import type { ServerResponse } from 'node:http'
import type { Command, Principal, StoredEvent } from '../core/index.js'
import { busyError, RAW_EVENTS, type Session } from '../session/index.js'
import type { EndpointDeps } from './endpoint.js'

/**
 * Edit-and-resend for dialects whose clients resend the conversation (AG-UI, AI SDK): when `commands` hold a user
 * message that rewinds the history, the session's current branch is first forked into a session of its own
 * (the caller's), whose id the rewind names (`branch`, carried to every client by `history.rewound`). A message
 * the policy would refuse (`reject` while a run is active) is refused here, before the fork, so nothing is left
 * behind. Commands without a rewind are returned as they are.
 */
export async function branchEdits(
  deps: Pick<EndpointDeps, 'sessions'>,
  session: Session,
  principal: Principal,
  commands: Command[],
): Promise<Command[]> {
  const edit = commands.find((c): c is Extract<Command, { type: 'user.message' }> => c.type === 'user.message' && c.rewind !== undefined)
  if (!edit) return commands
  if (session.busyPolicy(edit.onBusy) === 'reject') throw busyError(session.activeRunId)
  const branch = (await deps.sessions.fork(session.id, principal)).id
  return commands.map((c) => (c === edit ? { ...edit, rewind: { ...edit.rewind!, branch } } : c))
}

/**
 * Resolves with the run that takes up user message `messageId` (its `message.user`, at or after seq `from`) once
 * it is committed: for a response that streams a queued message's own run when the queue reaches it. Null if the
 * client goes away first.
 */
export function whenMessageStarts(
  session: Session,
  from: number,
  messageId: string,
  res: ServerResponse,
  label: string,
): Promise<{ runId: string; seq: number } | null> {
  return new Promise((resolve) => {
    let done = false
    const sub = session.subscribe(
      {
        codecKey: label,
        encoder: RAW_EVENTS,
        view: null,
        write(events) {
          if (done) return false
          const e = (events as readonly StoredEvent[]).find((x) => x.type === 'message.user' && x.messageId === messageId)
          if (!e) return true
          done = true
          resolve({ runId: e.runId, seq: e.seq })
          return false
        },
      },
      from,
    )
    res.once('close', () => {
      if (done) return
      done = true
      sub.close()
      resolve(null)
    })
  })
}
