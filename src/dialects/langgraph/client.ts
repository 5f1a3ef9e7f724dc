import { readSse } from '../../client/sse.js'
import { checkServer } from '../../client/http.js'
import type { WireTap } from '../../client/tap.js'

/** One streamed part of a run, as sent: its `event` (metadata, values, messages, updates, custom, error), data and id. */
export interface LangGraphPart {
  event: string
  data: unknown
  id?: string
}

/** Options of `LangGraphClient`. */
export interface LangGraphClientOptions {
  /** Server base URL (`http://127.0.0.1:8000`); requests go to `<url>/langgraph`. */
  url: string
  /** The agent (the API's assistant id). */
  assistant: string
  token?: string
  /** Sees every request body sent (`{http, body}`) and every part received. */
  tap?: WireTap
}

/**
 * A small client of Parlance's LangGraph endpoint for Node and browsers (the inspector's), holding one thread: each
 * call streams one run on it. For anything more, use `@langchain/langgraph-sdk`'s `Client` with
 * `apiUrl: '<url>/langgraph'`.
 */
export class LangGraphClient {
  /** The thread (a Parlance session), once created. */
  thread: string | null = null

  constructor(private readonly options: LangGraphClientOptions) {}

  static async connect(options: LangGraphClientOptions): Promise<LangGraphClient> {
    await checkServer({ url: options.url, agent: options.assistant, ...(options.token ? { token: options.token } : {}) })
    return new LangGraphClient(options)
  }

  /** A human message. */
  send(text: string, signal?: AbortSignal): AsyncGenerator<LangGraphPart> {
    return this.run({ input: { messages: [{ type: 'human', content: text }] } }, signal)
  }

  /** Answers the interrupt the run paused on (`{decisions: [{type: 'approve'}]}`, a tool's result…). */
  resume(value: unknown, signal?: AbortSignal): AsyncGenerator<LangGraphPart> {
    return this.run({ command: { resume: value } }, signal)
  }

  private async request(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    this.options.tap?.('out', { http: `POST /langgraph${path}`, body })
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`
    const res = await fetch(`${this.options.url}/langgraph${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers,
      ...(signal ? { signal } : {}),
    })
    if (!res.ok) throw new Error(`LangGraph request failed: ${res.status} ${await res.text()}`)
    return res
  }

  private async *run(payload: Record<string, unknown>, signal?: AbortSignal): AsyncGenerator<LangGraphPart> {
    if (this.thread === null) this.thread = ((await (await this.request('/threads', {}, signal)).json()) as { thread_id: string }).thread_id
    const body = { assistant_id: this.options.assistant, stream_mode: ['values', 'messages-tuple'], ...payload }
    const res = await this.request(`/threads/${encodeURIComponent(this.thread)}/runs/stream`, body, signal)
    if (!res.body) return
    for await (const msg of readSse(res.body)) {
      const part: LangGraphPart = { event: msg.event ?? 'message', data: JSON.parse(msg.data) as unknown, ...(msg.id ? { id: msg.id } : {}) }
      this.options.tap?.('in', part)
      yield part
    }
  }
}
