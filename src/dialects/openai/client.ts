import { readSse } from '../../client/sse.js'
import { checkServer } from '../../client/http.js'
import type { WireTap } from '../../client/tap.js'

/** One event of a streamed response (`response.output_text.delta`, `response.output_item.done`…), as sent. */
export type ResponseEvent = { type: string; sequence_number: number } & Record<string, unknown>

/** Options of `OpenAiResponsesClient`. */
export interface OpenAiClientOptions {
  /** Server base URL (`http://127.0.0.1:8000`); requests go to `<url>/v1`. */
  url: string
  /** The agent (OpenAI's `model`). */
  model: string
  token?: string
  /** Sees every request body sent (`{http, body}`) and every event received. */
  tap?: WireTap
}

/**
 * A small client of Parlance's OpenAI Responses endpoint for Node and browsers (the inspector's), holding one
 * conversation: each call streams one response and remembers its id, so the next continues it
 * (`previous_response_id`). For anything more, use OpenAI's own SDK pointed at `<url>/v1`.
 */
export class OpenAiResponsesClient {
  private last: string | null = null
  /** The Parlance session of the conversation, once the first response has started. */
  session: string | null = null

  constructor(private readonly options: OpenAiClientOptions) {}

  static async connect(options: OpenAiClientOptions): Promise<OpenAiResponsesClient> {
    await checkServer({ url: options.url, agent: options.model, ...(options.token ? { token: options.token } : {}) })
    return new OpenAiResponsesClient(options)
  }

  /** A user message. */
  send(text: string, signal?: AbortSignal): AsyncGenerator<ResponseEvent> {
    return this.post([{ role: 'user', content: text }], signal)
  }

  /** Answers an `mcp_approval_request` item. */
  approve(approvalRequestId: string, approve: boolean, reason?: string, signal?: AbortSignal): AsyncGenerator<ResponseEvent> {
    return this.post([{ type: 'mcp_approval_response', approval_request_id: approvalRequestId, approve, ...(reason ? { reason } : {}) }], signal)
  }

  /** Answers a `function_call` item with its output. */
  toolOutput(callId: string, output: unknown, signal?: AbortSignal): AsyncGenerator<ResponseEvent> {
    return this.post(
      [{ type: 'function_call_output', call_id: callId, output: typeof output === 'string' ? output : JSON.stringify(output) }],
      signal,
    )
  }

  private async *post(input: unknown[], signal?: AbortSignal): AsyncGenerator<ResponseEvent> {
    const body = { model: this.options.model, input, stream: true, ...(this.last ? { previous_response_id: this.last } : {}) }
    this.options.tap?.('out', { http: 'POST /v1/responses', body })
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`
    const res = await fetch(`${this.options.url}/v1/responses`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers,
      ...(signal ? { signal } : {}),
    })
    if (!res.ok || !res.body) throw new Error(`OpenAI Responses request failed: ${res.status} ${await res.text()}`)
    this.session = res.headers.get('x-parlance-session') ?? this.session
    for await (const msg of readSse(res.body)) {
      const e = JSON.parse(msg.data) as ResponseEvent
      this.options.tap?.('in', e)
      if (e.type === 'response.created') this.last = (e.response as { id: string }).id
      yield e
    }
  }
}
