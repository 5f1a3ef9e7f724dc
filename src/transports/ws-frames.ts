// WebSocket framing of a batch of text messages (RFC 6455 §5.2), for the WebSocket transport's writes. A
// server's frames are not masked, so a batch's bytes are the same for every socket that gets it.

/** A text message to frame: text, or text already converted to UTF-8 bytes. */
export type TextFrame = string | Buffer

/** First byte of a final, unfragmented text frame: FIN, no RSV bits (no extension), opcode 1. */
const FIN_TEXT = 0x81

/** Bytes of the header of an unmasked frame with `len` bytes of payload. */
function headerBytes(len: number): number {
  return len < 126 ? 2 : len < 65_536 ? 4 : 10
}

/**
 * `frames` as consecutive unmasked text frames in one Buffer, so a batch reaches the socket in one write:
 * `ws.send` costs a header Buffer, an options object and two buffered writes per frame, then a writev
 * of twice as many chunks as frames.
 */
export function textFrames(frames: readonly TextFrame[]): Buffer {
  const n = frames.length
  const lengths = new Array<number>(n)
  let total = 0
  for (let i = 0; i < n; i++) {
    const f = frames[i]!
    const len = typeof f === 'string' ? Buffer.byteLength(f, 'utf8') : f.length
    lengths[i] = len
    total += headerBytes(len) + len
  }
  const out = Buffer.allocUnsafe(total)
  let at = 0
  for (let i = 0; i < n; i++) {
    const f = frames[i]!
    const len = lengths[i]!
    out[at++] = FIN_TEXT
    if (len < 126) {
      out[at++] = len
    } else if (len < 65_536) {
      out[at++] = 126
      out.writeUInt16BE(len, at)
      at += 2
    } else {
      out[at++] = 127
      out.writeUInt32BE(Math.floor(len / 2 ** 32), at)
      out.writeUInt32BE(len >>> 0, at + 4)
      at += 8
    }
    at += typeof f === 'string' ? out.write(f, at, len, 'utf8') : f.copy(out, at)
  }
  return out
}
