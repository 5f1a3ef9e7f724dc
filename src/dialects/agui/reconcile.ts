import { toolResultOf, type ClientToolSpec, type Command, type HistoryMessage, type Json, type OnBusy, type SessionId } from '../../core/index.js'
import { fromAguiMessage, textOf } from './encode.js'
import type { AguiMessage, AguiRunInput } from './wire.js'

/** What reconciling a RunAgentInput reads of its session (a `Session`, narrowed). */
export interface StoredConversation {
  readonly id: SessionId
  readonly model: { readonly messages: readonly HistoryMessage[]; readonly state: Json }
  readonly activeRunId: string | null
  waitsFor(id: string): boolean
}

/**
 * What a RunAgentInput asks for. `commands` are carried out in order. `forks`: the list diverges from the stored
 * history, so the binding first forks the session (the old branch) and names the fork in the last command's
 * `rewind.branch`. `userMessageId`: the new user message's id, if the input has one.
 */
export interface Reconciled {
  commands: Command[]
  forks: boolean
  userMessageId?: string
}

type Message = AguiMessage
const isUser = <M extends { role: string }>(m: M): m is Extract<M, { role: 'user' }> => m.role === 'user'

/**
 * What a RunAgentInput asks for, as commands (pure). Messages the server has (same id and, for user messages, the
 * same text; tool results by toolCallId) are skipped. Then, in order:
 * - history the server lacks: the client's wins (`history.replace`);
 * - a changed `state` (`state.replace`), tool messages answering pending client tool calls (`tool.result`),
 *   `resume` entries answering approvals (`approval.response`);
 * - a new or edited trailing user message: `user.message` with the input's tools and `forwardedProps.onBusy`.
 *   When the list carries stored history (shares a message with it) but its user turns part from the stored ones
 *   before the stored ones end (one edited, or dropped and replaced), the message is an edit-and-resend: the old
 *   branch is forked (`forks`) and the history cut back to the message before the first stored user turn that
 *   differs (`rewind`), or, when the client also holds messages the server lacks, replaced by the client's list;
 * - no new message, the list ending at a stored user turn after which the stored history goes on (the client
 *   dropped the answer), nothing answered and no run answering that turn now: `run.regenerate` of that turn.
 * A stored history that is empty is never a divergence: the client brings a thread started elsewhere.
 */
export function reconcile(session: StoredConversation, input: AguiRunInput, opts: { agent?: string; onBusy?: OnBusy }): Reconciled {
  const sessionId = session.id
  const stored = session.model.messages
  const index = new Map<string, number>()
  stored.forEach((m, i) => {
    index.set(m.id, i)
    if (m.role === 'tool') index.set(`tool:${m.toolCallId}`, i)
  })
  const at = (m: Message) => index.get(m.id) ?? (m.role === 'tool' ? index.get(`tool:${m.toolCallId}`) : undefined)
  /** Stored as the client has it: by id, and with the same text for a user message. */
  const same = (m: Message) => {
    const i = at(m)
    return i !== undefined && (m.role !== 'user' || stored[i]!.content === textOf(m.content))
  }
  const last = input.messages[input.messages.length - 1]
  const newUser = last?.role === 'user' && !same(last) ? last : undefined
  const results: Command[] = []
  let unknownHistory = false
  for (const m of input.messages) {
    if (m === newUser || same(m)) continue
    if (m.role === 'tool' && session.waitsFor(m.toolCallId)) {
      const content = textOf(m.content)
      results.push({
        type: 'tool.result',
        sessionId,
        toolCallId: m.toolCallId,
        outcome: m.error === undefined ? 'success' : 'failure',
        result: toolResultOf(content),
        ...(m.error !== undefined ? { error: m.error } : {}),
      })
      continue
    }
    if (fromAguiMessage(m)) unknownHistory = true
  }
  const cut = newUser ? divergence(stored, input.messages, at) : undefined
  const clientHistory = () => input.messages.filter((m) => m !== newUser).flatMap((m) => fromAguiMessage(m) ?? [])
  const out: Command[] = []
  // A diverging list that keeps a stored message past the cut point cannot be expressed as a cut: it replaces.
  const replaces = unknownHistory || (cut !== undefined && input.messages.some((m) => m !== newUser && (at(m) ?? -1) >= cut.index))
  if (replaces) out.push({ type: 'history.replace', sessionId, messages: clientHistory() })
  // `state: null` means no state, as in @ag-ui/core's schema (null → undefined).
  if (input.state !== undefined && input.state !== null && JSON.stringify(input.state) !== JSON.stringify(session.model.state)) {
    out.push({ type: 'state.replace', sessionId, state: input.state as Json })
  }
  out.push(...results)
  const answers = approvals(session, input)
  out.push(...answers)
  const clientTools = toolsOf(input)
  const common = { ...(opts.agent ? { agent: opts.agent } : {}), ...(opts.onBusy ? { onBusy: opts.onBusy } : {}) }
  if (newUser) {
    const toMessageId =
      cut === undefined ? undefined : replaces ? (clientHistory().at(-1)?.id ?? null) : cut.index > 0 ? stored[cut.index - 1]!.id : null
    out.push({
      type: 'user.message',
      sessionId,
      content: textOf(newUser.content),
      messageId: newUser.id,
      clientTools,
      ...common,
      ...(toMessageId !== undefined ? { rewind: { toMessageId } } : {}),
    })
    return { commands: out, forks: cut !== undefined, userMessageId: newUser.id }
  }
  const turn = last?.role === 'user' ? at(last) : undefined
  // A list that answers something (tool messages, `resume`), even too late, is not asking for a new answer.
  const answering = results.length > 0 || (input.resume?.length ?? 0) > 0 || input.messages.some((m) => m.role === 'tool' && !same(m))
  if (turn !== undefined && turn < stored.length - 1 && !answering) {
    // A run active on that very turn: the client re-attaches to it (it has not seen the answer yet).
    const running = session.activeRunId !== null && !stored.slice(turn + 1).some(isUser)
    if (!running) out.push({ type: 'run.regenerate', sessionId, messageId: last!.id, clientTools, ...common })
  }
  return { commands: out, forks: false }
}

/**
 * Where a client list whose last message is a new user turn parts from the stored history, judged on user turns
 * (assistant and tool messages may be kept differently by a client, or not at all): the stored index of the first
 * stored user turn the client's user turns do not repeat in order (same id, same text), when the list carries
 * stored history at all; undefined when it only adds a turn.
 */
function divergence(
  stored: readonly HistoryMessage[],
  messages: readonly AguiMessage[],
  at: (m: Message) => number | undefined,
): { index: number } | undefined {
  if (stored.length === 0 || !messages.some((m) => at(m) !== undefined)) return undefined
  const storedUsers = stored.flatMap((m, i) => (m.role === 'user' ? [{ m, i }] : []))
  const clientUsers = messages.filter(isUser)
  let n = 0
  while (
    n < storedUsers.length &&
    n < clientUsers.length &&
    clientUsers[n]!.id === storedUsers[n]!.m.id &&
    textOf(clientUsers[n]!.content) === storedUsers[n]!.m.content
  )
    n++
  return n < storedUsers.length ? { index: storedUsers[n]!.i } : undefined
}

function approvals(session: StoredConversation, input: AguiRunInput): Command[] {
  const out: Command[] = []
  for (const r of input.resume ?? []) {
    // An interrupt that is no longer pending (answered elsewhere, timed out) is skipped: its outcome is in the log.
    if (!session.waitsFor(r.interruptId)) continue
    const payload = (typeof r.payload === 'object' && r.payload !== null ? r.payload : {}) as { approved?: unknown; feedback?: unknown }
    const approved = r.status === 'resolved' && (payload.approved === true || r.payload === true)
    out.push({
      type: 'approval.response',
      sessionId: session.id,
      approvalId: r.interruptId,
      approved,
      ...(typeof payload.feedback === 'string' ? { feedback: payload.feedback } : {}),
    })
  }
  return out
}

function toolsOf(input: AguiRunInput): ClientToolSpec[] {
  return (input.tools ?? []).map((t) => ({
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    ...(t.parameters !== undefined ? { parameters: t.parameters as Json } : {}),
  }))
}
