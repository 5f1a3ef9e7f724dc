import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import * as ws from 'ws'
import { textFrames } from './ws-frames.js'

// ws's framing classes, which its type definitions do not declare.
interface FrameOptions {
  fin: boolean
  opcode: number
  mask: boolean
  readOnly: boolean
  rsv1: boolean
}
interface ReceiverLike {
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void
  write(chunk: Buffer, callback: (err?: Error | null) => void): void
}
const { Sender, Receiver } = ws as unknown as {
  Sender: { frame(data: Buffer, options: FrameOptions): Array<Buffer | Uint8Array> }
  Receiver: new (options: { isServer: boolean }) => ReceiverLike
}

/** What `ws` itself sends for these messages as a server: unmasked final text frames. */
function reference(frames: ReadonlyArray<string | Buffer>): Buffer {
  const parts: Buffer[] = []
  for (const f of frames) {
    for (const p of Sender.frame(Buffer.from(f), { fin: true, opcode: 1, mask: false, readOnly: false, rsv1: false })) parts.push(Buffer.from(p))
  }
  return Buffer.concat(parts)
}

test('a batch is framed byte for byte as ws frames each message (lengths at each header size boundary, text and bytes, any Unicode)', () => {
  const sized = fc.constantFrom(0, 1, 125, 126, 127, 65_535, 65_536, 70_000).map((n) => 'x'.repeat(n))
  const message = fc.oneof(
    fc.string({ unit: 'binary' }),
    sized,
    fc.string({ unit: 'binary' }).map((s) => Buffer.from(s)),
  )
  fc.assert(
    fc.property(fc.array(message, { minLength: 1, maxLength: 6 }), (frames) => {
      assert.deepEqual(textFrames(frames), reference(frames))
    }),
    { numRuns: 200 },
  )
})

test("ws's own receiver reads a framed batch back as the same messages, in order", async () => {
  const frames = ['{"a":1}', 'é🙂 "q"', 'y'.repeat(300), Buffer.from('{"b":2}'), 'z'.repeat(70_000)]
  const got: string[] = []
  const receiver = new Receiver({ isServer: false })
  receiver.on('message', (data: Buffer, isBinary: boolean) => got.push(`${isBinary ? 'binary' : 'text'}:${data.toString()}`))
  await new Promise<void>((resolve, reject) => receiver.write(textFrames(frames), (err) => (err ? reject(err) : resolve())))
  assert.deepEqual(
    got,
    frames.map((f) => `text:${f.toString()}`),
  )
})
