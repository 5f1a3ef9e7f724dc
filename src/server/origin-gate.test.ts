import assert from 'node:assert/strict'
import { test } from 'node:test'
import { OnceSet } from './origin-gate.js'

test('OnceSet: a key is first once; past its capacity the oldest is forgotten, so memory stays bounded', () => {
  const once = new OnceSet(3)
  assert.deepEqual(
    ['a', 'b', 'a', 'c', 'b'].map((k) => once.first(k)),
    [true, true, false, true, false],
  )
  assert.equal(once.first('d'), true, 'a fourth key evicts the oldest, a')
  assert.equal(once.first('b'), false)
  assert.equal(once.first('a'), true, 'a was forgotten, so it is reported again')
  for (let i = 0; i < 10_000; i++) once.first(`flood-${i}`)
  assert.equal(once.first('flood-9999'), false)
  assert.equal(once.first('flood-9996'), true, 'only the last three are kept')
})
