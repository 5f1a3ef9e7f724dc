// Issue 35, below the browser: raw requests and WebSocket handshakes with the Origin and Host headers a browser
// (or a DNS-rebinding page) would send, over every route and upgrade a browser client of a dialect uses. A
// disallowed origin never sees an Access-Control-Allow-Origin header, preflights included; an allowed one gets
// CORS on every answer (errors included, so the page can read them); requests without Origin (not browsers) are
// not refused. Every connection goes to 127.0.0.1: the foreign names are header values, never addresses.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { rawHttp, wsHandshake } from './browser-origins-support.js'
import { startServer, type TestServer } from './harness.js'

/** The routes browser clients call: method, path, the request headers their preflight asks for, a body. */
const ROUTES: Array<{ method: string; path: string; asks: string; body?: string }> = [
  { method: 'POST', path: '/api/chat', asks: 'content-type', body: '{}' },
  { method: 'GET', path: '/api/chat/no-such-chat/stream', asks: 'authorization' },
  { method: 'POST', path: '/agui', asks: 'content-type,last-event-id', body: '{}' },
  { method: 'POST', path: '/agui/threads/t1/cancel', asks: 'content-type' },
  { method: 'POST', path: '/a2a/demo', asks: 'content-type,a2a-version', body: '{}' },
  { method: 'GET', path: '/.well-known/agent-card.json', asks: 'a2a-version' },
  { method: 'GET', path: '/a2a/demo/.well-known/agent-card.json', asks: 'a2a-version' },
  { method: 'POST', path: '/mcp', asks: 'content-type,mcp-protocol-version', body: '{}' },
  { method: 'DELETE', path: '/mcp', asks: 'mcp-session-id' },
  { method: 'POST', path: '/sessions/s1/fork', asks: 'content-type', body: '{}' },
  { method: 'GET', path: '/socket.io/?EIO=4&transport=polling', asks: 'content-type' },
  { method: 'GET', path: '/', asks: 'authorization' },
  { method: 'POST', path: '/langgraph/threads/search', asks: 'content-type', body: '{}' },
  { method: 'PATCH', path: '/langgraph/threads/t1', asks: 'content-type', body: '{}' },
  { method: 'GET', path: '/langgraph/threads/t1/runs/r.0/stream', asks: 'last-event-id' },
]
const UPGRADES = ['/ws', '/myagent', '/rpc', '/socket.io/?EIO=4&transport=websocket']
/** Origins that are not loopback origins, some made to look like one. */
const FOREIGN = ['http://evil.test:5173', 'http://localhost.evil.test:5173', 'http://127.0.0.1.evil.test', 'null']
/** Loopback origins: allowed by the default policy of a server listening on loopback. */
const LOOPBACK = ['http://localhost:5173', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'https://localhost']

let open: TestServer
let listed: TestServer

before(async () => {
  ;[open, listed] = await Promise.all([startServer(), startServer({ origins: ['http://app.test:5173'], allowedHosts: ['parlance.test'] })])
})

after(async () => {
  await Promise.all([open.close(), listed.close()])
})

const ws = (s: TestServer, path: string) => `${s.url.replace('http', 'ws')}${path}`
const hostOf = (s: TestServer, name: string) => `${name}:${new URL(s.url).port}`

/** Every route and its preflight answer 403 to `headers`, with no CORS header; every upgrade is refused with 403. */
async function assertRefused(s: TestServer, headers: Record<string, string>): Promise<void> {
  for (const r of ROUTES) {
    const what = `${r.method} ${r.path} ${JSON.stringify(headers)}`
    const res = await rawHttp(`${s.url}${r.path}`, {
      method: r.method,
      headers: { ...headers, ...(r.body ? { 'content-type': 'application/json' } : {}) },
      ...(r.body ? { body: r.body } : {}),
    })
    assert.equal(res.status, 403, what)
    assert.equal((JSON.parse(res.body) as { error: { code: string } }).error.code, 'forbidden', what)
    const pre = await rawHttp(`${s.url}${r.path}`, {
      method: 'OPTIONS',
      headers: { ...headers, 'access-control-request-method': r.method, 'access-control-request-headers': r.asks },
    })
    assert.equal(pre.status, 403, `preflight of ${what}`)
    for (const h of [res.headers, pre.headers]) {
      for (const name of [
        'access-control-allow-origin',
        'access-control-allow-credentials',
        'access-control-allow-methods',
        'access-control-allow-headers',
        'access-control-expose-headers',
      ]) {
        assert.equal(h[name], undefined, `${name} on ${what}`)
      }
    }
  }
  for (const path of UPGRADES) assert.equal(await wsHandshake(ws(s, path), headers), 403, `upgrade ${path} ${JSON.stringify(headers)}`)
}

/** Every route's preflight is 204 with the method and headers it asks for; every answer carries the origin. */
async function assertCors(s: TestServer, origin: string): Promise<void> {
  for (const r of ROUTES) {
    const pre = await rawHttp(`${s.url}${r.path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': r.method, 'access-control-request-headers': r.asks },
    })
    assert.equal(pre.status, 204, `preflight of ${r.method} ${r.path} from ${origin}`)
    assert.equal(pre.headers['access-control-allow-origin'], origin)
    assert.match(String(pre.headers['access-control-allow-methods']), new RegExp(`\\b${r.method}\\b`))
    for (const h of r.asks.split(','))
      assert.match(String(pre.headers['access-control-allow-headers']), new RegExp(`\\b${h}\\b`, 'i'), `${h} allowed for ${r.path}`)
    assert.match(String(pre.headers.vary), /\bOrigin\b/i)
    const res = await rawHttp(`${s.url}${r.path}`, {
      method: r.method,
      headers: { origin, ...(r.body ? { 'content-type': 'application/json' } : {}) },
      ...(r.body ? { body: r.body } : {}),
    })
    assert.notEqual(res.status, 403, `${r.method} ${r.path} from ${origin}: ${res.body}`)
    assert.equal(res.headers['access-control-allow-origin'], origin, `${r.method} ${r.path} (${res.status}) from ${origin}`)
    assert.match(String(res.headers.vary), /\bOrigin\b/i, `Vary of ${r.method} ${r.path}: ${String(res.headers.vary)}`)
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase()
    for (const h of ['mcp-session-id', 'mcp-protocol-version', 'x-vercel-ai-ui-message-stream', 'content-location', 'location'])
      assert.ok(exposed.includes(h), `${h} exposed on ${r.path}: ${exposed}`)
  }
  for (const path of UPGRADES) assert.equal(await wsHandshake(ws(s, path), { origin }), 101, `upgrade ${path} from ${origin}`)
}

describe('origin policy over raw headers', { concurrency: true }, () => {
  test('loopback default: foreign origins (lookalikes and the opaque "null" included) are refused on every route, preflight and upgrade', async () => {
    for (const origin of FOREIGN) await assertRefused(open, { origin })
  })

  test('loopback default: loopback page origins (http and https, localhost, 127.x, [::1], any port) get CORS everywhere', async () => {
    for (const origin of LOOPBACK) await assertCors(open, origin)
  })

  test('DNS rebinding: a Host that is not a loopback name is refused on every route and upgrade, with or without an Origin', async () => {
    for (const name of ['evil.test', 'localhost.evil.test', 'parlance.test']) {
      await assertRefused(open, { host: hostOf(open, name) })
      await assertRefused(open, { host: hostOf(open, name), origin: `http://${hostOf(open, name)}` })
    }
    for (const name of ['localhost', '127.0.0.1', '[::1]']) {
      const res = await rawHttp(`${open.url}/.well-known/agent-card.json`, { headers: { host: hostOf(open, name) } })
      assert.equal(res.status, 200, `Host ${name}`)
      assert.equal(await wsHandshake(ws(open, '/ws'), { host: hostOf(open, name) }), 101, `upgrade with Host ${name}`)
    }
  })

  test('no Origin (not a browser): nothing is refused and no CORS header is sent', async () => {
    for (const r of ROUTES) {
      const res = await rawHttp(`${open.url}${r.path}`, {
        method: r.method,
        ...(r.body ? { headers: { 'content-type': 'application/json' }, body: r.body } : {}),
      })
      assert.notEqual(res.status, 403, `${r.method} ${r.path}: ${res.body}`)
      assert.equal(res.headers['access-control-allow-origin'], undefined)
    }
    for (const path of UPGRADES) assert.equal(await wsHandshake(ws(open, path)), 101, path)
  })

  test("origins: ['http://app.test:5173']: exactly that origin (and same-origin) is allowed; loopback pages, other ports and schemes are not", async () => {
    await assertCors(listed, 'http://app.test:5173')
    for (const origin of ['http://localhost:5173', 'http://app.test:5174', 'https://app.test:5173', 'http://evil.test:5173'])
      await assertRefused(listed, { origin })
    // Same-origin: a page the server itself served (the inspector) calling its own routes.
    const self = new URL(listed.url).origin
    const res = await rawHttp(`${listed.url}/api/chat`, { method: 'POST', headers: { origin: self, 'content-type': 'application/json' }, body: '{}' })
    assert.equal(res.status, 400, res.body)
    assert.equal(await wsHandshake(ws(listed, '/ws'), { origin: self }), 101)
  })

  test("allowedHosts: ['parlance.test'] is served under that name; other names still are not", async () => {
    const res = await rawHttp(`${listed.url}/.well-known/agent-card.json`, { headers: { host: hostOf(listed, 'parlance.test') } })
    assert.equal(res.status, 200, res.body)
    assert.equal(await wsHandshake(ws(listed, '/ws'), { host: hostOf(listed, 'parlance.test') }), 101)
    await assertRefused(listed, { host: hostOf(listed, 'evil.test') })
  })

  test('useChat resume of a chat with no run: 204, with CORS for an allowed page', async () => {
    const res = await rawHttp(`${open.url}/api/chat/never-seen/stream`, { headers: { origin: 'http://localhost:5173' } })
    assert.equal(res.status, 204)
    assert.equal(res.headers['access-control-allow-origin'], 'http://localhost:5173')
  })
})
