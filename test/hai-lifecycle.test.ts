import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { HaiServerMessage } from '../src/client/index.js'
import { startServer } from './harness.js'
import { verifyHaiStream } from './hai-lifecycle.js'

/** The envelope every server frame carries. */
const E = { session_id: 's', agent_id: 'demo' }
const chunk = (id: string, content: string, is_final: boolean, seq: number): HaiServerMessage => ({
  ...E,
  type: 'assistant_message_chunk',
  message_id: id,
  content,
  is_final,
  seq,
})
const done = (seq: number): HaiServerMessage => ({ ...E, type: 'status', status: 'completed', seq })

test('the HAI verifier accepts a good stream and rejects each kind of bad one', () => {
  verifyHaiStream([chunk('a', 'x', false, 1), chunk('a', '', true, 2), done(3)])
  assert.throws(() => verifyHaiStream([chunk('a', 'x', true, 1), chunk('a', '', true, 2), done(3)]), /after the final/)
  assert.throws(() => verifyHaiStream([chunk('a', 'x', false, 1), done(2)]), /no is_final/)
  assert.throws(() => verifyHaiStream([chunk('a', 'x', false, 2), chunk('a', '', true, 1), done(3)]), /seq 1 after 2/)
  assert.throws(
    () => verifyHaiStream([{ ...E, type: 'tool_call_end', tool_call_id: 't', tool_name: 'x', result: '', seq: 1 }, done(2)]),
    /without tool_call_start/,
  )
  assert.throws(() => verifyHaiStream([chunk('a', '', true, 1)]), /status completed/)
})

test('the HAI verifier names each broken lifecycle rule', () => {
  const start = (id: string, seq: number): HaiServerMessage => ({
    ...E,
    type: 'tool_call_start',
    tool_call_id: id,
    tool_name: 'x',
    parameters: {},
    seq,
  })
  const end = (id: string, seq: number): HaiServerMessage => ({ ...E, type: 'tool_call_end', tool_call_id: id, tool_name: 'x', result: 'ok', seq })
  const toolError = (id: string, seq: number): HaiServerMessage => ({
    ...E,
    type: 'tool_call_error',
    tool_call_id: id,
    tool_name: 'x',
    error: 'no',
    seq,
  })
  const runError = (seq: number): HaiServerMessage => ({ type: 'error', error_code: 'interrupted', message: 'stopped', seq })
  const inboundError: HaiServerMessage = { type: 'error', error_code: 'invalid_json', message: 'bad frame' }

  // accepted: a run error and its completed share one seq; inbound errors and history carry none
  verifyHaiStream([
    { ...E, type: 'assistant_message', content: 'earlier' },
    chunk('a', 'x', false, 4),
    inboundError,
    chunk('a', '', true, 5),
    start('t', 6),
    toolError('t', 7),
    runError(8),
    done(8),
  ])
  // a stream cut short is fine only when said so
  const cut = [chunk('a', 'x', false, 1), start('t', 2)]
  verifyHaiStream(cut, { complete: false })
  assert.throws(() => verifyHaiStream(cut), /never got is_final/)

  assert.throws(
    () => verifyHaiStream([chunk('a', 'x', false, 1), chunk('a', '', true, 2), chunk('a', 'late', false, 3), done(4)]),
    /a chunk after the final/,
  )
  assert.throws(() => verifyHaiStream([start('t', 1), end('t', 2), toolError('t', 3), done(4)]), /already ended/)
  assert.throws(() => verifyHaiStream([start('t', 1), end('t', 2), end('t', 3), done(4)]), /already ended/)
  assert.throws(() => verifyHaiStream([start('t', 1), start('t', 2), end('t', 3), done(4)]), /started twice/)
  assert.throws(() => verifyHaiStream([toolError('t', 1), done(2)]), /without tool_call_start/)
  assert.throws(() => verifyHaiStream([start('t', 1), done(2)]), /tool call t .* no end or error/)
  assert.throws(() => verifyHaiStream([chunk('a', 'x', false, 1), chunk('a', '', true, 1), done(2)]), /seq 1 after 1/)
  assert.throws(() => verifyHaiStream([runError(2), chunk('a', '', true, 2), done(3)]), /seq 2 after 2/)
  assert.throws(
    () => verifyHaiStream([{ ...E, type: 'assistant_message_chunk', message_id: 'a', content: '', is_final: true }, done(1)]),
    /must carry seq/,
  )
  assert.throws(
    () =>
      verifyHaiStream([
        { ...E, type: 'assistant_message_chunk', message_id: 'a', content: '', is_final: 'true', seq: 1 } as unknown as HaiServerMessage,
        done(2),
      ]),
    /is_final must be a boolean/,
  )
  assert.throws(() => verifyHaiStream([{ type: 'status', status: 'done', seq: 1 } as unknown as HaiServerMessage]), /not one of the seed's/)
  assert.throws(() => verifyHaiStream([chunk('a', 'x', false, 1), chunk('a', '', true, 2)]), /status completed/)
})

test('the HAI verifier passes a real stream and fails each mutation of it', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('weather in Oslo')
  const real = await c.untilCompleted()
  verifyHaiStream(real)
  const chunks = real.flatMap((m, i) => (m.type === 'assistant_message_chunk' ? [i] : []))
  const finalAt = real.findIndex((m) => m.type === 'assistant_message_chunk' && m.is_final)
  const endAt = real.findIndex((m) => m.type === 'tool_call_end')
  const startAt = real.findIndex((m) => m.type === 'tool_call_start')
  assert.ok(chunks.length >= 4 && finalAt > 0 && endAt > startAt && startAt >= 0)
  const without = (i: number) => real.filter((_, j) => j !== i)
  assert.throws(() => verifyHaiStream(without(finalAt)), /no is_final/)
  assert.throws(() => verifyHaiStream(without(startAt)), /without tool_call_start/)
  // puts `frame` at position i, keeping the seq that position had (so only the lifecycle is broken)
  const put = (i: number, frame: HaiServerMessage, list = real) => list.map((m, j) => (j === i ? { ...frame, seq: m.seq } : m))
  assert.throws(() => verifyHaiStream(put(finalAt, real[finalAt - 1]!, put(finalAt - 1, real[finalAt]!))), /a chunk after the final/)
  assert.throws(() => verifyHaiStream(put(finalAt + 1, real[finalAt]!)), /a second is_final after the final/)
  assert.throws(() => verifyHaiStream(put(endAt + 1, real[endAt]!)), /already ended/)
  assert.throws(
    () => verifyHaiStream([real[chunks[1]!]!, real[chunks[0]!]!, ...real.filter((_, j) => j !== chunks[0] && j !== chunks[1])]),
    /seq \d+ after \d+/,
  )
  assert.throws(() => verifyHaiStream(real.slice(0, -1)), /status completed/)
})
