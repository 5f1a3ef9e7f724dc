// Drain on SIGTERM (issue 47): a spawned `parlance serve` stops taking new runs, says so on /healthz, lets the
// active run stream to its client to the end, and exits by itself; in a cluster the session moves to a live node.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { ChildProcess } from 'node:child_process'
import { HaiClient, textOf, type HaiServerMessage } from '../src/client/index.js'
import { dropPrefix, REDIS_URL, testPrefix } from './cluster-support.js'
import { spawnServe } from './support/serve-process.js'

/** What the demo agent's "slow" answer streams: 50 numbered chunks. */
const SLOW = Array.from({ length: 50 }, (_, i) => `${i + 1} `).join('')

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

/** Resolves once the process printed `pattern` on stdout (checked against everything printed so far). */
function printed(child: ChildProcess, pattern: RegExp): Promise<void> {
  let out = ''
  return new Promise((resolve) => {
    const on = (d: Buffer) => {
      out += d.toString()
      if (pattern.test(out)) {
        child.stdout!.off('data', on)
        resolve()
      }
    }
    child.stdout!.on('data', on)
  })
}

function errorOf(messages: readonly HaiServerMessage[]): HaiServerMessage | undefined {
  return messages.find((m) => m.type === 'error')
}

test('single node: SIGTERM drains — /healthz 503, new runs refused with a retry hint, the active run streams to its end, the process exits 0', async (t) => {
  const node = await spawnServe(t, ['--store', 'memory', '--drain-timeout', '30'])
  const exited = exitOf(node.child)
  const c = await HaiClient.connect({ url: node.url })
  t.after(() => c.close())
  c.say('slow')
  for (let i = 0; i < 3; i++) await c.next('assistant_message_chunk')

  const draining = printed(node.child, /SIGTERM: draining/)
  node.child.kill('SIGTERM')
  await draining
  const health = await fetch(`${node.url}/healthz`)
  assert.equal(health.status, 503)
  assert.equal(((await health.json()) as { status: string }).status, 'draining')

  // A new session's message: refused in HAI's shape, the connection stays up.
  const other = await HaiClient.connect({ url: node.url })
  t.after(() => other.close())
  other.say('hello')
  const refused = await other.next('error')
  assert.equal(refused.type === 'error' && refused.error_code, 'unavailable')
  assert.match(refused.type === 'error' ? refused.message : '', /draining/)

  // A second connection to the busy session: its message neither starts a run nor interrupts the active one.
  const same = await HaiClient.connect({ url: node.url, sessionId: c.sessionId, resumeAfter: c.lastSeq })
  t.after(() => same.close())
  same.say('interrupt please')
  const refusedToo = await same.next('error')
  assert.equal(refusedToo.type === 'error' && refusedToo.error_code, 'unavailable')

  // HTTP dialects: 503 with Retry-After.
  const chat = await fetch(`${node.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'drain-chat', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] }),
  })
  assert.equal(chat.status, 503)
  assert.equal(chat.headers.get('retry-after'), '1')
  assert.equal(((await chat.json()) as { error: { code: string } }).error.code, 'unavailable')

  // The active run streams to its client to the end: whole, not interrupted.
  await c.untilCompleted(30_000)
  const all = c.received
  assert.equal(errorOf(all), undefined, `no error reached the streaming client: ${JSON.stringify(errorOf(all))}`)
  assert.equal(textOf(all), SLOW)
  assert.equal(await exited, 0, 'the process exits by itself once the run ended')
})

test('single node: a run longer than --drain-timeout is interrupted at the timeout, and the process exits', async (t) => {
  const node = await spawnServe(t, ['--store', 'memory', '--drain-timeout', '0.5'])
  const exited = exitOf(node.child)
  const c = await HaiClient.connect({ url: node.url })
  t.after(() => c.close())
  c.say('slow')
  await c.next('assistant_message_chunk')
  node.child.kill('SIGTERM')
  const err = await c.next('error', 30_000)
  assert.equal(err.type === 'error' && err.error_code, 'interrupted')
  assert.equal(await exited, 0)
})

const prefix = testPrefix()
after(() => dropPrefix(prefix))

test('cluster: SIGTERM on the writer lets its run finish, then the session is written by a live node', async (t) => {
  const args = (id: string) => ['--store', REDIS_URL, '--redis-prefix', prefix, '--node-id', id, '--lease-ms', '1000', '--drain-timeout', '30']
  const [a, b] = await Promise.all([spawnServe(t, args('drain-a'), 'node a'), spawnServe(t, args('drain-b'), 'node b')])
  const aExited = exitOf(a.child)
  const c = await HaiClient.connect({ url: a.url })
  t.after(() => c.close())
  c.say('slow')
  for (let i = 0; i < 3; i++) await c.next('assistant_message_chunk')
  const draining = printed(a.child, /SIGTERM: draining/)
  a.child.kill('SIGTERM')
  await draining
  assert.equal((await fetch(`${a.url}/healthz`)).status, 503)
  assert.equal((await fetch(`${b.url}/healthz`)).status, 200)

  await c.untilCompleted(30_000)
  const all = c.received
  assert.equal(errorOf(all), undefined, `no error reached the streaming client: ${JSON.stringify(errorOf(all))}`)
  assert.equal(textOf(all), SLOW)
  assert.equal(await aExited, 0, 'node A exits by itself')

  // The client reconnects to the live node by cursor: nothing repeated; new input runs there.
  const c2 = await HaiClient.connect({ url: b.url, sessionId: c.sessionId, resumeAfter: c.lastSeq })
  t.after(() => c2.close())
  c2.say('hello after the drain')
  const answer = await c2.untilCompleted(15_000)
  assert.equal(textOf(answer), 'Echo: hello after the drain')
  const seqs = answer.flatMap((m) => (typeof m.seq === 'number' ? [m.seq] : []))
  assert.ok(
    seqs.every((s) => s > c.lastSeq),
    'nothing seen before is replayed',
  )
})
