import assert from 'node:assert/strict'
import { test } from 'node:test'
import { humaServer, watch } from './huma-support.js'

test('session identity: without auth the server picks a session id and announces it; with auth the socket joins that session', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const a = await s.huma()
  assert.match(a.sessionId, /^[0-9a-f-]{36}$/)
  const b = await s.huma({ sessionId: 'my-conversation' })
  assert.equal(b.sessionId, 'my-conversation')
  b.contextUpdate('hi')
  await b.nextMessaging('typing_end')
  assert.equal((await s.stored('my-conversation'))?.messages.length, 1)
})

test('multi-tab: two sockets on one session both receive every event; the first confirmation wins', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const tab1 = await s.huma({ sessionId: 'tabs' })
  const tab2 = await s.huma({ sessionId: 'tabs' })
  const w = await watch(s, 'tabs')
  tab1.contextUpdate('send a burst')
  for (const tab of [tab1, tab2]) {
    const sent = [await tab.nextMessaging('message_sent'), await tab.nextMessaging('message_sent'), await tab.nextMessaging('message_sent')]
    assert.deepEqual(
      sent.map((m) => m.messageIndex),
      [0, 1, 2],
    )
    await tab.nextMessaging('typing_end')
  }
  assert.equal((await w.runEnd()).type, 'run.finished')
  assert.deepEqual(tab1.errors.concat(tab2.errors), [], 'duplicate confirmations are not errors')
  tab2.contextUpdate('client info please')
  const [c1, c2] = [await tab1.next('tool-call'), await tab2.next('tool-call')]
  assert.equal(c1.toolCallId, c2.toolCallId)
  tab1.toolResult(c1, { result: 'from tab 1' })
  assert.equal((await tab2.nextMessaging('message_sent')).message, 'Client info: "from tab 1"')
})

test('reconnect with the same sessionId mid-run: the pending tool call is replayed and the run continues', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const first = await s.huma()
  first.contextUpdate('client info please')
  const call = await first.next('tool-call')
  first.close()
  const again = await s.huma({ sessionId: first.sessionId })
  const replayed = await again.next('tool-call')
  assert.equal(replayed.toolCallId, call.toolCallId, 'attached from the start of the active run')
  again.toolResult(replayed, { result: 'reconnected' })
  assert.equal((await again.nextMessaging('message_sent')).message, 'Client info: "reconnected"')
})

test('reconnect with afterSeq replays only what was missed, including a message sent while away', async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const first = await s.huma()
  const w = await watch(s, first.sessionId)
  first.contextUpdate('hello')
  await first.nextMessaging('typing_end')
  await w.runEnd()
  const seen = first.lastSeq
  first.close()
  // While nobody confirms delivery, ctx.say streams text; a returning HUMA client gets it as one whole message.
  const hai = await s.hai({ sessionId: first.sessionId, resumeAfter: -1 })
  hai.say('while you were away')
  await hai.untilCompleted()
  const back = await s.huma({ sessionId: first.sessionId, afterSeq: seen })
  const sent = await back.nextMessaging('message_sent')
  assert.equal(sent.message, 'Echo: while you were away')
  assert.equal(back.received.filter((e) => e.type === 'messaging' && e.event === 'message_sent').length, 1, 'nothing before afterSeq is replayed')
})
