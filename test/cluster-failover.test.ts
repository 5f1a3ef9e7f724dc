import assert from 'node:assert/strict'
import { after, test, type TestContext } from 'node:test'
import { HaiClient, textOf } from '../src/client/index.js'
import { createRedisStore } from '../src/store/redis/store.js'
import { verifyHaiStream } from './hai-lifecycle.js'
import { dropPrefix, REDIS_URL, testPrefix } from './cluster-support.js'
import { spawnServe, type ServeProcess } from './support/serve-process.js'

const prefix = testPrefix()
after(() => dropPrefix(prefix))

/** Starts `parlance serve` as a node of the test cluster (its own process, so it can be killed -9). */
function node(t: TestContext, id: string): Promise<ServeProcess> {
  return spawnServe(t, ['--store', REDIS_URL, '--redis-prefix', prefix, '--node-id', id, '--lease-ms', '1000'], `node ${id}`)
}

test('cluster failover: kill -9 the node running a stream; the client resumes on another node with nothing lost, and new input works there', async (t) => {
  const [a, b] = await Promise.all([node(t, 'node-a'), node(t, 'node-b')])
  const c = await HaiClient.connect({ url: a.url })
  t.after(() => c.close())
  c.say('slow')
  for (let i = 0; i < 5; i++) await c.next('assistant_message_chunk')
  a.child.kill('SIGKILL') // no shutdown, no lease release: node B must notice the lease expire
  await c.closed

  // The client reconnects to node B (any load balancer would do this) and resumes from its last seq.
  const c2 = await HaiClient.connect({ url: b.url, sessionId: c.sessionId, resumeAfter: c.lastSeq })
  t.after(() => c2.close())
  const rest = await c2.untilCompleted(15_000)
  const err = rest.find((m) => m.type === 'error')
  assert.ok(err && err.type === 'error' && err.error_code === 'interrupted', `the run ends as interrupted: ${JSON.stringify(err)}`)
  assert.match(err.message, /node .* stopped/)
  verifyHaiStream([...c.received, ...rest])

  // Nothing stored was lost: the log has no gap, holds every seq the client saw, and the resumed client got the rest exactly once.
  const store = createRedisStore({ url: REDIS_URL, prefix })
  t.after(() => store.close())
  const stored = await store.readEvents(c.sessionId, 0, 100_000)
  const seqs = stored.map((e) => e.seq)
  assert.deepEqual(
    seqs,
    Array.from({ length: seqs.length }, (_, i) => i + 1),
    'the log has no gap',
  )
  for (const m of c.received) if (typeof m.seq === 'number') assert.ok(seqs.includes(m.seq), `seq ${m.seq} the client saw is stored`)
  const resumed = rest.flatMap((m) => (typeof m.seq === 'number' ? [m.seq] : []))
  assert.ok(resumed[0]! > c.lastSeq, 'nothing seen before is replayed')
  for (let i = 1; i < resumed.length; i++) assert.ok(resumed[i]! > resumed[i - 1]!, 'in order, no duplicate')
  const streamed = stored.flatMap((e) => (e.type === 'text.delta' ? [e.delta] : [])).join('')
  assert.equal(textOf([...c.received, ...rest]), streamed, 'every stored chunk reached the client once, across the failover')

  // New input works on the surviving node.
  c2.say('hello again')
  assert.equal(textOf(await c2.untilCompleted()), 'Echo: hello again')
  const h = (await fetch(`${b.url}/healthz`).then((r) => r.json())) as { status: string; node: { id: string } }
  assert.deepEqual([h.status, h.node.id], ['ok', 'node-b'])
})
