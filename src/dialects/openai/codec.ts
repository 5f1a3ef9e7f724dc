import type { Codec, DecodeLimits, Decoded, ParlanceError, StoredEvent } from '../../core/index.js'
import { CHAT_SSE, chatStep, type ChatView } from './encode-chat.js'
import { decodeChatCompletion } from './decode.js'
import { errorBody, OPENAI_ERRORS } from './errors.js'
import type { ChatCompletionRequest } from './wire.js'

/**
 * OpenAI's Chat Completions as a codec: a request body in, `chat.completion.chunk` SSE messages out (a batch is the
 * fold of `chatStep` over its events). The Responses stream is the other format of this dialect
 * (`RESPONSES_SSE`, responses-format.ts); both are what the binding streams through `streamRun`.
 */
export const openai = {
  name: 'openai',
  decode: (body: string, limits: DecodeLimits): Decoded<ChatCompletionRequest> => decodeChatCompletion(body, limits),
  encode(events: readonly StoredEvent[], view: ChatView) {
    const frames: string[] = []
    let v = view
    for (const e of events) {
      const s = chatStep(e, v)
      if (s.out) frames.push(s.out)
      v = s.view
      if (s.end) break
    }
    return { frames, view: v }
  },
  shareKey: (v: ChatView) => CHAT_SSE.shareKey(v),
  encodeError: (err: ParlanceError, _view: ChatView | null) => `data: ${JSON.stringify(errorBody(err.code, err.message, err.details?.field))}\n\n`,
  errors: OPENAI_ERRORS,
} satisfies Codec<ChatCompletionRequest, string, ChatView>
