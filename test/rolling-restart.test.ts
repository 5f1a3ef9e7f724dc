// A rolling restart loses nothing (issue 47): 3 `parlance serve` nodes on Redis, HAI and /api/chat streams in flight
// on each, every node SIGTERMed in turn (it drains and exits by itself) and started again.
import assert from 'node:assert/strict'
import { after, test, type TestContext } from 'node:test'
import type { ChildProcess } from 'node:child_process'
import { HaiClient, textOf } from '../src/client/index.js'
import { dropPrefix, REDIS_URL, testPrefix } from './cluster-support.js'
import { verifyHaiStream } from './hai-lifecycle.js'
import { spawnServe, type ServeProcess } from './support/serve-process.js'

const prefix = testPrefix()
after(() => dropPrefix(prefix))

/** What the demo agent's "slow" answer streams. */
const SLOW = Array.from({ length: 50 }, (_, i) => `${i + 1} `).join('')
/** Streams of each dialect started on each node before it is stopped. */
const HAI_PER_NODE = 4
const CHAT_PER_NODE = 2

const node = (t: TestContext, id: string) =>
  spawnServe(t, ['--store', REDIS_URL, '--redis-prefix', prefix, '--node-id', id, '--lease-ms', '1000', '--drain-timeout', '60'], id)

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

/** One /api/chat "slow" stream: `streaming` once its first text delta arrived; `done`: its deltas joined, and any error part. */
function chatStream(url: string, id: string): { streaming: Promise<void>; done: Promise<{ text: string; errors: string[] }> } {
  let streaming = () => {}
  const started = new Promise<void>((resolve) => (streaming = resolve))
  const done = (async () => {
    const res = await fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id, messages: [{ id: `${id}-u`, role: 'user', parts: [{ type: 'text', text: 'slow' }] }] }),
    })
    assert.equal(res.status, 200, `${id}: ${res.status}`)
    let text = ''
    const errors: string[] = []
    for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
      for (const line of chunk.split('\n')) {
        if (!line.startsWith('data: {')) continue
        const part = JSON.parse(line.slice(6)) as { type: string; delta?: string; errorText?: string }
        if (part.type === 'text-delta') text += part.delta ?? ''
        if (part.type === 'error') errors.push(part.errorText ?? '')
        if (text) streaming()
      }
    }
    return { text, errors }
  })()
  // A stream that fails before its first delta fails the wait for it too.
  return { streaming: Promise.race([started, done.then(() => {})]), done }
}

test('rolling restart of 3 nodes: every run in flight finishes whole, none interrupted, clients resume by cursor, each node exits by itself', async (t) => {
  const ids = ['roll-1', 'roll-2', 'roll-3']
  const nodes: ServeProcess[] = await Promise.all(ids.map((id) => node(t, id)))
  for (let i = 0; i < nodes.length; i++) {
    const target = nodes[i]!
    // A wave of streams on every node, the one about to stop included; each has streamed before the signal.
    const hai: HaiClient[] = []
    for (const n of nodes) {
      for (let k = 0; k < HAI_PER_NODE; k++) {
        const c = await HaiClient.connect({ url: n.url })
        t.after(() => c.close())
        c.say('slow')
        hai.push(c)
      }
    }
    // One more on the node about to stop, which leaves mid-answer during the drain and resumes on a live node by cursor.
    const leaver = await HaiClient.connect({ url: target.url })
    t.after(() => leaver.close())
    leaver.say('slow')
    const chats = nodes.flatMap((n, j) => Array.from({ length: CHAT_PER_NODE }, (_, k) => chatStream(n.url, `${prefix}-w${i}-n${j}-${k}`)))
    await Promise.all([...hai, leaver].map((c) => c.next('assistant_message_chunk', 30_000)))
    await Promise.all(chats.map((c) => c.streaming))

    const exited = exitOf(target.child)
    target.child.kill('SIGTERM')
    await leaver.next('assistant_message_chunk', 30_000) // streamed during the drain
    // What it saw up to its cursor (on Node 20 its `ws` socket still delivers what arrives after close()).
    const [seen, cursor] = [[...leaver.received], leaver.lastSeq]
    leaver.close()
    const resumed = await HaiClient.connect({ url: nodes[(i + 1) % nodes.length]!.url, sessionId: leaver.sessionId, resumeAfter: cursor })
    t.after(() => resumed.close())
    const rest = await resumed.untilCompleted(60_000)
    assert.equal(textOf([...seen, ...rest]), SLOW, 'what it saw and the rest make the whole answer, once')
    verifyHaiStream([...seen, ...rest])
    // Every HAI run ends whole and uninterrupted, its frames in order with no gap or repeat.
    for (const c of hai) {
      await c.untilCompleted(60_000)
      assert.equal(
        c.received.find((m) => m.type === 'error'),
        undefined,
        'no run is interrupted',
      )
      assert.equal(textOf(c.received), SLOW)
      verifyHaiStream(c.received)
    }
    for (const r of await Promise.all(chats.map((c) => c.done))) {
      assert.deepEqual(r.errors, [])
      assert.equal(r.text, SLOW)
    }
    assert.equal(await exited, 0, `${ids[i]} exits by itself after its drain`)

    // The clients of the stopped node reconnect to a live one by cursor: nothing repeated, new input runs there.
    const live = nodes[(i + 1) % nodes.length]!
    for (const c of hai.slice(i * HAI_PER_NODE, (i + 1) * HAI_PER_NODE)) {
      const again = await HaiClient.connect({ url: live.url, sessionId: c.sessionId, resumeAfter: c.lastSeq })
      t.after(() => again.close())
      again.say('after the restart')
      const answer = await again.untilCompleted(30_000)
      assert.equal(textOf(answer), 'Echo: after the restart')
      assert.ok(
        answer.every((m) => typeof m.seq !== 'number' || m.seq > c.lastSeq),
        'nothing seen before is replayed',
      )
    }
    nodes[i] = await node(t, ids[i]!)
  }
})
