import type { Codec } from '../../core/index.js'
import { decode } from './decode.js'
import { encode, encodeError, encodeHistory, haiView, type HaiView } from './encode.js'

/** The HAI (Agora) dialect: WebSocket `/ws`, JSON text frames with a `type` discriminator. */
export const hai: Codec<string, HaiView> & { view: typeof haiView; encodeHistory: typeof encodeHistory } = {
  name: 'hai',
  decode,
  encode,
  encodeError,
  view: haiView,
  encodeHistory,
}

export type { HaiView }
export { HAI_ERROR_CODES } from './errors.js'
export { OUTBOUND_TYPES as HAI_OUTBOUND_TYPES } from './schema.js'
