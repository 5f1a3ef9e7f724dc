import { decode } from './decode.js'
import { encode, encodeError, humaView, type HumaFrame, type HumaView } from './encode.js'

/** The HUMA dialect: Socket.IO, client events on 'message', server events on 'event' and 'error'. */
export const huma = {
  name: 'huma',
  decode,
  encode,
  encodeError,
  view: humaView,
}

export type { HumaFrame, HumaView }
export { APPROVAL_TOOL } from './decode.js'
export { HUMA_ERROR_CODES } from './errors.js'
export { MAX_NAME_CHARS, MAX_RESULT_CHARS, MESSAGING_EVENTS, OUTBOUND_TYPES as HUMA_OUTBOUND_TYPES } from './schema.js'
