import { createRequire } from 'node:module'
import { openBetterSqlite, type BetterSqliteModule } from './sqlite-better.js'
import { nodeSqlite, openNodeSqlite } from './sqlite-node.js'

// The SQLite store's access to SQLite: the few calls it makes, over one of two drivers, chosen once per open.
// `node`: Node's built-in `node:sqlite` (nothing to install or compile). `better-sqlite3`: the native package,
// an optional peer dependency that only a Node without a usable `node:sqlite` needs.

/** Which SQLite binding a database is opened with. */
export type SqliteDriverName = 'node' | 'better-sqlite3'

/** A prepared statement. Parameters are positional (`?`): named parameters differ between the drivers. */
export interface SqliteStatement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): { changes: number | bigint; lastInsertRowid: number | bigint }
  get(...params: P): R | undefined
  all(...params: P): R[]
  /** One row materialized at a time. */
  iterate(...params: P): IterableIterator<R>
}

/** An open database connection. */
export interface SqliteDatabase {
  readonly driver: SqliteDriverName
  readonly open: boolean
  /**
   * Rows as objects. node:sqlite makes them with a null prototype (`assert.deepStrictEqual` against a literal
   * fails): copy a row that leaves the store.
   */
  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): SqliteStatement<P, R>
  /** Rows as the value of their first column (better-sqlite3's `pluck()`). */
  prepareValue<P extends unknown[] = unknown[], V = unknown>(sql: string): SqliteStatement<P, V>
  exec(sql: string): void
  /**
   * `fn` as one transaction (BEGIN … COMMIT, ROLLBACK if it throws); called inside another, a savepoint of it.
   */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R
  /** `PRAGMA <pragma>`: the first column of its first row (undefined: no row). */
  pragma(pragma: string): unknown
  /**
   * SQLite's online backup of this database into `file`, `pagesPerStep` pages per step (each a short read
   * transaction); `progress` is told after each step and may throw to abort (the promise rejects with it, and
   * `file` is left as far as it got). Resolves to the number of pages copied.
   */
  backup(file: string, pagesPerStep: number, progress?: (totalPages: number, remainingPages: number) => void): Promise<number>
  close(): void
}

/** How to open a database file. */
export interface SqliteOpenOptions {
  /** Read-only; the file must exist. */
  readonly?: boolean
  /** Overrides `PARLANCE_SQLITE_DRIVER` and the choice by Node version. */
  driver?: SqliteDriverName
}

/** The environment variable that forces a driver (`node` or `better-sqlite3`). */
export const DRIVER_ENV = 'PARLANCE_SQLITE_DRIVER'

const [MAJOR, MINOR] = process.versions.node.split('.').map(Number) as [number, number]
/**
 * node:sqlite without an ExperimentalWarning: Node 24.15 and later (it became a release candidate there; 22
 * still warns at every start).
 */
const NODE_SQLITE_QUIET = MAJOR > 24 || (MAJOR === 24 && MINOR >= 15)

const INSTALL =
  'run `npm install better-sqlite3@12` in your project (it compiles a native module), or use Node 24.15 or later, ' +
  'whose built-in node:sqlite needs nothing installed (or serve with `--store memory`, which keeps nothing across restarts)'

let better: BetterSqliteModule | Error | undefined

/** better-sqlite3, required once; an Error saying what to do when it is missing or does not load. */
function loadBetterSqlite(): BetterSqliteModule | Error {
  if (better !== undefined) return better
  try {
    const Database = createRequire(import.meta.url)('better-sqlite3') as BetterSqliteModule
    // Its native addon loads at the first open: a build for another Node fails here, not at require().
    new Database(':memory:').close()
    better = Database
  } catch (err) {
    better = betterSqliteError(err)
  }
  return better
}

/** What to do when requiring or opening better-sqlite3 failed with `err`: install it, or rebuild it for this Node. */
export function betterSqliteError(err: unknown): Error {
  const e = err as NodeJS.ErrnoException
  if (e.code === 'MODULE_NOT_FOUND' && /better-sqlite3/.test(e.message))
    return new Error(`the SQLite store needs the better-sqlite3 package on Node ${process.versions.node}, and it is not installed: ${INSTALL}`, {
      cause: err,
    })
  return new Error(
    `better-sqlite3 is installed but does not load on Node ${process.versions.node} (${String(e.message).split('\n')[0]}): ` +
      `rebuild it for this Node (\`npm rebuild better-sqlite3\`)${nodeSqlite() ? `, or set ${DRIVER_ENV}=node to use node:sqlite` : ''}`,
    { cause: err },
  )
}

/**
 * The driver a database opens with: `forced`, else `PARLANCE_SQLITE_DRIVER`, else by Node version — node:sqlite
 * where it runs without a warning (24.15+), else better-sqlite3 if it is installed, else node:sqlite where it is
 * usable at all (22.16+: Node prints its ExperimentalWarning once), else an error saying what to install.
 */
export function sqliteDriver(forced?: SqliteDriverName): SqliteDriverName {
  const env = process.env[DRIVER_ENV]
  const wanted = forced ?? (env ? env : undefined)
  if (wanted === 'node') {
    if (!nodeSqlite())
      throw new Error(
        `${forced ? 'driver' : DRIVER_ENV}=node: Node ${process.versions.node} has no usable node:sqlite (it needs Node 22.16 or later)`,
      )
    return 'node'
  }
  if (wanted === 'better-sqlite3') {
    const b = loadBetterSqlite()
    if (b instanceof Error) throw b
    return 'better-sqlite3'
  }
  if (wanted !== undefined)
    throw new Error(`${DRIVER_ENV}=${wanted}: unknown SQLite driver; one of node, better-sqlite3 (or unset: chosen by Node version)`)
  if (NODE_SQLITE_QUIET && nodeSqlite()) return 'node'
  const b = loadBetterSqlite()
  if (!(b instanceof Error)) return 'better-sqlite3'
  if (nodeSqlite()) return 'node'
  throw b
}

/** Opens `file` (':memory:' for a throwaway database) with the driver `sqliteDriver` chooses. */
export function openSqlite(file: string, options: SqliteOpenOptions = {}): SqliteDatabase {
  const driver = sqliteDriver(options.driver)
  if (driver === 'node') return openNodeSqlite(nodeSqlite()!, file, options.readonly ?? false)
  return openBetterSqlite(loadBetterSqlite() as BetterSqliteModule, file, options.readonly ?? false)
}

/** What a background thread needs to open the same driver: a module specifier it can require(). */
export function driverModule(driver: SqliteDriverName): string {
  return driver === 'node' ? 'node:sqlite' : createRequire(import.meta.url).resolve('better-sqlite3')
}
