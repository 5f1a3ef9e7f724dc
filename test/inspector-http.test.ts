// The inspector endpoint over plain HTTP: static files (content types, caching, no traversal, a clear page when
// not built, GET / negotiated with the JSON index) and its API (auth like every endpoint, owners only).
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { readSse } from '../src/client/sse.js'
import { startServer } from './harness.js'

const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }

/** A fake build: what Vite writes (index.html + hashed assets). */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-inspector-http-'))
  mkdirSync(join(dir, 'assets'))
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><title>Parlance inspector</title><script type="module" src="/inspector/assets/index-abc123.js"></script>',
  )
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("hi")')
  writeFileSync(join(dir, 'assets', 'index-abc123.css'), 'body{}')
  writeFileSync(join(dir, '.secret'), 'no')
  return dir
}

/** GET with a raw path (fetch would normalise `..`). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const u = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

test('GET / serves the page to browsers and the JSON index to others; assets are typed and cached; no traversal', async (t) => {
  const dir = fakeBuild()
  const s = await startServer({ inspectorDir: dir })
  t.after(async () => {
    await s.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const page = await fetch(`${s.url}/`, { headers: HTML })
  assert.equal(page.status, 200)
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
  assert.equal(page.headers.get('cache-control'), 'no-cache')
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/)
  assert.match(await page.text(), /Parlance inspector/)
  assert.equal((await fetch(`${s.url}/inspector/`)).status, 200)

  const index = (await (await fetch(`${s.url}/`)).json()) as { endpoints: Record<string, string> }
  assert.equal(index.endpoints.hai, '/ws', 'fetch() without text/html still gets the JSON index')
  assert.equal(index.endpoints.inspector, '/')

  const js = await fetch(`${s.url}/inspector/assets/index-abc123.js`)
  assert.equal(js.status, 200)
  assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/)
  assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable')
  assert.equal(js.headers.get('x-content-type-options'), 'nosniff')
  assert.match((await fetch(`${s.url}/inspector/assets/index-abc123.css`)).headers.get('content-type') ?? '', /^text\/css/)
  const head = await fetch(`${s.url}/inspector/assets/index-abc123.js`, { method: 'HEAD' })
  assert.equal(head.status, 200)
  assert.equal(head.headers.get('content-length'), String('console.log("hi")'.length))

  for (const path of [
    '/inspector/../package.json',
    '/inspector/%2e%2e/%2e%2e/package.json',
    '/inspector/assets/..%2f..%2f..%2fpackage.json',
    '/inspector/.secret',
    '/inspector/%00',
    '/inspector/assets/nope.js',
  ]) {
    const r = await rawGet(s.url, path)
    assert.ok(r.status === 404 || r.status === 400, `${path} → ${r.status}`)
    assert.doesNotMatch(r.body, /"name": ?"parlance"|no$/)
  }
  assert.equal((await rawGet(s.url, '/inspector/%E0%A4%A')).status, 400)
})

test('an unbuilt inspector answers a page that says how to build it', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'parlance-inspector-empty-'))
  const s = await startServer({ inspectorDir: empty })
  t.after(async () => {
    await s.close()
    rmSync(empty, { recursive: true, force: true })
  })
  const res = await fetch(`${s.url}/`, { headers: HTML })
  assert.equal(res.status, 503)
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/)
  const body = await res.text()
  assert.match(body, /not built/)
  assert.match(body, /npm run build/)
})

test('the inspector API honours auth: 401 without credentials, sessions and events only for their owner', async (t) => {
  const dir = fakeBuild()
  const s = await startServer({
    inspectorDir: dir,
    auth: { authenticate: (_req, token) => (token === 'a' ? 'alice' : token === 'b' ? 'bob' : null) },
  })
  t.after(async () => {
    await s.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })
  // The page itself holds no data: a browser gets it without a token (it then asks for one).
  assert.equal((await fetch(`${s.url}/`, { headers: HTML })).status, 200)
  assert.equal((await fetch(`${s.url}/inspector/assets/index-abc123.js`)).status, 200)
  assert.equal((await fetch(`${s.url}/`)).status, 401, 'the JSON index still needs credentials')
  assert.equal((await fetch(`${s.url}/inspector/api/sessions`)).status, 401)
  assert.equal((await fetch(`${s.url}/inspector/api/sessions`, as('wrong'))).status, 401)

  const alice = await s.hai({ token: 'a' })
  alice.say('hello')
  await alice.untilCompleted()
  const list = (await (await fetch(`${s.url}/inspector/api/sessions`, as('a'))).json()) as {
    principal: string
    loaded: Array<{ id: string; connections: Record<string, number>; lastSeq: number }>
    stored: Array<{ id: string }>
  }
  assert.equal(list.principal, 'alice')
  const mine = list.loaded.find((x) => x.id === alice.sessionId)
  assert.ok(mine, 'alice sees her session')
  assert.deepEqual(mine.connections, { hai: 1 })
  assert.ok(
    list.stored.some((x) => x.id === alice.sessionId),
    'and its stored record',
  )
  const bobs = (await (await fetch(`${s.url}/inspector/api/sessions`, as('b'))).json()) as { loaded: unknown[]; stored: unknown[] }
  assert.deepEqual([bobs.loaded, bobs.stored], [[], []], 'bob sees none of it')
  // A connection that names a fresh session (every inspector page load does) lists nothing until something happens in it (issue 22).
  const idle = await s.hai({ token: 'b' })
  t.after(() => idle.close())
  // The server has handled this connection by now (it answers a frame on it) and still lists nothing.
  idle.sendRaw({ type: 'nope' })
  assert.equal((await idle.next('error')).error_code, 'unknown_type')
  const still = (await (await fetch(`${s.url}/inspector/api/sessions`, as('b'))).json()) as { loaded: unknown[]; stored: unknown[] }
  assert.deepEqual([still.loaded, still.stored], [[], []], 'an empty session is not listed')

  const eventsPath = `/inspector/api/sessions/${alice.sessionId}/events?after=0&limit=3`
  assert.equal((await fetch(`${s.url}${eventsPath}`, as('b'))).status, 403)
  assert.equal((await fetch(`${s.url}/inspector/api/sessions/${alice.sessionId}/stream`, as('b'))).status, 403)
  assert.equal((await fetch(`${s.url}/inspector/api/sessions/nope/events`, as('a'))).status, 404)
  assert.equal((await fetch(`${s.url}/inspector/api/sessions/${alice.sessionId}/events?after=-1`, as('a'))).status, 400)
  const page = (await (await fetch(`${s.url}${eventsPath}`, as('a'))).json()) as {
    events: Array<{ seq: number; type: string }>
    next: number
    more: boolean
  }
  assert.deepEqual(
    page.events.map((e) => e.seq),
    [1, 2, 3],
  )
  assert.equal(page.events[0]!.type, 'message.user')
  assert.deepEqual([page.next, page.more], [3, true])

  // The stream replays from a seq, then goes live.
  const ctl = new AbortController()
  const res = await fetch(`${s.url}/inspector/api/sessions/${alice.sessionId}/stream?after=0&access_token=a`, { signal: ctl.signal })
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/)
  const seen: number[] = []
  const stream = readSse(res.body!)
  for await (const m of stream) {
    seen.push(Number(m.id))
    if (seen.length === mine.lastSeq) {
      alice.say('again') // live events follow the replay
    }
    if ((JSON.parse(m.data) as { type: string }).type === 'run.finished' && seen.length > mine.lastSeq) break
  }
  ctl.abort()
  assert.deepEqual(
    seen,
    Array.from({ length: seen.length }, (_, i) => i + 1),
    'every seq once, in order',
  )
})
