import type { Principal } from './ids.js'

/** Why a connection closed, as the transport saw it. */
export interface CloseReason {
  code: number
  reason: string
}

/**
 * One client connection as a transport exposes it: a few methods and
 * callbacks, nothing about agents. Transport-specific knobs live in that
 * transport's options.
 */
export interface Connection<Frame = string> {
  readonly id: string
  /** Who is on the other end (ANONYMOUS when auth is off). */
  readonly principal: Principal
  /** The client's address (from X-Forwarded-For behind a trusted proxy): the rate-limit key when auth is off. */
  readonly remoteAddress: string
  /** Writes a batch of frames in one go; false when the connection is closed or was dropped as a slow consumer. */
  send(frames: readonly Frame[]): boolean
  /** Bytes written but not yet handed to the OS (the socket's outbound backlog). */
  readonly bufferedBytes: number
  close(code: number, reason: string): void
  onframe?: (frame: string) => void
  onclose?: (reason: CloseReason) => void
}
