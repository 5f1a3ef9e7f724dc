// Issue 20, finding 4: with a HUMA Socket.IO client attached to a session, `ctx.say` went out as a messaging
// burst (HUMA confirms delivery), so a HAI client of the same session got one whole assistant_message instead
// of streamed chunks. One dialect's presence must not change another's stream: the log carries the stream, and
// the HUMA encoder renders it as its burst (typing_start, message_sent with the whole text, typing_end), whose
// delivery confirmation is recorded as message.delivery.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventOf } from '../../src/core/index.js'
import { textOf } from '../../src/dialects/hai/client.js'
import { humaServer, watch } from '../huma-support.js'

test('a HUMA socket on the session does not turn the HAI stream into one message; HUMA gets its burst and confirms it', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const huma = await s.huma()
  const hai = await s.hai({ sessionId: huma.sessionId })
  const w = await watch(s, huma.sessionId)

  hai.say('count 40')
  const frames = await hai.untilCompleted(15_000)
  const chunks = frames.filter((m) => m.type === 'assistant_message_chunk' && m.content !== '')
  assert.ok(chunks.length >= 40, `streamed chunk by chunk (${chunks.length} chunks)`)
  assert.ok(!frames.some((m) => m.type === 'assistant_message'), 'no whole assistant_message')
  const text = textOf(frames)
  assert.match(text, /^1 2 3 .* 40 $/)

  const start = await huma.nextMessaging('typing_start')
  const sent = await huma.nextMessaging('message_sent')
  const end = await huma.nextMessaging('typing_end')
  assert.deepEqual(
    [sent.message, sent.messageIndex, sent.messageCount, sent.toolCallId, end.toolCallId],
    [text, 0, 1, start.toolCallId, start.toolCallId],
  )
  const delivery = (await w.next((e) => e.type === 'message.delivery')) as EventOf<'message.delivery'>
  assert.deepEqual([delivery.messageId, delivery.ok, delivery.by], [start.toolCallId, true, 'client'])
  assert.deepEqual(huma.errors, [])
})
