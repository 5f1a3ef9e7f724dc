// Issue 45, item 3: the SQLite store runs on node:sqlite where Node has it, on better-sqlite3 elsewhere, through
// one small driver interface. Each driver this Node runs is held to the same behaviour here; the store contract
// runs on each in test/store-sqlite.test.ts.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { betterSqliteError, DRIVER_ENV, openSqlite, sqliteDriver } from '../src/store/sqlite-driver.js'
import { sqliteDrivers } from './support/sqlite-drivers.js'

const root = mkdtempSync(join(tmpdir(), 'parlance-sqlite-driver-'))
after(() => rmSync(root, { recursive: true, force: true }))
const [major, minor] = process.versions.node.split('.').map(Number) as [number, number]

/** Runs `fn` with PARLANCE_SQLITE_DRIVER set to `value` (unset: undefined), restoring it after. */
function withEnv<T>(value: string | undefined, fn: () => T): T {
  const before = process.env[DRIVER_ENV]
  if (value === undefined) delete process.env[DRIVER_ENV]
  else process.env[DRIVER_ENV] = value
  try {
    return fn()
  } finally {
    if (before === undefined) delete process.env[DRIVER_ENV]
    else process.env[DRIVER_ENV] = before
  }
}

test('the driver is chosen by Node version: node:sqlite from 24.15 (no warning there), better-sqlite3 before', () => {
  assert.ok(sqliteDrivers.length > 0, 'this Node runs at least one driver')
  const chosen = withEnv(undefined, () => sqliteDriver())
  if (major > 24 || (major === 24 && minor >= 15)) assert.equal(chosen, 'node')
  else if (sqliteDrivers.includes('better-sqlite3')) assert.equal(chosen, 'better-sqlite3')
  else assert.equal(chosen, 'node', 'better-sqlite3 missing: node:sqlite where it is usable')
  assert.equal(withEnv(undefined, () => openSqlite(':memory:')).driver, chosen)
})

test('PARLANCE_SQLITE_DRIVER forces a driver; one this Node cannot run, or an unknown name, is a clear error', () => {
  for (const d of sqliteDrivers)
    assert.equal(
      withEnv(d, () => sqliteDriver()),
      d,
    )
  assert.throws(() => withEnv('sqlite3', () => sqliteDriver()), /PARLANCE_SQLITE_DRIVER=sqlite3: unknown SQLite driver; one of node, better-sqlite3/)
  // The option wins over the environment.
  assert.equal(
    withEnv('bogus', () => sqliteDriver(sqliteDrivers[0])),
    sqliteDrivers[0],
  )
  if (!sqliteDrivers.includes('node')) assert.throws(() => sqliteDriver('node'), /has no usable node:sqlite \(it needs Node 22\.16 or later\)/)
  // On a Node this checkout's better-sqlite3 was not built for (its addon fails to load): rebuild it, or use node:sqlite.
  if (!sqliteDrivers.includes('better-sqlite3'))
    assert.throws(() => sqliteDriver('better-sqlite3'), /better-sqlite3 is installed but does not load on Node .*npm rebuild better-sqlite3/)
})

test('better-sqlite3 missing: the error says what to install', () => {
  let err: unknown
  try {
    createRequire(import.meta.url)('better-sqlite3-not-installed')
  } catch (e) {
    err = e
  }
  const message = betterSqliteError(err).message
  assert.match(message, /needs the better-sqlite3 package on Node .*not installed: run `npm install better-sqlite3@12` in your project/)
  assert.match(message, /or use Node 24\.15 or later/)
})

for (const driver of sqliteDrivers) {
  test(`${driver}: statements, first-column statements, pragmas and transactions (nested ones as savepoints)`, () => {
    const db = openSqlite(join(root, `${driver}.db`), { driver })
    try {
      assert.equal(db.driver, driver)
      assert.equal(db.pragma('journal_mode = WAL'), 'wal')
      assert.equal(db.pragma('user_version'), 0)
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER)')
      const insert = db.prepare<[string, number | null]>('INSERT INTO t (name, n) VALUES (?, ?)')
      assert.equal(Number(insert.run('a', 1).lastInsertRowid), 1)
      assert.equal(Number(insert.run('b', null).changes), 1)
      const rows = db.prepare<[number], { id: number; name: string; n: number | null }>('SELECT id, name, n FROM t WHERE id >= ? ORDER BY id')
      assert.deepEqual(
        rows.all(1).map((r) => ({ ...r })),
        [
          { id: 1, name: 'a', n: 1 },
          { id: 2, name: 'b', n: null },
        ],
      )
      assert.equal(rows.get(2)?.name, 'b')
      assert.equal(rows.get(3), undefined)
      const names = db.prepareValue<[], string>('SELECT name FROM t ORDER BY id')
      assert.equal(names.get(), 'a')
      assert.deepEqual(names.all(), ['a', 'b'])
      assert.deepEqual([...names.iterate()], ['a', 'b'])
      assert.equal(db.prepareValue<[string], number>('SELECT id FROM t WHERE name = ?').get('zz'), undefined)

      const count = () => db.prepareValue<[], number>('SELECT COUNT(*) FROM t').get()
      // A transaction commits as a whole, or (it threw) not at all.
      const addTwo = db.transaction((x: string) => {
        insert.run(x, 1)
        insert.run(`${x}2`, 2)
        return 'done'
      })
      assert.equal(addTwo('c'), 'done')
      assert.equal(count(), 4)
      assert.throws(
        db.transaction(() => {
          insert.run('d', 1)
          throw new Error('no')
        }),
        /no/,
      )
      assert.equal(count(), 4)
      // Nested: the inner one failing undoes its own writes only.
      db.transaction(() => {
        insert.run('e', 1)
        assert.throws(
          db.transaction(() => {
            insert.run('f', 1)
            throw new Error('inner')
          }),
          /inner/,
        )
        db.transaction(() => insert.run('g', 1))()
      })()
      assert.deepEqual(db.prepareValue<[], string>("SELECT name FROM t WHERE name IN ('e', 'f', 'g') ORDER BY name").all(), ['e', 'g'])
      // A statement error inside rolls back too, and the connection goes on.
      assert.throws(
        db.transaction(() => db.exec('INSERT INTO nope VALUES (1)')),
        /no such table/,
      )
      assert.equal(count(), 6)
      assert.equal(db.open, true)
    } finally {
      db.close()
    }
    assert.equal(db.open, false)

    const ro = openSqlite(join(root, `${driver}.db`), { readonly: true, driver })
    try {
      assert.equal(ro.prepareValue<[], number>('SELECT COUNT(*) FROM t').get(), 6)
      assert.throws(() => ro.exec("INSERT INTO t (name) VALUES ('x')"), /readonly/)
    } finally {
      ro.close()
    }
    assert.throws(
      () => openSqlite(join(root, 'missing', `${driver}.db`), { readonly: true, driver }),
      /unable to open database|directory does not exist/i,
    )
  })
}
