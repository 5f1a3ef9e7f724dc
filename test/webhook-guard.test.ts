// Issue 37, item 2: the webhook guard at the address check. Every address class is decided here, with an injected
// resolver: no name is looked up and nothing connects anywhere. (End to end, with loopback only: webhook-push.)
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { embeddedIpv4, internalClass, WebhookGuard, type Resolve } from '../src/dialects/a2a/webhook-guard.js'

/** A resolver from a table; a name it does not know fails the test (the guard must not look names up elsewhere). */
const table =
  (names: Record<string, string[]>): Resolve =>
  async (host) => {
    const a = names[host]
    if (!a) throw new Error(`unexpected lookup of ${host}`)
    return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
/** A resolver that must never be called (IP literals are checked as they are). */
const never: Resolve = async (host) => assert.fail(`looked up ${host}`)

const CLASSES: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.1.2', 'loopback'],
  ['::1', 'loopback'],
  ['169.254.169.254', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'shared (CGNAT)'],
  ['100.127.255.254', 'shared (CGNAT)'],
  ['fc00::1', 'unique local'],
  ['fd12:3456::1', 'unique local'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['2001:db8::1', 'reserved'],
]

test('every internal address class is named; public addresses pass', () => {
  for (const [address, cls] of CLASSES) assert.equal(internalClass(address), cls, address)
  for (const pub of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '2002:808:808::1'])
    assert.equal(internalClass(pub), null, pub)
})

test('IPv4 inside IPv6: mapped, compatible, NAT64 and 6to4 forms are judged by their IPv4', () => {
  const cases: Array<[string, string | null, RegExp | null]> = [
    ['::ffff:127.0.0.1', '127.0.0.1', /^loopback/],
    ['::ffff:7f00:1', '127.0.0.1', /^loopback/],
    ['::ffff:a9fe:a9fe', '169.254.169.254', /^link-local/],
    ['::ffff:10.1.2.3', '10.1.2.3', /^private/],
    ['::127.0.0.1', '127.0.0.1', /^loopback/],
    ['::a00:1', '10.0.0.1', /^private/],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254', /^link-local/],
    ['2002:c0a8:101::1', '192.168.1.1', /^private/],
    ['2002:7f00:1::', '127.0.0.1', /^loopback/],
  ]
  for (const [v6, v4, cls] of cases) {
    assert.equal(embeddedIpv4(v6), v4, v6)
    assert.match(internalClass(v6) ?? 'public', cls!, v6)
  }
  assert.equal(embeddedIpv4('2606:4700::1111'), null)
})

test('URLs: numeric spellings of loopback, IPv6 literals, schemes and credentials are refused before any lookup', async () => {
  const guard = new WebhookGuard({ resolve: never })
  for (const url of [
    'http://127.0.0.1:9/x',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.0.0.1/',
    'http://0x7f000001/',
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]:8080/',
    'http://0/',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.1/hook',
    'http://[fd00::1]/',
    'https://[ff02::1]/',
  ]) {
    const r = await guard.check(url)
    assert.equal(r.ok, false, url)
    assert.match(r.ok ? '' : r.reason, /is a .* address: push notifications may not reach the server's own network/, url)
  }
  const octal = await guard.check('http://0177.0.0.1/')
  assert.match(octal.ok ? '' : octal.reason, /webhook host 127\.0\.0\.1 is a loopback address.*--allow-webhook-host 127\.0\.0\.1/)
  for (const [url, why] of [
    ['ftp://example.com/', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['http://user:pw@example.com/', /credentials/],
    ['not a url', /not a valid URL/],
  ] as const) {
    const r = await guard.check(url)
    assert.match(r.ok ? '' : r.reason, why, url)
  }
})

test('host names: refused when any address they resolve to is internal; the checked address is the one to connect to', async () => {
  const guard = new WebhookGuard({
    resolve: table({
      'metadata.example': ['169.254.169.254'],
      'inside.example': ['10.0.0.7'],
      'mixed.example': ['93.184.216.34', '192.168.0.9'],
      'mapped.example': ['::ffff:127.0.0.1'],
      'public.example': ['93.184.216.34', '2606:4700::1111'],
      localhost: ['127.0.0.1', '::1'],
    }),
  })
  for (const [host, cls] of [
    ['metadata.example', 'link-local'],
    ['inside.example', 'private'],
    ['mixed.example', 'private'],
    ['mapped.example', 'loopback'],
    ['localhost', 'loopback'],
    ['LOCALHOST.', 'loopback'],
  ] as const) {
    const r = await guard.check(`https://${host}/hook`)
    assert.equal(r.ok, false, host)
    assert.match(r.ok ? '' : r.reason, new RegExp(`resolves to .*, which is a ${cls}`), host)
  }
  const ok = await guard.check('https://public.example/hook?x=1')
  assert.ok(ok.ok)
  assert.deepEqual([ok.target.address, ok.target.family, ok.target.url.href], ['93.184.216.34', 4, 'https://public.example/hook?x=1'])
  const gone = await new WebhookGuard({ resolve: async () => [] }).check('https://nowhere.example/')
  assert.match(gone.ok ? '' : gone.reason, /does not resolve/)
  const failing = await new WebhookGuard({ resolve: async () => Promise.reject(new Error('ENOTFOUND')) }).check('https://nowhere.example/')
  assert.match(failing.ok ? '' : failing.reason, /does not resolve: ENOTFOUND/)
})

test('an operator allows hosts: by the name the URL uses, or by address under any name; nothing else opens', async () => {
  const resolve = table({ 'hooks.internal': ['10.1.2.3'], localhost: ['127.0.0.1'], 'other.internal': ['10.9.9.9'] })
  const guard = new WebhookGuard({ allowHosts: ['Hooks.Internal', '127.0.0.1', '[::1]'], resolve })
  const byName = await guard.check('http://hooks.internal:8080/x')
  assert.ok(byName.ok && byName.target.address === '10.1.2.3')
  const byAddress = await guard.check('http://localhost:9/x')
  assert.ok(byAddress.ok && byAddress.target.address === '127.0.0.1')
  assert.ok((await guard.check('http://127.0.0.1:9/x')).ok)
  assert.ok((await guard.check('http://[::1]:9/x')).ok)
  assert.equal((await guard.check('http://other.internal/')).ok, false, 'another internal name')
  assert.equal((await guard.check('http://127.0.0.2/')).ok, false, 'another loopback address')
  assert.equal((await guard.check('http://[::ffff:127.0.0.1]/')).ok, false, 'the allowed address spelled as IPv6 is another host')
})
