import type { Codec, DecodeLimits, Decoded, ParlanceError, StoredEvent } from '../../core/index.js'
import { decodeRunRequest } from './decode.js'
import { langGraphStep, LANGGRAPH_SSE, type LangGraphView } from './encode.js'
import { errorEvent, LANGGRAPH_ERRORS } from './errors.js'
import type { RunRequest } from './wire.js'

/**
 * The LangGraph Agent Server API as a codec: a run request body in, Agent Server SSE frames out (a batch is the fold
 * of `langGraphStep` over its events). The binding streams it through `streamRun` (`LANGGRAPH_SSE`); threads,
 * assistants and run objects are plain JSON answers built in encode-state.ts.
 */
export const langgraph = {
  name: 'langgraph',
  decode: (body: string, limits: DecodeLimits): Decoded<RunRequest> => decodeRunRequest(body, limits),
  encode(events: readonly StoredEvent[], view: LangGraphView) {
    const frames: string[] = []
    let v = view
    for (const e of events) {
      const s = langGraphStep(e, v)
      if (s.out) frames.push(s.out)
      v = s.view
      if (s.end) break
    }
    return { frames, view: v }
  },
  shareKey: (v: LangGraphView) => LANGGRAPH_SSE.shareKey(v),
  encodeError: (err: ParlanceError, _view: LangGraphView | null) => errorEvent(err.code, err.message),
  errors: LANGGRAPH_ERRORS,
} satisfies Codec<RunRequest, string, LangGraphView>
