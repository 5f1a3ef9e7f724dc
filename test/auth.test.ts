import assert from 'node:assert/strict'
import { test } from 'node:test'
import { WebSocket } from 'ws'
import { HaiClient, HugaiClient, HumaClient, MyAgentClient, RpcError, textOf } from '../src/client/index.js'
import { startServer } from './harness.js'

const TOKENS: Record<string, string> = { 'alice-token': 'alice', 'bob-token': 'bob' }
/** How the server ends a WebSocket opened at `path` with no token: the close code and reason, and what it sent first. */
function refusal(url: string, path: string): Promise<{ code: number; reason: string; frames: string[] }> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`)
  const frames: string[] = []
  ws.on('message', (d: Buffer) => frames.push(d.toString()))
  return new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString(), frames })))
}

/** Two users, by bearer token (what a JWT check would return). */
const twoUsers = { authenticate: (_req: unknown, token: string | null) => (token ? (TOKENS[token] ?? null) : null) }

test('static token: HTTP answers 401 without it, /healthz stays open, /metrics is protected', async (t) => {
  const s = await startServer({ auth: { token: 's3cret' } })
  t.after(() => s.close())
  const anon = await fetch(`${s.url}/`)
  assert.equal(anon.status, 401)
  assert.equal(anon.headers.get('www-authenticate'), 'Bearer')
  assert.equal(((await anon.json()) as { error: { code: string } }).error.code, 'unauthorized')
  assert.equal((await fetch(`${s.url}/`, { headers: { authorization: 'Bearer wrong' } })).status, 401)
  assert.equal((await fetch(`${s.url}/`, { headers: { authorization: 'Bearer s3cret' } })).status, 200)
  assert.equal((await fetch(`${s.url}/?access_token=s3cret`)).status, 200)
  assert.equal((await fetch(`${s.url}/healthz`)).status, 200)
  assert.equal((await fetch(`${s.url}/metrics`)).status, 401)
  const metrics = await (await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer s3cret' } })).text()
  assert.match(metrics, /^parlance_auth_failures_total [1-9]\d*$/m)
})

test('protectMetrics: false leaves /metrics open for a scraper', async (t) => {
  const s = await startServer({ auth: { token: 's3cret', protectMetrics: false } })
  t.after(() => s.close())
  assert.equal((await fetch(`${s.url}/metrics`)).status, 200)
  assert.equal((await fetch(`${s.url}/`)).status, 401)
})

test('HAI: a WebSocket without a valid token is closed with 4401 and a reason; with it, the demo answers', async (t) => {
  const s = await startServer({ auth: { token: 's3cret' } })
  t.after(() => s.close())
  for (const token of [undefined, 'wrong']) {
    const c = await HaiClient.connect({ url: s.url, token })
    const why = await c.closed
    assert.equal(why.code, 4401)
    assert.match(why.reason, /unauthorized/)
  }
  const ok = await HaiClient.connect({ url: s.url, token: 's3cret' })
  t.after(() => ok.close())
  ok.say('hello')
  await ok.untilCompleted()
})

test('HUMA: a handshake without a valid token gets connect_error unauthorized; with it, the socket binds', async (t) => {
  const s = await startServer({ auth: { token: 's3cret' }, limits: { typingMsPerChar: 0 } })
  t.after(() => s.close())
  await assert.rejects(HumaClient.connect({ url: s.url }), /unauthorized/)
  await assert.rejects(HumaClient.connect({ url: s.url, token: 'wrong' }), /unauthorized/)
  const ok = await HumaClient.connect({ url: s.url, token: 's3cret' })
  ok.close()
})

test('a pluggable authenticate hook: a throwing hook refuses, it does not crash the server', async (t) => {
  const s = await startServer({
    auth: {
      authenticate: () => {
        throw new Error('jwks endpoint down')
      },
    },
  })
  t.after(() => s.close())
  assert.equal((await fetch(`${s.url}/`, { headers: { authorization: 'Bearer x' } })).status, 401)
  assert.equal((await fetch(`${s.url}/healthz`)).status, 200)
})

test("HAI hijack: bob cannot attach to, drive or answer in alice's session, and sees none of it", async (t) => {
  const s = await startServer({ auth: twoUsers, limits: { approvalTimeoutMs: 5_000 } })
  t.after(() => s.close())
  const alice = await HaiClient.connect({ url: s.url, token: 'alice-token', sessionId: 'alice-1' })
  t.after(() => alice.close())
  alice.say('delete my notes')
  const request = await alice.next('tool_approval_request')

  // Attaching to her session by id: forbidden, and nothing of hers is replayed.
  const spy = await HaiClient.connect({ url: s.url, token: 'bob-token', sessionId: 'alice-1', resumeAfter: 0 })
  t.after(() => spy.close())
  const err = await spy.next('error')
  assert.equal(err.error_code, 'forbidden')
  // Answering her approval and sending into her session: forbidden too.
  spy.approve(String(request.approval_id), true)
  assert.equal((await spy.next('error')).error_code, 'forbidden')
  spy.say('hello from bob')
  assert.equal((await spy.next('error')).error_code, 'forbidden')
  assert.deepEqual(
    spy.received.map((m) => m.type),
    ['error', 'error', 'error'],
  )

  // Her approval is still pending and hers to answer: her "no" is the answer that counts (bob's "yes" was not).
  alice.approve(String(request.approval_id), false)
  const answer = await alice.untilCompleted()
  assert.match(textOf(answer), /^Not approved, so notes\/demo\.txt was not deleted\./)
  assert.equal(
    alice.received.some((m) => m.type === 'error' || m.type === 'tool_call_start'),
    false,
    'no error, and the tool never ran',
  )
})

test("HUMA hijack: bob naming alice's session in the handshake is refused and receives nothing", async (t) => {
  const s = await startServer({ auth: twoUsers, limits: { typingMsPerChar: 0 } })
  t.after(() => s.close())
  const alice = await HumaClient.connect({ url: s.url, token: 'alice-token', sessionId: 'alice-2' })
  t.after(() => alice.close())
  await assert.rejects(HumaClient.connect({ url: s.url, token: 'bob-token', sessionId: 'alice-2' }), /belongs to someone else/)
  // A different principal with its own session is fine.
  const bob = await HumaClient.connect({ url: s.url, token: 'bob-token', sessionId: 'bob-1' })
  bob.close()
})

test("AG-UI hijack: bob's POST, resume and cancel on alice's thread are 403 and show nothing", async (t) => {
  const s = await startServer({ auth: twoUsers })
  t.after(() => s.close())
  const as = (token: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` })
  const alice = await fetch(`${s.url}/agui`, {
    method: 'POST',
    headers: as('alice-token'),
    body: JSON.stringify({ threadId: 'alice-t', runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'secret plans' }] }),
  })
  assert.match(await alice.text(), /RUN_FINISHED/)
  const post = await fetch(`${s.url}/agui`, {
    method: 'POST',
    headers: as('bob-token'),
    body: JSON.stringify({ threadId: 'alice-t', runId: 'r2', messages: [] }),
  })
  assert.equal(post.status, 403)
  const body = await post.text()
  assert.doesNotMatch(body, /secret plans/)
  assert.equal((await fetch(`${s.url}/agui/threads/alice-t/events?after=0`, { headers: as('bob-token') })).status, 403)
  assert.equal((await fetch(`${s.url}/agui/threads/alice-t/cancel`, { method: 'POST', headers: as('bob-token') })).status, 403)
  assert.equal((await fetch(`${s.url}/agui`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 401)
})

test("MyAgent hijack: bob's reconnect, message and state request on alice's session are refused", async (t) => {
  const s = await startServer({ auth: twoUsers })
  t.after(() => s.close())
  const alice = await MyAgentClient.connect({ url: s.url, token: 'alice-token' })
  t.after(() => alice.close())
  const id = await alice.createSession()
  alice.message('secret plans')
  await alice.next('agent.final_answer')
  const bob = await MyAgentClient.connect({ url: s.url, token: 'bob-token' })
  t.after(() => bob.close())
  bob.reconnect(id, 0)
  assert.equal((await bob.next('system.error')).metadata.error_code, 'ERR_FORBIDDEN_403')
  bob.message('hello', id)
  assert.equal((await bob.next('system.error')).metadata.error_code, 'ERR_FORBIDDEN_403')
  bob.send({ event: 'user.request_state', session_id: id })
  assert.equal((await bob.next('system.error')).metadata.error_code, 'ERR_FORBIDDEN_403')
  assert.ok(!bob.received.some((e) => JSON.stringify(e).includes('secret plans')))
  // No token: the socket is closed 4401 before system.connected, and nothing else is sent.
  const anon = await refusal(s.url, '/myagent')
  assert.deepEqual([anon.code, anon.frames], [4401, []])
  assert.match(anon.reason, /unauthorized/)
})

test("HugAI: no token → 401 over HTTP and 4401 over WebSocket; bob cannot decide alice's checkpoint", async (t) => {
  const s = await startServer({ auth: twoUsers })
  t.after(() => s.close())
  const res = await fetch(`${s.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agent/list' }),
  })
  assert.equal(res.status, 401)
  const anon = await refusal(s.url, '/rpc')
  assert.deepEqual([anon.code, anon.frames], [4401, []])
  assert.match(anon.reason, /unauthorized/)
  const init = { processId: 1, capabilities: {}, governanceLevel: 'supervised' }
  const alice = await HugaiClient.connect({ url: s.url, token: 'alice-token' })
  t.after(() => alice.close())
  await alice.call('initialize', { ...init, agentId: 'alice' })
  const bob = await HugaiClient.connect({ url: s.url, token: 'bob-token' })
  t.after(() => bob.close())
  await bob.call('initialize', { ...init, agentId: 'bob' })
  const task = alice.call<{ output: string }>('agent/request', { sourceAgent: 'alice', targetAgent: 'demo', task: 'delete the notes' })
  const cp = await alice.nextNotification((n) => n.params.event === 'checkpoint')
  await assert.rejects(
    bob.call('governance/approval', { checkpoint: cp.params.data!.checkpoint, artifact: {}, approver: 'bob', decision: 'approved' }),
    (e: unknown) => e instanceof RpcError && e.code === -32004,
  )
  await alice.call('governance/approval', { checkpoint: cp.params.data!.checkpoint, artifact: {}, approver: 'alice', decision: 'rejected' })
  assert.match((await task).output, /Not approved/)
})
