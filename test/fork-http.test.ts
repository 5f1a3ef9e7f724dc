// POST /sessions/:id/fork over plain HTTP (issue 19): the 201 answer, the fork's log is exactly events 1..k of
// the original (read back through the inspector API), the original is untouched, the listing marks the fork,
// every error status, and a HAI client continues the fork with the agent seeing only the forked turns.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { textOf } from '../src/client/index.js'
import { defineAgent } from '../src/index.js'
import { startServer, type TestServer } from './harness.js'

interface Event {
  type: string
  seq: number
  sessionId: string
  runId: string
  ts: number
  [key: string]: unknown
}
interface ForkAnswer {
  id: string
  forkedFrom: { sessionId: string; atSeq: number }
  agent: string
  lastSeq: number
  activeRunId: string | null
}
interface ErrorAnswer {
  error: { code: string; message: string; field?: string }
}

/** Echoes, and on "recall" lists the history it was given (so a test can see what the agent knows). */
const recallAgent = defineAgent({
  name: 'recall',
  async run(ctx) {
    const text = ctx.input.text
    if (!text.includes('recall')) return void (await ctx.say(`Echo: ${text}`))
    const seen = ctx.history.filter((m) => m.role === 'user' || m.role === 'assistant').map((m) => `${m.role}:${m.content}`)
    await ctx.say(`History: ${seen.join(' | ')}`)
  },
})

const TOKENS: Record<string, string> = { 'alice-token': 'alice', 'bob-token': 'bob' }
const twoUsers = { authenticate: (_req: unknown, token: string | null) => (token ? (TOKENS[token] ?? null) : null) }

function auth(token?: string): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {}
}

function fork(s: TestServer, id: string, body?: unknown, token?: string): Promise<Response> {
  return fetch(`${s.url}/sessions/${encodeURIComponent(id)}/fork`, {
    method: 'POST',
    headers: { ...auth(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}

async function events(s: TestServer, id: string, token?: string): Promise<Event[]> {
  const res = await fetch(`${s.url}/inspector/api/sessions/${encodeURIComponent(id)}/events?limit=1000`, { headers: auth(token) })
  assert.equal(res.status, 200, `events of ${id}: ${res.status}`)
  return ((await res.json()) as { events: Event[] }).events
}

/** A session with two finished turns ("one", "two"); returns its events. */
async function twoTurns(s: TestServer, sessionId: string, token?: string): Promise<Event[]> {
  const c = await s.hai({ sessionId, ...(token ? { token } : {}) })
  c.say('one')
  await c.untilCompleted()
  c.say('two')
  await c.untilCompleted()
  c.close()
  const all = await events(s, sessionId, token)
  assert.equal(all.filter((e) => e.type === 'run.finished').length, 2)
  return all
}

/** Compares logs event by event, ignoring the session id (the only field a fork changes). */
function sameEvents(actual: Event[], expected: Event[]): void {
  const strip = (e: Event) => ({ ...e, sessionId: '' })
  assert.deepEqual(actual.map(strip), expected.map(strip))
}

test('fork at seq k: 201 with its origin, the fork replays exactly events 1..k, the original is unchanged, the listing marks it', async (t) => {
  const s = await startServer({ agents: [recallAgent] })
  t.after(() => s.close())
  const original = await twoTurns(s, 'orig')
  const k = original.find((e) => e.type === 'run.finished')!.seq // the end of the first turn
  assert.ok(k < original.length)

  const res = await fork(s, 'orig', { atSeq: k })
  assert.equal(res.status, 201)
  const body = (await res.json()) as ForkAnswer
  assert.match(body.id, /\S/)
  assert.notEqual(body.id, 'orig')
  assert.deepEqual(body, { id: body.id, forkedFrom: { sessionId: 'orig', atSeq: k }, agent: 'recall', lastSeq: k, activeRunId: null })

  const forked = await events(s, body.id)
  assert.equal(forked.length, k)
  assert.deepEqual(
    forked.map((e) => e.seq),
    Array.from({ length: k }, (_, i) => i + 1),
  )
  assert.ok(forked.every((e) => e.sessionId === body.id))
  sameEvents(forked, original.slice(0, k))
  assert.deepEqual(await events(s, 'orig'), original, 'the original is unchanged')

  // A chosen id, and no body at all (all the events).
  const named = await fork(s, 'orig', { atSeq: 1, id: 'orig-first-event' })
  assert.equal(named.status, 201)
  assert.equal(((await named.json()) as ForkAnswer).id, 'orig-first-event')
  sameEvents(await events(s, 'orig-first-event'), original.slice(0, 1))
  const whole = await fork(s, 'orig')
  assert.equal(whole.status, 201)
  const wholeBody = (await whole.json()) as ForkAnswer
  assert.deepEqual(wholeBody.forkedFrom, { sessionId: 'orig', atSeq: original.length })
  sameEvents(await events(s, wholeBody.id), original)

  // The inspector's listing carries forkedFrom on forks only.
  const list = (await (await fetch(`${s.url}/inspector/api/sessions`)).json()) as {
    loaded: Array<{ id: string; forkedFrom?: unknown }>
    stored: Array<{ id: string; forkedFrom?: unknown }>
  }
  const rows = new Map([...list.stored, ...list.loaded].map((r) => [r.id, r]))
  assert.deepEqual(rows.get(body.id)?.forkedFrom, { sessionId: 'orig', atSeq: k })
  assert.deepEqual(rows.get('orig-first-event')?.forkedFrom, { sessionId: 'orig', atSeq: 1 })
  assert.equal(rows.get('orig')?.forkedFrom, undefined)
  const loadedOrig = list.loaded.find((r) => r.id === 'orig')
  assert.ok(loadedOrig, 'the original is loaded')
  assert.equal(loadedOrig.forkedFrom, undefined)
})

test('a HAI client continues the fork: the agent sees the forked turns and not what came after', async (t) => {
  const s = await startServer({ agents: [recallAgent] })
  t.after(() => s.close())
  const original = await twoTurns(s, 'orig')
  const k = original.find((e) => e.type === 'run.finished')!.seq
  const { id } = (await (await fork(s, 'orig', { atSeq: k })).json()) as ForkAnswer

  const c = await s.hai({ sessionId: id })
  c.say('recall')
  const answer = textOf(await c.untilCompleted())
  assert.equal(answer, 'History: user:one | assistant:Echo: one | user:recall')

  // The fork's log goes on from k; the original still ends where it did.
  const forked = await events(s, id)
  sameEvents(forked.slice(0, k), original.slice(0, k))
  assert.ok(forked.length > k && forked.some((e) => e.seq > k && e.type === 'message.user' && e.content === 'recall'))
  assert.deepEqual(await events(s, 'orig'), original)

  // A loaded fork is listed with its origin too.
  const list = (await (await fetch(`${s.url}/inspector/api/sessions`)).json()) as { loaded: Array<{ id: string; forkedFrom?: unknown }> }
  assert.deepEqual(list.loaded.find((r) => r.id === id)?.forkedFrom, { sessionId: 'orig', atSeq: k })
})

test('fork errors: atSeq past the end 400, bad atSeq/id 400, unknown session 404, an existing id 409, GET 405, non-JSON 415', async (t) => {
  const s = await startServer({ agents: [recallAgent] })
  t.after(() => s.close())
  const original = await twoTurns(s, 'orig')
  await twoTurns(s, 'other')
  const expectError = async (res: Response, status: number, code: string, field?: string) => {
    assert.equal(res.status, status)
    const { error } = (await res.json()) as ErrorAnswer
    assert.equal(error.code, code)
    if (field !== undefined) assert.equal(error.field, field)
    assert.match(error.message, /\S/)
  }

  await expectError(await fork(s, 'orig', { atSeq: original.length + 1 }), 400, 'invalid_message', 'atSeq')
  for (const atSeq of [0, -1, 1.5, '3', null]) await expectError(await fork(s, 'orig', { atSeq }), 400, 'invalid_message', 'atSeq')
  await expectError(await fork(s, 'orig', { id: 'has space' }), 400, 'invalid_message', 'id')
  await expectError(await fork(s, 'orig', [1]), 400, 'invalid_message')
  await expectError(await fork(s, 'nope', { atSeq: 1 }), 404, 'not_found')
  await expectError(await fork(s, 'orig', { atSeq: 1, id: 'other' }), 409, 'conflict')
  await expectError(await fork(s, 'orig', { atSeq: 1, id: 'orig' }), 409, 'conflict')

  const get = await fetch(`${s.url}/sessions/orig/fork`)
  assert.equal(get.status, 405)
  assert.equal(get.headers.get('allow'), 'POST')
  await expectError(get, 405, 'invalid_message')

  const text = await fetch(`${s.url}/sessions/orig/fork`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'atSeq=1' })
  assert.equal(text.status, 415)
  const broken = await fetch(`${s.url}/sessions/orig/fork`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"atSeq": 1' })
  assert.equal(broken.status, 400)

  // None of it touched the sessions.
  assert.deepEqual(await events(s, 'orig'), original)
  const list = (await (await fetch(`${s.url}/inspector/api/sessions`)).json()) as { stored: Array<{ id: string }>; loaded: Array<{ id: string }> }
  assert.deepEqual([...new Set([...list.loaded, ...list.stored].map((r) => r.id))].sort(), ['orig', 'other'])
})

test("with auth: no token 401, another principal's session 403, the owner forks and owns the fork", async (t) => {
  const s = await startServer({ agents: [recallAgent], auth: twoUsers })
  t.after(() => s.close())
  const original = await twoTurns(s, 'alice-1', 'alice-token')

  assert.equal((await fork(s, 'alice-1', { atSeq: 1 })).status, 401)
  const bob = await fork(s, 'alice-1', { atSeq: 1 }, 'bob-token')
  assert.equal(bob.status, 403)
  assert.equal(((await bob.json()) as ErrorAnswer).error.code, 'forbidden')
  assert.equal((await fork(s, 'alice-1', { atSeq: 1, id: 'bobs-copy' }, 'bob-token')).status, 403)

  const alice = await fork(s, 'alice-1', { atSeq: 2 }, 'alice-token')
  assert.equal(alice.status, 201)
  const { id } = (await alice.json()) as ForkAnswer
  // Forked mid-run: events 1..2 are the original's, then the fork closes the run it cut.
  const forked = await events(s, id, 'alice-token')
  sameEvents(forked.slice(0, 2), original.slice(0, 2))
  assert.deepEqual(
    forked.slice(2).map((e) => e.type),
    ['run.error'],
  )
  assert.equal((await fetch(`${s.url}/inspector/api/sessions/${id}/events`, { headers: auth('bob-token') })).status, 403, "the fork is alice's")
  const bobs = (await (await fetch(`${s.url}/inspector/api/sessions`, { headers: auth('bob-token') })).json()) as {
    loaded: unknown[]
    stored: unknown[]
  }
  assert.deepEqual([bobs.loaded, bobs.stored], [[], []])
})
