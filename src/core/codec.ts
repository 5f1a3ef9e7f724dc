import type { Command } from './commands.js'
import type { ErrorCode, ParlanceError } from './errors.js'
import type { StoredEvent } from './events.js'
import type { Limits } from './limits.js'

/** What `decode` returns: the decoded `value` (a canonical `Command` for most dialects, a request the binding carries out for others), or an error to answer in the dialect's shape. */
export type Decoded<In = Command> = { ok: true; value: In } | { ok: false; error: ParlanceError }

/** The limits a decoder enforces. */
export type DecodeLimits = Pick<Limits, 'maxFrameBytes' | 'maxJsonDepth' | 'maxUserMessageChars'>

/** A batch of frames and the view the next batch is encoded with (the same object when nothing changed). */
export interface Encoded<Out, View> {
  readonly frames: readonly Out[]
  readonly view: View
}

/**
 * Turns committed events into frames for one view. Pure: it never mutates the view it is given; what it
 * learns from the events (the agent of a new run, text being collected) goes into the view it returns.
 */
export interface BatchEncoder<Out, View> {
  encode(events: readonly StoredEvent[], view: View): Encoded<Out, View>
  /**
   * Subscribers whose views have equal keys get identical frames for identical events, so one encoding per
   * batch serves them all (with the frames, they all take on the returned view). Absent: the view object
   * itself is the key, so subscribers share only while they hold the very same view.
   */
  shareKey?(view: View): string
}

/**
 * The half of a codec every dialect has: decoding inbound frames and encoding errors. A dialect whose frames are
 * never encoded from session events batch by batch implements only this (HugAI: its hub answers each JSON-RPC
 * request and relays a task's progress as its own notifications). Pure, like `Codec`.
 *
 * @typeParam In   what a decoded frame is (a `Command`, or a dialect request the binding carries out)
 * @typeParam Out  what the transport writes (a JSON string for WebSocket dialects, an SSE message for HTTP ones)
 * @typeParam View what the encoder needs to know about its receiver (ids, the run's agent): immutable
 */
export interface RequestCodec<In, Out, View> {
  /** Dialect name, used in metrics and logs. */
  readonly name: string
  /** Decodes one inbound frame; never throws. */
  decode(frame: string, limits: DecodeLimits): Decoded<In>
  /**
   * Encodes an error in the dialect's own shape. `now` (ms since the epoch) is the binding's clock, for a dialect
   * whose errors carry a time (MyAgent's require it): the codec reads none.
   */
  encodeError(error: ParlanceError, view: View | null, now?: number): Out
  /** The wire form of every error code: a new code fails the type check until each dialect answers it. */
  readonly errors: Readonly<Record<ErrorCode, unknown>>
}

/**
 * A dialect's pure codec: `RequestCodec` plus the batch encoder that turns committed session events into frames.
 * No I/O, timers, clocks or random ids: everything it needs comes in through its arguments. A throw out of a
 * codec is a bug.
 *
 * @typeParam In   what a decoded frame is (a `Command`, or a dialect request the binding carries out)
 * @typeParam Out  what the transport writes (a JSON string for WebSocket dialects, an SSE message for HTTP ones)
 * @typeParam View what the encoder needs to know about its receiver (ids, the run's agent): immutable
 */
export interface Codec<In, Out, View> extends RequestCodec<In, Out, View>, BatchEncoder<Out, View> {}

/**
 * How one HTTP dialect frames a Parlance run as one response of Server-Sent Events. Pure, like a codec:
 * `View` holds what the frames depend on (AG-UI: the thread and the client's run id), nothing per connection.
 */
export interface SseRunFormat<View> {
  readonly dialect: string
  readonly headers: Readonly<Record<string, string>>
  /** Written first. */
  opening(view: View): string
  /** SSE messages for one event (run ends and pauses excluded). */
  event(e: StoredEvent, view: View): readonly string[]
  /** The closing messages when `e` ends the run or pauses it for the client; null otherwise. */
  ending(e: StoredEvent, view: View): string | null
  /** Closing messages when there is nothing (more) to follow. */
  empty(view: View): string
  /** Equal keys ⇒ equal frames for equal events: responses of the same run share one encoding per batch. */
  shareKey(view: View): string
  /**
   * For a format whose frames depend on what the response sent before (OpenAI Responses: sequence numbers, output
   * indexes, an item's text so far): the messages for `e`, the view after it, and whether `e` closes the response —
   * in place of `event` and `ending`. The view it returns is the next event's; `shareKey` must then tell apart
   * responses that started at different points.
   */
  step?(e: StoredEvent, view: View): { readonly out: string; readonly view: View; readonly end: boolean }
}
