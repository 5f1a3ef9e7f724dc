// Issue 17, item 3: with auth off every user is the principal `anonymous`, so the per-principal rate limit
// (200 messages/s, burst 400) used to throttle all users together. It now keys on the client's address (behind a
// proxy, with trustProxy, on X-Forwarded-For's first entry); a flood from one address is still limited.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { test } from 'node:test'
import WebSocket from 'ws'
import { startServer } from './harness.js'
import { cliArgs } from './support/node-args.js'

type Frame = { type: string; error_code?: string; status?: string; message?: string }

/** A raw HAI socket from `localAddress` (any 127.x.y.z is this machine's loopback). */
async function socketFrom(url: string, localAddress: string, sessionId: string) {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/ws`, { localAddress })
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  const frames: Frame[] = []
  const done = new Promise<Frame[]>((resolve) => {
    ws.on('message', (d: Buffer) => {
      const f = JSON.parse(d.toString('utf8')) as Frame
      frames.push(f)
      if ((f.type === 'status' && f.status === 'completed') || f.error_code === 'rate_limited') resolve(frames)
    })
  })
  return { ws, frames, done, say: (content: string) => ws.send(JSON.stringify({ type: 'user_message', content, session_id: sessionId })) }
}

test('1,000 users on distinct addresses, each sending one message in the same second, all get answers with default limits', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const users = await Promise.all(
    Array.from({ length: 1000 }, (_, i) => socketFrom(s.url, `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`, `user-${i}-${Date.now()}`)),
  )
  t.after(() => users.forEach((u) => u.ws.close()))
  for (const u of users) u.say('hello')
  const results = await Promise.all(users.map((u) => u.done))
  const limited = results.filter((frames) => frames.some((f) => f.error_code === 'rate_limited')).length
  assert.equal(limited, 0, `${limited} users were rate limited`)
  assert.ok(
    results.every((frames) => frames.some((f) => f.type === 'assistant_message_chunk')),
    'every user got an answer',
  )
})

test('one address flooding over several connections is still limited, per address', async (t) => {
  // A small per-address bucket refilling slowly, so the count does not depend on how fast this machine is.
  const s = await startServer({ limits: { principalRatePerSec: 1, principalBurst: 200 } })
  t.after(() => s.close())
  // Five connections from one address, 100 frames each: within each connection's burst (100), over the address's (200).
  const conns = await Promise.all(Array.from({ length: 5 }, (_, i) => socketFrom(s.url, '127.2.0.1', `flood-${i}-${Date.now()}`)))
  const other = await socketFrom(s.url, '127.2.0.2', `bystander-${Date.now()}`)
  t.after(() => [...conns, other].forEach((c) => c.ws.close()))
  const refused = conns.map(() => 0)
  const answered = new Promise<void>((resolve) => {
    let got = 0
    conns.forEach((c, i) =>
      c.ws.on('message', (d: Buffer) => {
        const f = JSON.parse(d.toString('utf8')) as Frame
        if (f.type !== 'error') return
        if (f.error_code === 'rate_limited') refused[i]!++
        if (++got === 500) resolve()
      }),
    )
  })
  // Answers that refer to no pending approval: each costs a token and is answered with an error (not_found or rate_limited).
  for (const c of conns)
    for (let n = 0; n < 100; n++) c.ws.send(JSON.stringify({ type: 'tool_approval_response', approval_id: `none-${n}`, approved: true }))
  await answered
  const total = refused.reduce((a, b) => a + b, 0)
  assert.ok(total >= 250, `the address's burst (200) caps five connections' 500 frames: ${total} refused`)
  other.say('hello')
  const frames = await other.done
  assert.ok(!frames.some((f) => f.error_code === 'rate_limited'), 'another address is not affected')
})

test('behind a trusted proxy, limits key on X-Forwarded-For; without trustProxy the header is ignored', async (t) => {
  const rpc = (url: string, forwardedFor: string) =>
    fetch(`${url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `${forwardedFor}, 10.0.0.1` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agent/list' }),
    }).then((r) => r.status)
  // Buckets of 10 refilling at 1/s: 40 requests from one address are refused from the 11th on, whatever the timing.
  const limits = { principalRatePerSec: 1, principalBurst: 10 }
  const proxied = await startServer({ trustProxy: true, limits })
  t.after(() => proxied.close())
  const distinct = await Promise.all(Array.from({ length: 40 }, (_, i) => rpc(proxied.url, `203.0.113.${i + 1}`)))
  assert.equal(distinct.filter((s) => s === 429).length, 0, 'distinct forwarded addresses each have their own bucket')
  const sameForwarded = await Promise.all(Array.from({ length: 40 }, () => rpc(proxied.url, '203.0.113.200')))
  assert.ok(sameForwarded.filter((s) => s === 429).length >= 25, 'one forwarded address is one bucket')
  const direct = await startServer({ limits })
  t.after(() => direct.close())
  const spoofed = await Promise.all(Array.from({ length: 40 }, (_, i) => rpc(direct.url, `198.51.100.${i + 1}`)))
  assert.ok(spoofed.filter((s) => s === 429).length >= 25, 'without trustProxy a forged header buys nothing: one address, one bucket')
})

test('--limit sets any limit from the CLI and names the accepted ones when a name is wrong', async () => {
  const run = (args: string[]) =>
    new Promise<{ started: boolean; code: number | null; err: string }>((resolve) => {
      const child = spawn(process.execPath, cliArgs('serve', '--port', '0', '--store', 'memory', ...args), {
        env: { ...process.env, LOG_LEVEL: 'silent' },
      })
      let err = ''
      let started = false
      child.stderr.on('data', (d: Buffer) => (err += d.toString()))
      child.stdout.on('data', (d: Buffer) => {
        if (!/health:/.test(d.toString())) return
        started = true
        child.kill('SIGKILL')
      })
      child.once('exit', (code) => resolve({ started, code, err }))
    })
  const bad = await run(['--limit', 'principalRatePerSecond=5'])
  assert.equal(bad.started, false)
  assert.equal(bad.code, 2)
  assert.match(bad.err, /unknown limit "principalRatePerSecond"; one of: .*principalRatePerSec/)
  const notNumber = await run(['--limit', 'principalRatePerSec=fast'])
  assert.match(notNumber.err, /--limit takes NAME=VALUE with a whole number/)
  const ok = await run(['--limit', 'principalRatePerSec=500', '--limit', 'maxConcurrentRuns=10', '--trust-proxy'])
  assert.ok(ok.started, `serve starts with valid limits: ${ok.err}`)
})
