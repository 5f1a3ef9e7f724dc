import { stringOf, type Command, type HistoryMessage, type Json, type SessionId } from '../../core/index.js'
import type { ChatRequest, UIPart } from './wire.js'

/** What reconciling a chat request reads of its session (a `Session`, narrowed). */
export interface StoredChat {
  readonly id: SessionId
  readonly model: { readonly messages: readonly HistoryMessage[] }
  waitsFor(id: string): boolean
}

/**
 * What a chat request asks for. `commands` are carried out in order. `forks`: an edit-and-resend, so the binding
 * first forks the session (the old branch) and names the fork in the user message's `rewind.branch`.
 * `userMessageId`: the id of the user message sent, if any.
 */
export interface Reconciled {
  commands: Command[]
  forks: boolean
  userMessageId?: string
}

const isToolPart = (p: UIPart) => p.type.startsWith('tool-') || p.type === 'dynamic-tool'
type UIMessage = ChatRequest['messages'][number]
const textOf = (m: UIMessage) => (m.parts as UIPart[]).flatMap((p) => (p.type === 'text' ? [stringOf(p.text)] : [])).join('')

/**
 * What the request asks for (pure): tool outputs the client produced for pending calls (`tool.result`), approval
 * answers (`approval.response`), then
 * - `trigger: 'regenerate-message'` (useChat `regenerate()`): `run.regenerate` of the request's last user message,
 *   when the server has it;
 * - else a trailing user message the server does not have as is: `user.message` with the body's `onBusy`. When
 *   the request's user turns part from the stored ones before those end (useChat `sendMessage({ text, messageId })`
 *   editing an earlier message sends the list cut there, with the same id and new text), it is an edit-and-resend:
 *   the old branch is forked (`forks`) and the history cut back to the message before the first stored user turn
 *   that differs (`rewind`). A request sharing no user message with the stored ones (a client that sends only the
 *   new message) never diverges, nor does one on a chat with no stored history.
 * The server keeps the conversation: assistant messages of the UI stream are per response and do not match the
 * stored per-text ids, so only user turns are compared and nothing else is taken back from the client.
 */
export function reconcile(session: StoredChat, body: ChatRequest, agent: string | undefined): Reconciled {
  const sessionId = session.id
  const out: Command[] = []
  for (const m of body.messages) {
    if (m.role !== 'assistant') continue
    for (const p of m.parts as UIPart[]) {
      if (!isToolPart(p)) continue
      const toolCallId = stringOf(p.toolCallId)
      const approval = p.approval as { id?: string; approved?: boolean; reason?: string } | undefined
      if (p.state === 'approval-responded' && approval?.id && session.waitsFor(approval.id)) {
        out.push({
          type: 'approval.response',
          sessionId,
          approvalId: approval.id,
          approved: approval.approved === true,
          ...(approval.reason ? { feedback: approval.reason } : {}),
        })
      } else if (p.state === 'output-available' && session.waitsFor(toolCallId)) {
        out.push({ type: 'tool.result', sessionId, toolCallId, outcome: 'success', result: (p.output ?? null) as Json })
      } else if (p.state === 'output-error' && session.waitsFor(toolCallId)) {
        out.push({ type: 'tool.result', sessionId, toolCallId, outcome: 'failure', error: stringOf(p.errorText, 'the client tool failed') })
      }
    }
  }
  const common = { ...(agent ? { agent } : {}), ...(body.onBusy ? { onBusy: body.onBusy } : {}) }
  const stored = session.model.messages
  const users = body.messages.filter((m) => m.role === 'user')
  if (body.trigger === 'regenerate-message') {
    const target = users.at(-1)
    if (target && stored.some((m) => m.role === 'user' && m.id === target.id)) {
      out.push({ type: 'run.regenerate', sessionId, messageId: target.id, ...common })
      return { commands: out, forks: false }
    }
  }
  const last = body.trigger === 'regenerate-message' ? users.at(-1) : body.messages[body.messages.length - 1]
  const text = last?.role === 'user' ? textOf(last) : ''
  if (!last || !text || stored.some((m) => m.role === 'user' && m.id === last.id && m.content === text)) return { commands: out, forks: false }
  const cut = divergence(stored, users)
  const rewind = cut === undefined ? {} : { rewind: { toMessageId: cut > 0 ? stored[cut - 1]!.id : null } }
  out.push({ type: 'user.message', sessionId, content: text, messageId: last.id, ...common, ...rewind })
  return { commands: out, forks: cut !== undefined, userMessageId: last.id }
}

/** The stored index of the first stored user turn the request's user turns do not repeat in order (same id, same text), if the request carries stored turns at all. */
function divergence(stored: readonly HistoryMessage[], users: readonly UIMessage[]): number | undefined {
  const storedUsers = stored.flatMap((m, i) => (m.role === 'user' ? [{ m, i }] : []))
  const ids = new Set(storedUsers.map((x) => x.m.id))
  if (!users.some((m) => ids.has(m.id))) return undefined
  let n = 0
  while (n < storedUsers.length && n < users.length && users[n]!.id === storedUsers[n]!.m.id && textOf(users[n]!) === storedUsers[n]!.m.content) n++
  return n < storedUsers.length ? storedUsers[n]!.i : undefined
}
