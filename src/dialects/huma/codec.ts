import type { Codec, Command } from '../../core/index.js'
import { decode } from './decode.js'
import { EMPTY_VIEW, encode, encodeError, type HumaFrame, type HumaView } from './encode.js'
import { HUMA_ERROR_CODES } from './errors.js'

/**
 * The HUMA codec: client events on Socket.IO's 'message' channel in, server events on 'event' and 'error' out.
 * No frame names its socket, so sockets of a session holding the same view (every socket starts from
 * EMPTY_VIEW and returns to it after each message) share one encoding per batch: no `shareKey`, the view's
 * identity is the key. The Socket.IO transport then serializes each shared frame once for all those sockets.
 */
export const huma = {
  name: 'huma',
  decode,
  encode,
  encodeError,
  errors: HUMA_ERROR_CODES,
  emptyView: EMPTY_VIEW,
} satisfies Codec<Command, HumaFrame, HumaView> & { emptyView: HumaView }

export type { HumaFrame, HumaView }
