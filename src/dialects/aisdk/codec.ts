import type { Codec, DecodeLimits, Decoded, SseRunFormat, ParlanceError, StoredEvent } from '../../core/index.js'
import { decodeChat } from './decode.js'
import { encode as encodeEvent, ending, errorText, finish, start } from './encode.js'
import { AISDK_ERRORS } from './errors.js'
import { UI_STREAM_HEADERS, type ChatRequest } from './wire.js'

/** What an AI SDK response's frames depend on: the assistant message id its `start` chunk announces. */
export interface AiSdkView {
  readonly messageId: string
}

/** Decodes a `POST /api/chat` body. */
function decode(body: string, limits: DecodeLimits): Decoded<ChatRequest> {
  const d = decodeChat(body, limits)
  return d.ok ? { ok: true, value: d.request } : d
}

/**
 * The Vercel AI SDK UI message stream codec: `useChat`'s request in, UI message stream chunks out. No chunk
 * after `start` depends on the response, so every response of the same run shares one encoding per batch.
 */
export const aisdk = {
  name: 'aisdk',
  decode,
  encode(events: readonly StoredEvent[], view: AiSdkView) {
    const frames: string[] = []
    for (const e of events) for (const f of encodeEvent(e)) frames.push(f)
    return { frames, view }
  },
  shareKey: () => 'aisdk',
  encodeError: (err: ParlanceError, _view: AiSdkView | null) =>
    `data: ${JSON.stringify({ type: 'error', errorText: errorText(err.code, err.message) })}\n\n`,
  errors: AISDK_ERRORS,
} satisfies Codec<ChatRequest, string, AiSdkView>

/** One response: `start`, the run's chunks, and `finish` + `[DONE]` when the run ends or pauses for the client. */
export const AISDK_SSE: SseRunFormat<AiSdkView> = {
  dialect: 'aisdk',
  headers: UI_STREAM_HEADERS,
  opening: (v) => start(v.messageId),
  event: (e) => encodeEvent(e),
  ending: (e) => ending(e),
  empty: () => finish(),
  shareKey: () => 'aisdk',
}
