import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HaiClient, HumaClient } from '../src/client/index.js'
import { startServer } from './harness.js'

const TOKENS: Record<string, string> = { 'alice-token': 'alice', 'bob-token': 'bob' }
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

test('HAI hijack: bob cannot attach to, drive or answer in alice\'s session, and sees none of it', async (t) => {
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

  // Her approval is still pending and hers to answer.
  alice.approve(String(request.approval_id), false)
  await alice.untilCompleted()
})

test('HUMA hijack: bob naming alice\'s session in the handshake is refused and receives nothing', async (t) => {
  const s = await startServer({ auth: twoUsers, limits: { typingMsPerChar: 0 } })
  t.after(() => s.close())
  const alice = await HumaClient.connect({ url: s.url, token: 'alice-token', sessionId: 'alice-2' })
  t.after(() => alice.close())
  await assert.rejects(HumaClient.connect({ url: s.url, token: 'bob-token', sessionId: 'alice-2' }), /belongs to someone else/)
  // A different principal with its own session is fine.
  const bob = await HumaClient.connect({ url: s.url, token: 'bob-token', sessionId: 'bob-1' })
  bob.close()
})
