import type { Command } from './commands.js'
import type { ParlanceError } from './errors.js'
import type { StoredEvent } from './events.js'
import type { Limits } from './limits.js'

/** What `decode` returns: a canonical command, or an error to answer in the dialect's shape. */
export type Decoded = { ok: true; command: Command } | { ok: false; error: ParlanceError }

/**
 * A dialect's pure codec. No I/O, timers, clocks or random ids: everything it
 * needs comes in through its arguments. A throw out of a codec is a bug.
 *
 * @typeParam Frame what the transport writes (a JSON string for WebSocket dialects)
 * @typeParam View  per-subscriber constants the encoder needs (ids, precomputed JSON fragments)
 */
export interface Codec<Frame, View> {
  /** Dialect name, used in metrics and logs. */
  readonly name: string
  /** Decodes one inbound frame; never throws. */
  decode(frame: string, limits: Pick<Limits, 'maxFrameBytes' | 'maxJsonDepth' | 'maxUserMessageChars'>): Decoded
  /** Encodes one event; an event the dialect has no word for yields no frames. */
  encode(event: StoredEvent, view: View): readonly Frame[]
  /** Encodes an error in the dialect's own shape. */
  encodeError(error: ParlanceError, view: View | null): Frame
}
