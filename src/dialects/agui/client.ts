import { readSse } from '../../client/sse.js'
import { checkServer } from '../../client/http.js'
import type { WireTap } from '../../client/tap.js'
import type { AguiEvent, AguiRunInput } from './wire.js'

/** An AG-UI event as received, with its SSE id (the Parlance seq) when it carries one. */
export interface AguiReceived {
  id?: number
  /** The event as the server sent it: one of the `@ag-ui/core` events (src/dialects/agui/wire.ts), narrowed by `type`. */
  event: AguiEvent
}

/** Options of `AguiClient`. */
export interface AguiClientOptions {
  /** Server base URL (`http://127.0.0.1:8000`). */
  url: string
  /** Agent to run (`POST /agui/:agent`); the server's default when absent. */
  agent?: string
  /** Bearer token for a server started with auth. */
  token?: string
  /** Sees every request sent (`{http, body}`) and every event received (`{id, event}`). */
  tap?: WireTap
}

/**
 * A thin AG-UI client over fetch, for Node and browsers: runs an agent and
 * reads its Server-Sent Events, and resumes a dropped stream from the last
 * seen id (Parlance's extension; the official `@ag-ui/client` HttpAgent works
 * for everything else).
 */
export class AguiClient {
  /** The highest SSE id seen, per thread: pass it to `resume`. */
  readonly lastIds = new Map<string, number>()

  /** Works without `connect` too: every request is self-contained. */
  constructor(private readonly options: AguiClientOptions) {}

  /**
   * Like the socket clients' `connect`: checks that the server answers, accepts the token and serves the named
   * agent, then returns the client; throws an Error naming the URL and what failed.
   */
  static async connect(options: AguiClientOptions): Promise<AguiClient> {
    await checkServer(options)
    return new AguiClient(options)
  }

  /** Runs the agent with a RunAgentInput; yields each event as it arrives. */
  run(input: AguiRunInput, signal?: AbortSignal): AsyncGenerator<AguiReceived> {
    const path = this.options.agent ? `/agui/${encodeURIComponent(this.options.agent)}` : '/agui'
    return this.read(input.threadId, path, { method: 'POST', body: JSON.stringify({ tools: [], context: [], ...input }), signal })
  }

  /** Replays the thread's events after `after` (default: the last id seen) and continues until the run ends or pauses. */
  resume(threadId: string, after = this.lastIds.get(threadId) ?? 0, signal?: AbortSignal): AsyncGenerator<AguiReceived> {
    return this.read(threadId, `/agui/threads/${encodeURIComponent(threadId)}/events?after=${after}`, { method: 'GET', signal })
  }

  /** Stops the thread's active run; its stream ends with RUN_FINISHED outcome `cancelled`. */
  async cancel(threadId: string): Promise<void> {
    const res = await fetch(`${this.options.url}/agui/threads/${encodeURIComponent(threadId)}/cancel`, { method: 'POST', headers: this.headers() })
    if (!res.ok) throw new Error(`cancel failed: ${res.status} ${await res.text()}`)
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { accept: 'text/event-stream', 'content-type': 'application/json' }
    if (this.options.token) h.authorization = `Bearer ${this.options.token}`
    return h
  }

  private async *read(threadId: string, path: string, init: { method: string; body?: string; signal?: AbortSignal }): AsyncGenerator<AguiReceived> {
    this.options.tap?.('out', { http: `${init.method} ${path}`, ...(init.body !== undefined ? { body: JSON.parse(init.body) as unknown } : {}) })
    const res = await fetch(`${this.options.url}${path}`, { ...init, headers: this.headers() })
    if (!res.ok || !res.body) throw new Error(`AG-UI request failed: ${res.status} ${await res.text()}`)
    for await (const msg of readSse(res.body)) {
      const id = msg.id !== undefined && msg.id !== '' ? Number(msg.id) : undefined
      const event = JSON.parse(msg.data) as AguiReceived['event']
      const received: AguiReceived = id === undefined ? { event } : { id, event }
      if (id !== undefined) this.lastIds.set(threadId, id)
      this.options.tap?.('in', received)
      yield received
    }
  }
}
