import { SSE_HEADERS, type Codec, type DecodeLimits, type Decoded, type SseRunFormat, type StoredEvent } from '../../core/index.js'
import { decodeRunInput } from './decode.js'
import { encode as encodeEvent, ending, runFinished, runStarted, sse, type AguiView } from './encode.js'
import { AGUI_ERRORS } from './errors.js'
import type { AguiRunInput } from './wire.js'

/** Decodes a `POST /agui` body into a RunAgentInput. */
function decode(body: string, limits: DecodeLimits): Decoded<AguiRunInput> {
  const d = decodeRunInput(body, limits)
  return d.ok ? { ok: true, value: d.input } : d
}

/** Response headers of an AG-UI event stream. */
const HEADERS = SSE_HEADERS

/**
 * The AG-UI codec: a RunAgentInput in, SSE messages out. Frames depend only on the thread and the client's run
 * id (the view), so every response streaming the same run shares one encoding per batch.
 */
export const agui = {
  name: 'agui',
  decode,
  encode(events: readonly StoredEvent[], view: AguiView) {
    const frames: string[] = []
    for (const e of events) for (const f of encodeEvent(e, view)) frames.push(f)
    return { frames, view }
  },
  shareKey: (v: AguiView) => `${v.threadId}\0${v.runId}`,
  encodeError: (err, _view: AguiView | null) => sse({ type: 'RUN_ERROR', message: err.message, code: AGUI_ERRORS[err.code].code }),
  errors: AGUI_ERRORS,
} satisfies Codec<AguiRunInput, string, AguiView>

/** One AG-UI response = one AG-UI run: RUN_STARTED, the events, and RUN_FINISHED / RUN_ERROR when the Parlance run ends or pauses for the client. */
export const AGUI_SSE: SseRunFormat<AguiView> = {
  dialect: 'agui',
  headers: HEADERS,
  opening: runStarted,
  event: encodeEvent,
  ending,
  empty: (v) => runFinished(v),
  shareKey: agui.shareKey,
}

export type { AguiView }
