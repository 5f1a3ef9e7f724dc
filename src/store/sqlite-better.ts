import type BetterSqlite3 from 'better-sqlite3'
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver.js'

// The SQLite driver over better-sqlite3 (an optional peer dependency, required lazily by sqlite-driver.ts):
// its statements, pluck() and transaction() are already the driver's shape.

/** better-sqlite3's module (its default export: the Database class). */
export type BetterSqliteModule = typeof BetterSqlite3

export function openBetterSqlite(Database: BetterSqliteModule, file: string, readonly: boolean): SqliteDatabase {
  const db = new Database(file, readonly ? { readonly: true, fileMustExist: true } : {})
  return {
    driver: 'better-sqlite3',
    get open() {
      return db.open
    },
    prepare: <P extends unknown[], R>(sql: string) => db.prepare<P, R>(sql) as SqliteStatement<P, R>,
    prepareValue: <P extends unknown[], V>(sql: string) => db.prepare<P, V>(sql).pluck() as SqliteStatement<P, V>,
    exec: (sql) => void db.exec(sql),
    transaction: (fn) => db.transaction(fn),
    pragma: (pragma) => db.pragma(pragma, { simple: true }),
    async backup(file, pagesPerStep, progress) {
      const done = await db.backup(file, {
        progress: ({ totalPages, remainingPages }) => {
          progress?.(totalPages, remainingPages)
          return pagesPerStep
        },
      })
      return done.totalPages
    },
    close: () => void db.close(),
  }
}
