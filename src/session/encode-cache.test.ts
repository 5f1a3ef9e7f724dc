import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { BatchEncoder } from '../core/index.js'
import { echo, say, setup } from './fixtures/harness.js'
import type { Subscriber } from './subscription.js'

// The per-batch encode cache: subscribers share an encoding only when they have the same encoder and equal keys.

/** An encoder that tags each frame with `tag` and counts its batches; every instance gives the same shareKey. */
function tagged(tag: string): BatchEncoder<string, null> & { batches: number } {
  const enc = {
    batches: 0,
    encode(events: readonly { seq: number }[]) {
      enc.batches++
      return { frames: events.map((e) => `${tag}:${e.seq}`), view: null }
    },
    shareKey: () => 'same',
  }
  return enc
}

function collector(encoder: BatchEncoder<string, null>, frames: string[]): Subscriber<string, null> {
  return {
    codecKey: 'test',
    encoder,
    view: null,
    write(out) {
      frames.push(...out)
      return true
    },
  }
}

test('two encoders with the same shareKey each get their own frames; subscribers of one encoder share one encoding', async () => {
  const s = setup([echo])
  const { session, rec } = await s.open()
  const a = tagged('A')
  const b = tagged('B')
  const a1: string[] = []
  const a2: string[] = []
  const b1: string[] = []
  session.subscribe(collector(a, a1), 0)
  session.subscribe(collector(a, a2), 0)
  session.subscribe(collector(b, b1), 0)
  const runId = say(session, 'hello')
  const end = await rec.end(runId)
  const seqs = rec.events.map((e) => e.seq)
  assert.equal(seqs.at(-1), end.seq)
  assert.deepEqual(
    a1,
    seqs.map((q) => `A:${q}`),
  )
  assert.deepEqual(a2, a1)
  assert.deepEqual(
    b1,
    seqs.map((q) => `B:${q}`),
  )
  // Every live batch was encoded once for both A subscribers (and once for B): as many batches as B saw.
  assert.ok(b.batches > 0)
  assert.equal(a.batches, b.batches)
})
