import type { Codec, Command, StoredEvent } from '../../core/index.js'
import { decode } from './decode.js'
import { chunkFrame, chunkView, encode as encodeEvent, encodeError, encodeHistory, haiView, type HaiView } from './encode.js'
import { HAI_ERROR_CODES } from './errors.js'

/**
 * Encodes a batch for one view. The view names the session and the agent of the run being streamed; a
 * `run.started` for another agent yields a new view, so every frame of that run carries its `agent_id`. A
 * streamed token (`text.delta`) is the hot path: its frame is its content spliced before the tail its message
 * shares, which the view keeps from one batch to the next.
 */
function encode(events: readonly StoredEvent[], view: HaiView): { frames: string[]; view: HaiView } {
  const frames: string[] = []
  let v = view
  for (const e of events) {
    if (e.type === 'text.delta') {
      const cv = chunkView(v, e.messageId)
      v = cv
      frames.push(chunkFrame(e.delta, e.seq, cv.chunk))
      continue
    }
    if (e.type === 'run.started' && e.agent !== v.agentId) v = haiView(v.sessionId, e.agent)
    for (const f of encodeEvent(e, v)) frames.push(f)
  }
  return { frames, view: v }
}

/** The HAI (Agora) codec: JSON text frames with a `type` discriminator. */
export const hai = {
  name: 'hai',
  decode,
  encode,
  // Frames depend only on the session and the run's agent: every socket of a session in the same run shares them.
  shareKey: (v: HaiView) => v.ids,
  encodeError,
  errors: HAI_ERROR_CODES,
  view: haiView,
  encodeHistory,
} satisfies Codec<Command, string, HaiView> & { view: typeof haiView; encodeHistory: typeof encodeHistory }

export type { HaiView }
