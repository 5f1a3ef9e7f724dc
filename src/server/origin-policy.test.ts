import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { isLoopbackHostname, originPolicy, parseOriginPattern, type RequestOrigin } from './origin-policy.js'

const at = (origin: string | undefined, host = '127.0.0.1:8000', forwardedHost?: string): RequestOrigin => ({
  host,
  origin,
  ...(forwardedHost ? { forwardedHost } : {}),
})
const allowed = (v: ReturnType<ReturnType<typeof originPolicy>['check']>) => (v.ok ? v.allowOrigin : 'REFUSED')

test('loopback names: localhost and its subdomains, 127/8, ::1 and IPv4-mapped 127/8; nothing else', () => {
  for (const h of [
    'localhost',
    'LOCALHOST',
    'app.localhost',
    'localhost.',
    '127.0.0.1',
    '127.255.3.4',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
  ])
    assert.equal(isLoopbackHostname(h), true, h)
  for (const h of [
    'localhost.example.com',
    'evil.com',
    '128.0.0.1',
    '10.0.0.1',
    '0.0.0.0',
    '[::]',
    '[::2]',
    '[::ffff:10.0.0.1]',
    '127.0.0.1.nip.io',
    'mylocalhost',
  ])
    assert.equal(isLoopbackHostname(h), false, h)
})

test('default on loopback: loopback pages on any port and scheme are allowed and echoed; other pages refused', () => {
  const p = originPolicy({}, true)
  assert.equal(allowed(p.check(at('http://localhost:3000'))), 'http://localhost:3000')
  assert.equal(allowed(p.check(at('https://127.0.0.1:5173'))), 'https://127.0.0.1:5173')
  assert.equal(allowed(p.check(at('http://[::1]:8080'))), 'http://[::1]:8080')
  assert.equal(allowed(p.check(at(undefined))), null, 'no Origin (not a browser): allowed, no CORS header')
  for (const o of ['http://evil.example.com', 'http://localhost.evil.com:3000', 'null', 'file://', 'chrome-extension://abc', 'not a url']) {
    const v = p.check(at(o))
    assert.equal(v.ok, false, o)
    if (!v.ok) assert.match(v.refusal.message, /--allow-origin/)
  }
})

test('DNS rebinding: on loopback a foreign Host is refused whatever the Origin; --allow-host names pass', () => {
  const p = originPolicy({}, true)
  for (const host of ['evil.example.com', 'evil.example.com:8000', '10.0.0.1:8000', '', 'a/b']) {
    const v = p.check(at(undefined, host))
    assert.equal(v.ok, false, host)
  }
  const v = p.check(at('http://evil.example.com', 'evil.example.com'))
  assert.equal(v.ok, false)
  if (!v.ok) assert.match(v.refusal.message, /Host "evil\.example\.com" refused.*--allow-host evil\.example\.com/)
  for (const host of ['localhost:8000', '127.0.0.1', '[::1]:8000', 'LOCALHOST:1']) assert.equal(p.check(at(undefined, host)).ok, true, host)
  const named = originPolicy({ allowedHosts: ['parlance.internal', '.example.com'] }, true)
  for (const host of ['parlance.internal:8000', 'example.com', 'a.b.example.com:443', 'localhost'])
    assert.equal(named.check(at(undefined, host)).ok, true, host)
  for (const host of ['parlance.internal.evil.com', 'notexample.com', 'evil.com']) assert.equal(named.check(at(undefined, host)).ok, false, host)
})

test('not on loopback: no Host check unless names are given; same-origin pages only by default', () => {
  const p = originPolicy({}, false)
  assert.equal(p.check(at(undefined, 'parlance.example.com')).ok, true)
  assert.equal(allowed(p.check(at('https://parlance.example.com', 'parlance.example.com'))), 'https://parlance.example.com', 'same origin')
  assert.equal(
    allowed(p.check(at('https://parlance.example.com:443', 'parlance.example.com'))),
    'https://parlance.example.com',
    'default port spelled out',
  )
  assert.equal(p.check(at('http://localhost:3000', 'parlance.example.com')).ok, false, 'loopback pages are not the default off loopback')
  assert.equal(p.check(at('https://app.example.com', 'parlance.example.com')).ok, false)
  // Behind a trusted proxy the browser's host is X-Forwarded-Host.
  assert.equal(p.check(at('https://chat.example.com', '127.0.0.1:8000', 'chat.example.com')).ok, true)
})

test('listed origins: exactly those (and same-origin); wildcards match subdomains only; * allows any page without credentials', () => {
  const p = originPolicy({ origins: ['https://app.example.com', 'http://localhost:3000/', 'https://*.preview.example.com'] }, true)
  assert.equal(p.credentials, true)
  assert.equal(allowed(p.check(at('https://app.example.com'))), 'https://app.example.com')
  assert.equal(allowed(p.check(at('http://localhost:3000'))), 'http://localhost:3000')
  assert.equal(allowed(p.check(at('https://pr-1.preview.example.com'))), 'https://pr-1.preview.example.com')
  assert.equal(allowed(p.check(at('http://127.0.0.1:8000', '127.0.0.1:8000'))), 'http://127.0.0.1:8000', 'same origin')
  for (const o of [
    'http://app.example.com',
    'https://app.example.com:8443',
    'http://localhost:3001',
    'https://preview.example.com',
    'https://evilpreview.example.com',
    'http://127.0.0.1:5173',
  ]) {
    assert.equal(p.check(at(o)).ok, false, o)
  }
  const any = originPolicy({ origins: '*' }, true)
  assert.equal(any.credentials, false)
  assert.equal(allowed(any.check(at('https://anything.example'))), '*')
  assert.equal(any.check(at('https://anything.example', 'evil.example.com')).ok, false, 'the Host check still applies on loopback')
})

test('configured origins are validated: a path, a bad scheme or garbage is a TypeError naming it', () => {
  for (const bad of ['app.example.com', 'https://app.example.com/chat', 'ftp://x.example', 'https://', 'https://u:p@x.example', '*']) {
    assert.throws(
      () => parseOriginPattern(bad),
      (e: Error) => e instanceof TypeError && e.message.includes(bad),
      bad,
    )
  }
  assert.throws(() => originPolicy({ allowedHosts: ['https://x.example'] }, true), /invalid host name "https:\/\/x.example"/)
  assert.deepEqual(parseOriginPattern('HTTPS://App.Example.com:443'), { scheme: 'https:', host: 'app.example.com', wildcard: false })
})

test('property: the policy never throws on any header values, and a refused request never gets an origin to echo', () => {
  const header = fc.option(fc.oneof(fc.string(), fc.webUrl(), fc.constantFrom('null', 'http://localhost:3000', 'http://[::1]:1', 'https://*.x')), {
    nil: undefined,
  })
  const policies = [
    originPolicy({}, true),
    originPolicy({}, false),
    originPolicy({ origins: ['https://a.example'] }, true),
    originPolicy({ origins: '*' }, false),
  ]
  fc.assert(
    fc.property(header, header, fc.nat({ max: 3 }), (origin, host, i) => {
      const v = policies[i]!.check({ origin, host })
      if (v.ok && v.allowOrigin !== null && v.allowOrigin !== '*') assert.equal(v.allowOrigin, new URL(origin!).origin)
      if (!v.ok) assert.ok(v.refusal.message.length > 0)
    }),
  )
})
