import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { Redis } from 'ioredis'
import { HaiClient, HumaClient, MyAgentClient, textOf } from '../src/client/index.js'
import type { StoredEvent } from '../src/index.js'
import { redisKeys } from '../src/store/redis/keys.js'
import { dropPrefix, REDIS_URL, startNodes, testPrefix } from './cluster-support.js'
import { watch } from './huma-support.js'
import { waitFor } from './support/wait.js'

const prefixes: string[] = []
after(async () => {
  for (const p of prefixes) await dropPrefix(p)
})
const prefix = (): string => {
  const p = testPrefix()
  prefixes.push(p)
  return p
}

/** What identifies an event across nodes: everything but the object identity. */
const shape = (events: readonly StoredEvent[]) => events.map((e) => JSON.stringify(e))

test('cluster: a client on node 2 watches and answers a run executing on node 1 (approval forwarded), frames identical on both nodes', async (t) => {
  const [n1, n2] = await startNodes(2, prefix())
  t.after(async () => {
    await n1!.close()
    await n2!.close()
  })
  const c1 = await n1!.hai()
  c1.say('hello')
  assert.equal(textOf(await c1.untilCompleted()), 'Echo: hello')

  // A second client of the same session, on the other node, from seq 0.
  const c2 = await n2!.hai({ sessionId: c1.sessionId, resumeAfter: 0 })
  await c2.untilCompleted()
  c1.say('please delete report.txt')
  const request = await c2.next('tool_approval_request')
  assert.equal(request.tool_name, 'delete_file')
  c2.approve(request.approval_id, true) // arrives at node 2, carried out on node 1 (the writer)
  const done1 = await c1.untilCompleted()
  const done2 = await c2.untilCompleted()
  assert.match(textOf(done1), /deleted/i)
  assert.deepEqual(c2.received, c1.received, 'every frame, seq for seq, the same on both nodes')
  const seqs = c1.received.flatMap((m) => (typeof m.seq === 'number' ? [m.seq] : []))
  assert.deepEqual(
    seqs,
    [...seqs].sort((a, b) => a - b),
    'in seq order',
  )
  assert.ok(done2.length > 0)
})

test('cluster: three nodes, three dialects, one session — identical canonical sequences; commands from any node reach the run', async (t) => {
  const nodes = await startNodes(3, prefix())
  t.after(async () => {
    for (const n of nodes) await n.close()
  })
  const [n1, n2, n3] = nodes as [(typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0]]
  const hai = await n1.hai()
  hai.say('hello')
  await hai.untilCompleted()
  const sid = hai.sessionId
  const watches = await Promise.all(nodes.map((n) => watch(n, sid)))
  const huma = await HumaClient.connect({ url: n2.url, sessionId: sid, afterSeq: hai.lastSeq })
  t.after(() => huma.close())
  const my = await MyAgentClient.connect({ url: n3.url })
  t.after(() => my.close())
  my.reconnect(sid, hai.lastSeq)

  // A client tool call from a run on node 1, answered by the HUMA client on node 2.
  hai.say('client info please')
  const call = await huma.next('tool-call')
  assert.equal(call.toolName, 'get_client_info')
  huma.toolResult(call, { result: { platform: 'cluster-test' } })
  await hai.untilCompleted()
  // State changed by a run started from node 3's HAI client… through node 1's session writer.
  const stateFrom = hai.lastSeq
  const hai3 = await n3.hai({ sessionId: sid, resumeAfter: stateFrom })
  hai3.say('state please')
  await hai3.untilCompleted()
  const end = await watches[0]!.next((e) => e.type === 'run.finished' && e.seq > stateFrom)
  for (const w of watches.slice(1)) await w.next((e) => e.seq === end.seq)

  const reference = shape(watches[0]!.events)
  for (const w of watches.slice(1)) assert.deepEqual(shape(w.events), reference, 'each node delivered the same events')
  const seqs = watches[0]!.events.map((e) => e.seq)
  assert.deepEqual(
    seqs,
    Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i),
    'no gap, no duplicate',
  )
  assert.ok(watches[0]!.events.some((e) => e.type === 'tool.result' && JSON.stringify(e.result).includes('cluster-test')))
  for (const n of nodes) {
    const s = await n.server.sessions.open(sid, 'anonymous')
    assert.deepEqual(s.model.state, { counter: 1 }, `state on ${n.url}`)
  }
  // The MyAgent client on node 3 saw the run it did not start, in its own dialect, including the state change.
  const state = await my.next((e) => e.event === 'agent.state')
  assert.ok(JSON.stringify(state).includes('counter'))
  await my.next((e) => e.event === 'agent.final_answer' && JSON.stringify(e).includes('counter is 1'))
})

test('cluster: a new session on one node is visible on another; ownership holds across nodes', async (t) => {
  const [n1, n2] = await startNodes(2, prefix())
  t.after(async () => {
    await n1!.close()
    await n2!.close()
  })
  const c1 = await n1!.hai()
  c1.say('weather in Paris')
  await c1.untilCompleted()
  const other = await n2!.server.sessions.open(c1.sessionId, 'anonymous')
  assert.equal(other.lastSeq, c1.lastSeq)
  await assert.rejects(n2!.server.sessions.open(c1.sessionId, 'mallory'), /someone else/)
  // Input on node 2 starts the next run there (the lease moved once node 1 released it).
  const c2 = await HaiClient.connect({ url: n2!.url, sessionId: c1.sessionId, resumeAfter: c1.lastSeq })
  t.after(() => c2.close())
  c2.say('hello from node 2')
  assert.equal(textOf(await c2.untilCompleted()), 'Echo: hello from node 2')
  const h = await fetch(`${n2!.url}/healthz`).then((r) => r.json() as Promise<{ store: { kind: string; ok: boolean }; node: { id: string } }>)
  assert.deepEqual([h.store.kind, h.store.ok, h.node.id], ['redis', true, 'node-2'])
})

test('cluster: a replica loaded mid-run knows what the run waits for; unloading and reloading it keeps that right', async (t) => {
  const [n1, n2] = await startNodes(2, prefix())
  t.after(async () => {
    await n1!.close()
    await n2!.close()
  })
  const c1 = await n1!.hai()
  c1.say('delete the notes')
  const request = await c1.next('tool_approval_request')
  const replica = await n2!.server.sessions.open(c1.sessionId, 'anonymous')
  assert.equal(replica.writer, false)
  assert.equal(replica.activeRunId !== null, true, 'the run active on node 1')
  assert.equal(n2!.server.sessions.findPending(request.approval_id), replica, 'learned from the log at load')
  assert.equal(n2!.server.sessions.evictIdle(Date.now() + 1), 1)
  assert.equal(n2!.server.sessions.findPending(request.approval_id), undefined, 'no stale entry after unloading')
  const again = await n2!.server.sessions.open(c1.sessionId, 'anonymous')
  assert.notEqual(again, replica)
  assert.equal(n2!.server.sessions.findPending(request.approval_id), again)
  // Answered through the reloaded replica: forwarded to node 1, where the run goes on.
  await again.handle({ type: 'approval.response', sessionId: c1.sessionId, approvalId: request.approval_id, approved: true })
  assert.match(textOf(await c1.untilCompleted()), /deleted/i)
})

test('cluster: a HUMA client on a replica node confirms a burst run on the writer; each message waits for it, and a failure stops the burst', async (t) => {
  const p = prefix()
  const [n1, n2] = await startNodes(2, p)
  t.after(async () => {
    await n1!.close()
    await n2!.close()
  })
  // Node 1 writes the session (its HAI client keeps it there); the HUMA client follows it from node 2.
  const hai = await n1!.hai()
  hai.say('hello')
  await hai.untilCompleted()
  const sid = hai.sessionId
  const w = await watch(n1!, sid)
  await w.runEnd() // the 'hello' run's
  let fail = false
  const huma = await HumaClient.connect({
    url: n2!.url,
    sessionId: sid,
    afterSeq: hai.lastSeq,
    confirm: (e) => ({ messageIndex: e.messageIndex, success: !(fail && e.messageIndex === 1), ...(fail ? { error: 'phone offline' } : {}) }),
  })
  t.after(() => huma.close())
  // Node 2's confirming subscriber is recorded in Redis before the burst starts (a real user types slower).
  const redis = new Redis(REDIS_URL)
  t.after(() => redis.quit())
  const confirming = async () => Number((await redis.hget(redisKeys(p).confirming(sid), 'node-2')) ?? 0)
  await waitFor(async () => (await confirming()) === 1, { what: "node 2's confirming subscriber in Redis" })
  huma.contextUpdate('send a burst')
  assert.equal((await huma.nextMessaging('typing_end')).reason, undefined)
  await w.runEnd()
  const order = (from = 0) =>
    w.events
      .slice(from)
      .filter((e) => e.type === 'message.sent' || e.type === 'message.delivery')
      .map((e) => `${e.type === 'message.sent' ? 'sent' : e.ok ? 'ok' : 'failed'}${e.index}`)
  assert.deepEqual(order(), ['sent0', 'ok0', 'sent1', 'ok1', 'sent2', 'ok2'], 'each message waited for the confirmation sent to node 2')
  const delivered = w.events.find((e) => e.type === 'message.delivery')
  assert.equal(delivered?.type === 'message.delivery' ? delivered.by : null, 'client')

  fail = true
  let from = w.events.length
  huma.contextUpdate('send a burst')
  assert.equal((await huma.nextMessaging('typing_end')).reason, 'failed')
  await w.runEnd()
  assert.deepEqual(order(from), ['sent0', 'ok0', 'sent1', 'failed1'])

  // Once the HUMA client leaves, node 1 no longer waits for confirmations nobody will send.
  huma.close()
  await waitFor(async () => (await confirming()) === 0, { what: "node 2's confirming subscriber gone from Redis" })
  from = w.events.length
  hai.say('send a burst')
  await w.runEnd()
  assert.deepEqual(order(from), ['sent0', 'sent1', 'sent2'])
})
