import { sqliteDriver, type SqliteDriverName } from '../../src/store/sqlite-driver.js'

/**
 * The SQLite drivers this Node runs: node:sqlite where it has it (22.16+), better-sqlite3 where its native build
 * loads (the checkout's is built for one Node). Tests run on each; CI runs Node 20 (better-sqlite3) and 24/26 (node:sqlite).
 */
export const sqliteDrivers: SqliteDriverName[] = (['node', 'better-sqlite3'] as const).filter((d) => {
  try {
    return sqliteDriver(d) === d
  } catch {
    return false
  }
})
