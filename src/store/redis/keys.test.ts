import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redisKeys } from './keys.js'

/** What Redis Cluster hashes: the text between the first `{` and the next `}` when not empty, else the whole key. */
function hashTag(key: string): string {
  const open = key.indexOf('{')
  if (open < 0) return key
  const close = key.indexOf('}', open + 1)
  return close > open + 1 ? key.slice(open + 1, close) : key
}

const ODD_IDS = ['s1', '', 'a}b', '{x}', '}{', 'a:b', 's-ü😀', 'x*y?[z]']

test('redis keys: a session log, record, lease and channel share one hash tag, whatever the id holds', () => {
  const k = redisKeys('parlance:')
  const tags = new Map<string, string>()
  for (const id of ODD_IDS) {
    const own = new Set([k.log(id), k.meta(id), k.lease(id), k.channel(id)].map(hashTag))
    assert.equal(own.size, 1, `one tag for ${JSON.stringify(id)}`)
    tags.set(id, [...own][0]!)
  }
  // Ids without a '}' get a tag of their own; one with a '}' is cut there, so it may share a slot (not its keys).
  const plain = ODD_IDS.filter((id) => !id.includes('}'))
  assert.equal(new Set(plain.map((id) => tags.get(id))).size, plain.length, 'a tag per session')
  assert.equal(k.log('s1'), 'parlance:{s:s1}:log')
  assert.equal(hashTag(k.meta('')), 's:', 'an empty id still gets a non-empty tag')
})

test('redis keys: every name starts with the prefix; a prefix with its own hash tag puts every key in one slot', () => {
  const k = redisKeys('{pl}:')
  const names = [
    k.log('a'),
    k.meta('b'),
    k.lease('c'),
    k.channel('d'),
    k.sessions,
    k.owner('alice'),
    k.leases,
    k.node('n1'),
    k.pending('r1'),
    k.secret,
  ]
  for (const name of names) assert.ok(name.startsWith('{pl}:'), name)
  assert.deepEqual(new Set(names.map(hashTag)), new Set(['pl']))
})

test('redis keys: the all-keys pattern escapes glob characters of the prefix', () => {
  assert.equal(redisKeys('parlance-test:1a2b:').all, 'parlance-test:1a2b:*')
  assert.equal(redisKeys('a*b?[c]\\:').all, 'a\\*b\\?\\[c\\]\\\\:*')
})
