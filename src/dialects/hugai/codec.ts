import type { DecodeLimits, Decoded, ParlanceError, RequestCodec } from '../../core/index.js'
import { classify, parse, type Parsed } from './decode.js'
import { error, event, notification, request, result } from './encode.js'
import { fromParlance, RPC_CODE } from './errors.js'

/** Decodes a body (one JSON-RPC message or a batch) into its classified items; invalid items are values, never a throw. */
function decode(text: string, limits: DecodeLimits): Decoded<Parsed> {
  return { ok: true, value: parse(text, limits.maxJsonDepth, limits.maxFrameBytes) }
}

/**
 * The HugAI v2 (JSON-RPC 2.0) codec. A body decodes to its classified items (bad ones carry their JSON-RPC
 * error); answers and notifications are built with `result`, `error`, `notification`, `request` and `event`.
 * A `RequestCodec`, not a `Codec`: session events never reach a HugAI peer frame by frame (the hub relays a
 * task's progress and result as `event` notifications and the task's response), so there is no batch encoder.
 */
const codec = {
  name: 'hugai',
  decode,
  encodeError: (err: ParlanceError, _view: null) => error(null, fromParlance(err)),
  errors: RPC_CODE,
} satisfies RequestCodec<Parsed, object, null>

export const hugai = {
  ...codec,
  parse,
  classify,
  result,
  error,
  notification,
  request,
  event,
  fromParlance,
}
