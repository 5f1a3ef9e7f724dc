// `parlance backup`'s copy (src/cli/backup.ts prints its progress): SQLite's online backup of a data directory's file.
import { chmodSync, closeSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { openSqlite, type SqliteDriverName } from './sqlite-driver.js'

/** Options of `parlance backup`. */
export interface BackupOptions {
  /** The server's data directory (holding `parlance.db`). */
  dataDir: string
  /** The copy to write; must not exist yet. */
  out: string
  /** Told after each step: pages copied so far and the total (the total can change while the server writes). */
  progress?: (copied: number, total: number) => void
  /** Pages per step (each step is one short read transaction). @default 1024 (4 MiB at SQLite's 4 KiB pages) */
  stepPages?: number
  /** The SQLite driver (see SqliteStoreOptions.driver). @default chosen as the store chooses it */
  driver?: SqliteDriverName
}

/** What a backup did. */
export interface BackupResult {
  pages: number
  bytes: number
  /** Times SQLite started over because the server committed between two steps. */
  restarts: number
}

/** After this many restarts the rest is copied in one step: one read transaction, which in WAL mode never blocks the writer. */
const MAX_RESTARTS = 2
/** Pages per step that copy the whole file in one step. */
const ALL_PAGES = 0x7fffffff

/** Thrown from the progress callback to stop a copy that keeps starting over (both drivers reject with it). */
class StartOver extends Error {}

/**
 * A consistent copy of a data directory's SQLite file, taken while a server may be running on it, through SQLite's
 * online backup API (node:sqlite's `backup()`, better-sqlite3's `db.backup()`), not a file copy: copying
 * `parlance.db` alone misses what is still in its WAL, and a copy made while a checkpoint writes may not open at
 * all. The running server holds the directory's lock (`parlance.db.lock`, src/store/file-lock.ts); the backup
 * neither takes nor needs it: it opens the file read-only, as one more reader, and never writes there. The copy is
 * written beside `out` and renamed into place once complete and checked, so `out` is never a half-written file; it is
 * readable by its owner only (0600), whatever the umask.
 */
export async function backupSqlite(options: BackupOptions): Promise<BackupResult> {
  const src = join(options.dataDir, 'parlance.db')
  if (!existsSync(src)) throw new Error(`--data ${options.dataDir}: no parlance.db there (the SQLite store's file); is it a Parlance data directory?`)
  const out = resolve(options.out)
  if (existsSync(out)) throw new Error(`--out ${options.out} exists; a backup never overwrites a file: choose a new name`)
  if (!existsSync(dirname(out))) throw new Error(`--out ${options.out}: no directory ${dirname(out)}`)
  const db = openSqlite(src, { readonly: true, driver: options.driver })
  const partial = `${out}.partial-${process.pid}`
  const removePartial = () => {
    for (const f of [partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`]) rmSync(f, { force: true })
  }
  // The copy holds every conversation: created 0600 before SQLite writes into it (the WAL it makes beside it takes
  // the same mode; the rename keeps it).
  const createPartial = () => {
    closeSync(openSync(partial, 'wx', 0o600))
    chmodSync(partial, 0o600)
  }
  let restarts = 0
  let lastRemaining = Number.POSITIVE_INFINITY
  try {
    db.pragma('busy_timeout = 5000')
    // A step that leaves as many pages or more to copy as the one before started over: the server committed between
    // them. After MAX_RESTARTS of them this copy stops and a new one takes everything in one step (the drivers
    // cannot change the step size of a running copy alike).
    const progress = (total: number, remaining: number) => {
      if (remaining >= lastRemaining && ++restarts >= MAX_RESTARTS) throw new StartOver()
      lastRemaining = remaining
      options.progress?.(total - remaining, total)
    }
    let pages: number
    try {
      createPartial()
      pages = await db.backup(partial, options.stepPages ?? 1024, progress)
    } catch (err) {
      if (!(err instanceof StartOver)) throw err
      removePartial()
      createPartial()
      pages = await db.backup(partial, ALL_PAGES)
    }
    db.close()
    const copy = openSqlite(partial, { driver: db.driver })
    try {
      const check = copy.pragma('quick_check')
      if (check !== 'ok') throw new Error(`the copy failed SQLite's quick_check: ${String(check)}`)
      // One file, no WAL beside it: what a restore copies is complete by itself.
      copy.pragma('wal_checkpoint(TRUNCATE)')
    } finally {
      copy.close()
    }
    rmSync(`${partial}-wal`, { force: true })
    rmSync(`${partial}-shm`, { force: true })
    renameSync(partial, out)
    options.progress?.(pages, pages)
    return { pages, bytes: statSync(out).size, restarts }
  } catch (err) {
    if (db.open) db.close()
    removePartial()
    throw err
  }
}
