import fjp, { type Operation } from 'fast-json-patch'
import {
  addUsage,
  toolResultText,
  type EventBody,
  type HistoryMessage,
  type Json,
  type PatchOp,
  type QueuedMessage,
  type TokenUsage,
} from './events.js'
import { ParlanceError } from './errors.js'

/** Applies an RFC 6902 patch without touching `doc`; throws `invalid_message` on a bad patch. */
export function applyPatch(doc: Json, patch: readonly PatchOp[]): Json {
  try {
    return fjp.applyPatch(doc, patch as Operation[], true, false).newDocument
  } catch (err) {
    throw new ParlanceError('invalid_message', `invalid JSON Patch: ${(err as Error).message}`, undefined, { cause: err })
  }
}

/**
 * The conversation as a fold over its events: message history and JSON state.
 * Used live by the session and to rebuild a session from its log, so the two
 * can never disagree. Text deltas are buffered until `text.end`.
 */
export class ConversationModel {
  messages: HistoryMessage[]
  state: Json
  /** Messages waiting for a run of their own (the `enqueue` policy), oldest first. */
  queue: QueuedMessage[]
  /** Tokens the session's model calls used (`usage` events), summed since the session was loaded. */
  usage: TokenUsage = {}
  private stateDirty = false
  private messagesDirty = false
  private queueDirty = false
  /** Leading messages unchanged since the last `takeDirty` (appends keep them; a rewind or snapshot does not). */
  private messagesKept: number
  private readonly open = new Map<string, string[]>()
  /** Burst messages sent and awaiting their delivery confirmation. */
  private readonly sent = new Map<string, string>()

  constructor(messages: HistoryMessage[] = [], state: Json = {}, queue: QueuedMessage[] = []) {
    this.messages = messages
    this.state = state
    this.queue = queue
    this.messagesKept = messages.length
  }

  /** Folds one event in; throws `invalid_message` (and changes nothing) on a bad state patch. */
  apply(e: EventBody): void {
    switch (e.type) {
      case 'message.user':
        this.push({ id: e.messageId, role: 'user', content: e.content })
        return
      case 'run.started':
        // A queued message leaves the queue when its run starts.
        if (e.dequeued !== undefined) this.unqueue(e.dequeued)
        return
      case 'message.queued': {
        const q: QueuedMessage = { messageId: e.messageId, content: e.content }
        if (e.metadata !== undefined) q.metadata = e.metadata
        if (e.agent !== undefined) q.agent = e.agent
        if (e.clientTools !== undefined) q.clientTools = e.clientTools
        if (e.context !== undefined) q.context = e.context
        this.queue = [...this.queue, q]
        this.queueDirty = true
        return
      }
      case 'message.withdrawn':
        this.unqueue(e.messageId)
        return
      case 'history.rewound': {
        const keep = e.toMessageId === null ? 0 : lastIndexOf(this.messages, e.toMessageId) + 1
        // An anchor the history no longer has (replaced by a snapshot since) cuts nothing.
        if (e.toMessageId !== null && keep === 0) return
        this.messages = this.messages.slice(0, keep)
        this.messagesKept = Math.min(this.messagesKept, keep)
        this.messagesDirty = true
        return
      }
      case 'text.start':
        this.open.set(e.messageId, [])
        return
      case 'text.delta': {
        const parts = this.open.get(e.messageId)
        if (parts) parts.push(e.delta)
        else this.open.set(e.messageId, [e.delta])
        return
      }
      case 'text.end': {
        const parts = this.open.get(e.messageId) ?? []
        this.open.delete(e.messageId)
        this.push({ id: e.messageId, role: 'assistant', content: parts.join('') })
        return
      }
      case 'message.sent':
        // A message that waits for confirmation enters the history once delivered.
        if (e.confirm) this.sent.set(e.messageId, e.message)
        else this.push({ id: e.messageId, role: 'assistant', content: e.message })
        return
      case 'message.delivery': {
        const content = this.sent.get(e.messageId)
        this.sent.delete(e.messageId)
        if (e.ok && content !== undefined) this.push({ id: e.messageId, role: 'assistant', content })
        return
      }
      case 'tool.call':
        this.push({
          id: `msg_${e.toolCallId}`,
          role: 'assistant',
          content: '',
          toolCalls: [{ id: e.toolCallId, name: e.toolName, arguments: JSON.stringify(e.args) }],
        })
        return
      case 'tool.result':
        this.push({
          id: `res_${e.toolCallId}`,
          role: 'tool',
          toolCallId: e.toolCallId,
          content: toolResultText(e.result),
        })
        return
      case 'tool.error':
      case 'tool.cancel':
        this.push({
          id: `res_${e.toolCallId}`,
          role: 'tool',
          toolCallId: e.toolCallId,
          content: '',
          error: e.type === 'tool.error' ? e.error : `cancelled: ${e.reason}`,
        })
        return
      case 'state.snapshot':
        this.state = e.snapshot
        this.stateDirty = true
        return
      case 'state.delta':
        this.state = applyPatch(this.state, e.patch)
        this.stateDirty = true
        return
      case 'usage':
        this.usage = addUsage(this.usage, e)
        return
      case 'messages.snapshot':
        this.messages = e.messages.slice()
        this.messagesKept = 0
        this.messagesDirty = true
        return
      default:
        return
    }
  }

  /**
   * Says which persisted parts changed since the last call, and how many leading messages did not (a store
   * then writes only the rest: a turn costs the same whatever the history's length), and clears the flags.
   */
  takeDirty(): { state: boolean; messages: boolean; queue: boolean; messagesKept: number } {
    const d = { state: this.stateDirty, messages: this.messagesDirty, queue: this.queueDirty, messagesKept: this.messagesKept }
    this.stateDirty = this.messagesDirty = this.queueDirty = false
    this.messagesKept = this.messages.length
    return d
  }

  /** Takes message `id` out of the queue (its run started, or it was withdrawn). */
  private unqueue(id: string): void {
    const i = this.queue.findIndex((q) => q.messageId === id)
    if (i < 0) return
    this.queue = [...this.queue.slice(0, i), ...this.queue.slice(i + 1)]
    this.queueDirty = true
  }

  private push(m: HistoryMessage): void {
    this.messages.push(m)
    this.messagesDirty = true
  }
}

function lastIndexOf(messages: readonly HistoryMessage[], id: string): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.id === id) return i
  return -1
}
