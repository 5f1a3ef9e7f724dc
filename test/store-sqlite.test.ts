import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { createSqliteStore } from '../src/store/sqlite.js'
import { ev, rec, runStoreContract } from './store-contract.js'

const root = mkdtempSync(join(tmpdir(), 'parlance-sqlite-'))
after(() => rmSync(root, { recursive: true, force: true }))
let n = 0
const file = (): string => join(root, `db-${++n}`, 'parlance.db')

runStoreContract('sqlite', () => Promise.resolve(createSqliteStore({ file: file() })))

test('sqlite store: events and records survive closing and reopening the file', async () => {
  const path = file()
  const first = createSqliteStore({ file: path })
  const events = [ev('s1', 1), ev('s2', 1, { type: 'text.delta', messageId: 'm', delta: 'héllo 😀' }), ev('s1', 2)]
  await first.commit({
    events,
    sessions: [
      rec('s1', { lastSeq: 2, updatedAt: 2000, activeRunId: 'run_1', state: { a: [1] }, messages: [{ id: 'u', role: 'user', content: 'hi' }] }),
      rec('s2', { lastSeq: 1, updatedAt: 1500 }),
    ],
  })
  await first.close()

  const second = createSqliteStore({ file: path, synchronous: 'full' })
  try {
    assert.deepEqual(await second.readEvents('s1', 0, 10), [events[0], events[2]])
    assert.deepEqual(await second.readEvents('s2', 0, 10), [events[1]])
    const r = await second.getSession('s1')
    assert.deepEqual([r?.lastSeq, r?.activeRunId, r?.state, r?.messages], [2, 'run_1', { a: [1] }, [{ id: 'u', role: 'user', content: 'hi' }]])
    assert.deepEqual(
      (await second.listSessions(10)).map((x) => x.id),
      ['s1', 's2'],
    )
    // It continues where the first process stopped, and still refuses a seq it already has.
    await second.commit({ events: [ev('s1', 3)], sessions: [rec('s1', { lastSeq: 3, updatedAt: 3000 })] })
    assert.deepEqual((await second.readEvents('s1', 0, 10)).map((e) => e.seq), [1, 2, 3])
    await assert.rejects(second.commit({ events: [ev('s1', 3)], sessions: [] }))
  } finally {
    await second.close()
  }
})

test('sqlite store: :memory: works as a throwaway database', async () => {
  const s = createSqliteStore({ file: ':memory:' })
  await s.commit({ events: [ev('s1', 1)], sessions: [rec('s1', { lastSeq: 1 })] })
  assert.equal((await s.readEvents('s1', 0, 10)).length, 1)
  await s.close()
})
