import type { SqliteDatabase, SqliteStatement } from './sqlite-driver.js'

// The SQLite driver over Node's built-in node:sqlite (DatabaseSync). Typed here by the calls made (this
// project's @types/node is Node 20's, which has no node:sqlite), and loaded with process.getBuiltinModule, so
// nothing is imported — and no ExperimentalWarning printed — unless it is used.

interface NodeStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint }
  get(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
  iterate(...params: unknown[]): IterableIterator<unknown>
  setReturnArrays(enabled: boolean): void
}

interface NodeDatabase {
  readonly isOpen: boolean
  readonly isTransaction: boolean
  prepare(sql: string): NodeStatement
  exec(sql: string): void
  close(): void
}

/** The parts of node:sqlite this driver uses. */
export interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => NodeDatabase
  StatementSync: { prototype: Partial<NodeStatement> }
  backup(
    db: NodeDatabase,
    path: string,
    options?: { rate?: number; progress?: (p: { totalPages: number; remainingPages: number }) => void },
  ): Promise<number>
}

let loaded: NodeSqliteModule | null | undefined

/** node:sqlite, if this Node has it with everything the store uses (22.16+: `backup()`, `setReturnArrays`). */
export function nodeSqlite(): NodeSqliteModule | null {
  if (loaded !== undefined) return loaded
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule
  // Node 20 answers undefined for a module it does not have.
  const m = getBuiltin?.call(process, 'node:sqlite') as NodeSqliteModule | undefined
  const usable = m !== undefined && typeof m.backup === 'function' && typeof m.StatementSync?.prototype.setReturnArrays === 'function'
  return (loaded = usable ? m : null)
}

/** Rows as their first column's value: node:sqlite has no pluck, so its rows come as arrays and are unwrapped. */
function values<P extends unknown[], V>(s: NodeStatement): SqliteStatement<P, V> {
  s.setReturnArrays(true)
  return {
    run: (...p) => s.run(...p),
    get: (...p) => (s.get(...p) as V[] | undefined)?.[0],
    all: (...p) => (s.all(...p) as V[][]).map((r) => r[0]!),
    *iterate(...p) {
      for (const r of s.iterate(...p) as IterableIterator<V[]>) yield r[0]!
    },
  }
}

export function openNodeSqlite(sqlite: NodeSqliteModule, file: string, readonly: boolean): SqliteDatabase {
  const db = new sqlite.DatabaseSync(file, readonly ? { readOnly: true } : {})
  // Prepared once: BEGIN/COMMIT per commit unit are on the hot path (node:sqlite has no transaction helper).
  let tx: { begin: NodeStatement; commit: NodeStatement; rollback: NodeStatement } | undefined
  const statements = () => (tx ??= { begin: db.prepare('BEGIN'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') })
  let savepoints = 0

  const self: SqliteDatabase = {
    driver: 'node',
    get open() {
      return db.isOpen
    },
    prepare: <P extends unknown[], R>(sql: string) => db.prepare(sql) as unknown as SqliteStatement<P, R>,
    prepareValue: <P extends unknown[], V>(sql: string) => values<P, V>(db.prepare(sql)),
    exec: (sql) => db.exec(sql),
    transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
      return (...args: A): R => {
        if (db.isTransaction) {
          // Inside another transaction: a savepoint, so that this one's failure undoes only its own writes.
          const name = `parlance_${++savepoints}`
          db.exec(`SAVEPOINT ${name}`)
          try {
            const r = fn(...args)
            db.exec(`RELEASE ${name}`)
            return r
          } catch (err) {
            if (db.isTransaction) db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`)
            throw err
          } finally {
            savepoints--
          }
        }
        const t = statements()
        t.begin.run()
        try {
          const r = fn(...args)
          t.commit.run()
          return r
        } catch (err) {
          // A failed COMMIT leaves the transaction open; some errors (SQLITE_FULL…) have already rolled it back.
          if (db.isTransaction) t.rollback.run()
          throw err
        }
      }
    },
    pragma(pragma) {
      const s = db.prepare(`PRAGMA ${pragma}`)
      s.setReturnArrays(true)
      return (s.get() as unknown[] | undefined)?.[0]
    },
    backup(file, pagesPerStep, progress) {
      return sqlite.backup(db, file, {
        rate: pagesPerStep,
        ...(progress ? { progress: (p: { totalPages: number; remainingPages: number }) => progress(p.totalPages, p.remainingPages) } : {}),
      })
    },
    close: () => db.close(),
  }
  return self
}
