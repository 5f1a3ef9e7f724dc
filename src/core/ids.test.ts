import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newId } from './ids.js'

test('newId: the prefix and 32 hex digits, distinct across many refills of its random pool', () => {
  const ids = Array.from({ length: 10_000 }, () => newId('run'))
  for (const id of ids) assert.match(id, /^run_[0-9a-f]{32}$/)
  assert.equal(new Set(ids).size, ids.length)
  // Every hex digit appears in every position: the 16 bytes are random, not a counter or a reused slice.
  for (let i = 4; i < 36; i++) assert.equal(new Set(ids.map((id) => id[i])).size, 16, `position ${i}`)
})
