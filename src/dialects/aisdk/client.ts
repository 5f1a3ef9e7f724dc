import { readSse } from '../../client/sse.js'
import { checkServer } from '../../client/http.js'
import type { WireTap } from '../../client/tap.js'
import type { UIChunk } from './wire.js'

/** One chunk of the AI SDK UI message stream (`text-delta`, `tool-input-available`, `data-state`, `finish`…). */
export type AiSdkChunk = UIChunk

/** Options of `AiSdkClient`. */
export interface AiSdkClientOptions {
  /** Server base URL (`http://127.0.0.1:8000`). */
  url: string
  /** Agent to chat with (`POST /api/chat/:agent`); the server's default when absent. */
  agent?: string
  /** Bearer token for a server started with auth. */
  token?: string
  /** Sees every request body sent (`{http, body}`) and every chunk received. */
  tap?: WireTap
}

/** A tool call of the stream, as the next request must echo it back. */
export interface AiSdkToolCall {
  toolCallId: string
  toolName: string
  input: unknown
}

/**
 * A small client of Parlance's Vercel AI SDK endpoint (`POST /api/chat`), for Node and browsers, speaking what
 * `useChat`'s `DefaultChatTransport` speaks: each call POSTs one request and yields the UI message stream's
 * chunks until `[DONE]`. The server keeps the conversation, so each request carries only what is new: a user
 * message, a client tool's output, or an approval answer (as the tool part the SDK would send).
 */
export class AiSdkClient {
  /** Works without `connect` too: every request is self-contained. */
  constructor(private readonly options: AiSdkClientOptions) {}

  /**
   * Like the socket clients' `connect`: checks that the server answers, accepts the token and serves the named
   * agent, then returns the client; throws an Error naming the URL and what failed.
   */
  static async connect(options: AiSdkClientOptions): Promise<AiSdkClient> {
    await checkServer(options)
    return new AiSdkClient(options)
  }

  /** Sends a user message in chat `chatId` (the Parlance session id). */
  send(chatId: string, text: string, opts: { messageId?: string; signal?: AbortSignal } = {}): AsyncGenerator<AiSdkChunk> {
    const id = opts.messageId ?? globalThis.crypto.randomUUID()
    return this.post({ id: chatId, trigger: 'submit-message', messages: [{ id, role: 'user', parts: [{ type: 'text', text }] }] }, opts.signal)
  }

  /** Answers a client tool call (part state `output-available`, or `output-error` with `errorText`). */
  toolOutput(
    chatId: string,
    call: AiSdkToolCall,
    outcome: { output: unknown } | { errorText: string },
    signal?: AbortSignal,
  ): AsyncGenerator<AiSdkChunk> {
    const part =
      'output' in outcome
        ? { type: 'dynamic-tool', ...call, state: 'output-available', output: outcome.output }
        : { type: 'dynamic-tool', ...call, state: 'output-error', errorText: outcome.errorText }
    return this.post(
      { id: chatId, trigger: 'submit-message', messages: [{ id: `tool_${call.toolCallId}`, role: 'assistant', parts: [part] }] },
      signal,
    )
  }

  /** Answers an approval request (part state `approval-responded`); `reason` reaches the agent as feedback. */
  approve(chatId: string, call: AiSdkToolCall, approved: boolean, reason?: string, signal?: AbortSignal): AsyncGenerator<AiSdkChunk> {
    const part = {
      type: 'dynamic-tool',
      ...call,
      state: 'approval-responded',
      approval: { id: call.toolCallId, approved, ...(reason ? { reason } : {}) },
    }
    return this.post(
      { id: chatId, trigger: 'submit-message', messages: [{ id: `approval_${call.toolCallId}`, role: 'assistant', parts: [part] }] },
      signal,
    )
  }

  /** Re-attaches to the chat's active stream (`GET /api/chat/:id/stream`); yields nothing when no run is active. */
  async *resume(chatId: string, signal?: AbortSignal): AsyncGenerator<AiSdkChunk> {
    const path = `/api/chat/${encodeURIComponent(chatId)}/stream`
    this.options.tap?.('out', { http: `GET ${path}` })
    const res = await fetch(`${this.options.url}${path}`, { headers: this.headers(), ...(signal ? { signal } : {}) })
    if (res.status === 204) return
    yield* this.read(res)
  }

  private async *post(body: Record<string, unknown>, signal?: AbortSignal): AsyncGenerator<AiSdkChunk> {
    const path = this.options.agent ? `/api/chat/${encodeURIComponent(this.options.agent)}` : '/api/chat'
    this.options.tap?.('out', { http: `POST ${path}`, body })
    const res = await fetch(`${this.options.url}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: this.headers(),
      ...(signal ? { signal } : {}),
    })
    yield* this.read(res)
  }

  private async *read(res: Response): AsyncGenerator<AiSdkChunk> {
    if (!res.ok || !res.body) throw new Error(`AI SDK request failed: ${res.status} ${await res.text()}`)
    for await (const msg of readSse(res.body)) {
      if (msg.data === '[DONE]') {
        this.options.tap?.('in', '[DONE]')
        return
      }
      const chunk = JSON.parse(msg.data) as AiSdkChunk
      this.options.tap?.('in', chunk)
      yield chunk
    }
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json' }
    if (this.options.token) h.authorization = `Bearer ${this.options.token}`
    return h
  }
}
