import type { Codec, DecodeLimits, Decoded } from '../../core/index.js'
import { decode as decodeRequest, type MyAgentRequest } from './decode.js'
import { encode, encodeError, encodeSystem, view, type MyAgentView } from './encode.js'
import { MYAGENT_ERROR } from './errors.js'

/** Decodes one client event into the request the binding carries out (a canonical command, or a session/connection request). */
function decode(frame: string, limits: DecodeLimits): Decoded<MyAgentRequest> {
  const d = decodeRequest(frame, limits)
  return d.ok ? { ok: true, value: d.request } : d
}

/**
 * The MyAgent codec. Every frame names its connection (`connection_id`), so nothing is shared between sockets:
 * no `shareKey`, and each connection's view is its own object.
 */
export const myagent = {
  name: 'myagent',
  decode,
  encode,
  encodeError: (error: Parameters<typeof encodeError>[0], v: Pick<MyAgentView, 'connectionId' | 'sessionId'> | null, now: number, stepId?: string) =>
    encodeError(error, { connectionId: v?.connectionId ?? '', sessionId: v?.sessionId ?? '', now }, stepId),
  errors: MYAGENT_ERROR,
  encodeSystem,
  view,
} satisfies Codec<MyAgentRequest, string, MyAgentView> & { encodeSystem: typeof encodeSystem; view: typeof view }

export type { MyAgentRequest, MyAgentView }
