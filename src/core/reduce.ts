import {
  addUsage,
  toolResultText,
  type EventBody,
  type HistoryMessage,
  type Json,
  type PatchOp,
  type QueuedMessage,
  type StoredEvent,
  type TokenUsage,
} from './events.js'
import { ParlanceError } from './errors.js'
import { jsonBytes, ownedCopy, patchInPlace } from './json-patch.js'

/** Applies an RFC 6902 patch to a copy of `doc` (O(doc): for tests and one-off use); throws `invalid_message` on a bad patch. */
export function applyPatch(doc: Json, patch: readonly PatchOp[]): Json {
  return patchInPlace(structuredClone(doc), patch, 0).doc
}

/**
 * Folds a state event into `state` (in place: `state` must be a document nobody else holds) and returns the
 * new state; other events leave it as it is. What a reader of a stored state snapshot applies to the events
 * after it (`stateSeq`).
 */
export function foldState(state: Json, e: EventBody): Json {
  if (e.type === 'state.snapshot') return ownedCopy(e.snapshot).value as Json
  if (e.type === 'state.delta') return patchInPlace(state, e.patch, 0).doc
  return state
}

/**
 * The state as of `toSeq`, from `state` as of `fromSeq` (a stored snapshot, in place) and the events between,
 * read a page at a time through `read`. Throws `internal` when some of those events are no longer stored.
 */
export async function catchUpState(
  read: (sessionId: string, afterSeq: number, limit: number) => Promise<readonly StoredEvent[]>,
  sessionId: string,
  state: Json,
  fromSeq: number,
  toSeq: number,
): Promise<Json> {
  for (let after = fromSeq; after < toSeq;) {
    const page = await read(sessionId, after, Math.min(1000, toSeq - after))
    if (page.length === 0 || page[0]!.seq !== after + 1) {
      throw new ParlanceError('internal', `session ${sessionId}: the events after its state snapshot (seq ${after + 1} on) are no longer stored`, {
        sessionId,
      })
    }
    for (const e of page) {
      if (e.seq > toSeq) break
      state = foldState(state, e)
      after = e.seq
    }
  }
  return state
}

/** Refuses a state that would pass `maxStateBytes`. */
function tooLarge(bytes: number, max: number, what: string): ParlanceError {
  return new ParlanceError(
    'frame_too_large',
    `${what} would make the shared state ${bytes.toLocaleString('en-US')} bytes of JSON, over the limit of ${max.toLocaleString('en-US')} (limits.maxStateBytes); nothing was changed or stored`,
    { limit: 'maxStateBytes', maxStateBytes: max, stateBytes: bytes },
  )
}

/** How far the state has moved since its last snapshot was written to the store (see `Session.record`). */
export interface StateSince {
  /** State events folded since the snapshot. */
  events: number
  /** Their JSON size (the patches', or a replacement's): a snapshot is due once it reaches the state's own. */
  bytes: number
}

/**
 * The conversation as a fold over its events: message history and JSON state.
 * Used live by the session and to rebuild a session from its log, so the two
 * can never disagree. Text deltas are buffered until `text.end`.
 */
export class ConversationModel {
  messages: HistoryMessage[]
  /**
   * The shared state, changed in place by each patch (a patch costs the values it touches, not the state):
   * read it, never keep it across a change or mutate it.
   */
  state: Json
  /** The state's JSON size (UTF-8 bytes): exact when loaded or snapshot, else kept by difference per patch. */
  stateBytes: number
  /** State changes since the state was last written whole (`snapshotWritten`). */
  readonly stateSince: StateSince = { events: 0, bytes: 0 }
  /** The last event the store's copy of the state includes, as far as this model knows (set by the session). */
  stateSeq = 0
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
    this.stateBytes = jsonBytes(state)
    this.queue = queue
    this.messagesKept = messages.length
  }

  /**
   * Folds one event in; throws (and changes nothing) on a bad state patch (`invalid_message`) or a state that
   * would pass `maxStateBytes` (`frame_too_large`; checked only when given: a writer's new events, never the
   * log being read back).
   */
  apply(e: EventBody, maxStateBytes?: number): void {
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
      case 'state.snapshot': {
        // A copy: the state is patched in place later, and must never change the event that carried it.
        const next = ownedCopy(e.snapshot)
        if (maxStateBytes !== undefined && next.bytes > maxStateBytes) throw tooLarge(next.bytes, maxStateBytes, 'this state')
        this.state = next.value as Json
        this.stateBytes = next.bytes
        this.stateChanged(next.bytes)
        return
      }
      case 'state.delta': {
        const done = patchInPlace(this.state, e.patch, this.stateBytes)
        if (maxStateBytes !== undefined && done.bytes > maxStateBytes) {
          done.undo()
          throw tooLarge(done.bytes, maxStateBytes, 'this patch')
        }
        this.state = done.doc
        this.stateChanged(done.patchBytes)
        this.stateBytes = done.bytes
        return
      }
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

  private stateChanged(bytes: number): void {
    this.stateDirty = true
    this.stateSince.events++
    this.stateSince.bytes += bytes
  }

  /** The state was written whole (serialized as `json`): its size is exact again, and nothing is pending. */
  snapshotWritten(json: string): void {
    this.stateBytes = Buffer.byteLength(json)
    this.stateSince.events = 0
    this.stateSince.bytes = 0
  }

  /** The content of user message `id` if the session has it (in its history or its queue), else undefined. */
  userMessage(id: string): string | undefined {
    for (const q of this.queue) if (q.messageId === id && q.context === undefined) return q.content
    const i = lastIndexOf(this.messages, id)
    const m = i < 0 ? undefined : this.messages[i]!
    return m?.role === 'user' ? m.content : undefined
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
