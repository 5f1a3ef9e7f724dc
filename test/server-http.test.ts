import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { defineAgent, demoAgent } from '../src/index.js'
import { textOf } from '../src/client/index.js'
import { startServer } from './harness.js'

test('/metrics reports connections, committed events, active runs and store commit latency', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.say('count 10')
  await c.untilCompleted()
  const text = await (await fetch(`${s.url}/metrics`)).text()
  assert.match(text, /^parlance_connections\{dialect="hai"\} 1$/m)
  const events = Number(/^parlance_events_total (\d+)$/m.exec(text)?.[1])
  assert.ok(events >= 14, `events_total ${events}`)
  assert.match(text, /^parlance_active_runs 0$/m)
  assert.match(text, /^parlance_store_commit_seconds_count [1-9]\d*$/m)
})

test('inbound errors are counted by dialect and code', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = await s.hai()
  c.sendRaw('nope')
  await c.next('error')
  const text = await (await fetch(`${s.url}/metrics`)).text()
  assert.match(text, /^parlance_inbound_errors_total\{dialect="hai",code="invalid_json"\} 1$/m)
})

test('GET / lists agents and endpoints; unknown routes are a JSON 404', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const index = (await (await fetch(s.url)).json()) as { agents: string[]; endpoints: Record<string, string> }
  assert.deepEqual(index.agents, ['demo'])
  assert.equal(index.endpoints.hai, '/ws')
  const missing = await fetch(`${s.url}/nope`)
  assert.equal(missing.status, 404)
  assert.equal(((await missing.json()) as { error: { code: string } }).error.code, 'not_found')
})

test('metadata.agent picks another served agent; an unknown one is not_found', async (t) => {
  const shout = defineAgent({ name: 'shout', run: async (ctx) => void (await ctx.say(ctx.input.text.toUpperCase())) })
  const s = await startServer({ agents: [demoAgent, shout] })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello', { agent: 'shout' })
  const msgs = await c.untilCompleted()
  assert.equal(textOf(msgs), 'HELLO')
  assert.deepEqual(new Set(msgs.map((m) => m.agent_id)), new Set(['shout']), 'agent_id names the agent that ran')
  c.say('back to demo', { agent: 'demo' })
  const back = await c.untilCompleted()
  assert.deepEqual(new Set(back.map((m) => m.agent_id)), new Set(['demo']))
  c.say('hello', { agent: 'nobody' })
  const err = await c.next('error')
  assert.equal(err.error_code, 'not_found')
  assert.match(err.message, /nobody/)
})

test('with the SQLite store the signing secret is generated once, kept 0600 in the data dir, and reused', async (t) => {
  const s = await startServer({ store: 'sqlite' })
  t.after(() => s.removeData())
  const file = join(s.dataDir, 'secret')
  const first = readFileSync(file, 'utf8')
  assert.equal(Buffer.from(first, 'base64url').length, 32)
  assert.equal(statSync(file).mode & 0o777, 0o600)
  await s.close()
  const again = await startServer({ store: 'sqlite', dataDir: s.dataDir })
  await again.close()
  assert.equal(readFileSync(file, 'utf8'), first)
})

test('the listening socket queues 4,096 connections by default, or listenBacklog (as the kernel reports it)', async () => {
  /** The listening socket's accept-queue size as the kernel reports it (`ss`: Send-Q of a LISTEN socket). */
  const backlogOf = (url: string): number => {
    const port = new URL(url).port
    const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim()
    return Number(line.split(/\s+/)[2])
  }
  const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'))
  const byDefault = await startServer()
  const set = await startServer({ listenBacklog: 1234 })
  try {
    assert.equal(backlogOf(byDefault.url), Math.min(4096, somaxconn))
    assert.equal(backlogOf(set.url), Math.min(1234, somaxconn))
  } finally {
    await byDefault.close()
    await set.close()
  }
})
