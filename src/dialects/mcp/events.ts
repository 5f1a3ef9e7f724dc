import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** Messages kept per MCP session for resumption (the oldest go first). */
export const RESUME_WINDOW = 10_000

/**
 * What an MCP session's SSE streams sent, kept so a client that lost a stream resumes it with `Last-Event-ID`
 * (the SDK's EventStore interface): event ids are `<stream>_<n>`, replay sends that stream's later messages in
 * order. In memory, one per MCP session (which lives on its node), bounded by RESUME_WINDOW.
 */
export class ResumeBuffer implements EventStore {
  private readonly events = new Map<EventId, { stream: StreamId; n: number; message: JSONRPCMessage }>()
  private next = 0

  storeEvent(stream: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const n = ++this.next
    const id = `${stream}_${n}`
    this.events.set(id, { stream, n, message })
    if (this.events.size > RESUME_WINDOW) this.events.delete(this.events.keys().next().value!)
    return Promise.resolve(id)
  }

  getStreamIdForEventId(id: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(this.events.get(id)?.stream)
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (id: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const from = this.events.get(lastEventId)
    if (!from) throw new Error(`event ${lastEventId} is not kept (too old, or from before a restart): call again`)
    for (const [id, e] of this.events) if (e.stream === from.stream && e.n > from.n) await send(id, e.message)
    return from.stream
  }
}
