import { chmodSync, closeSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

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

/**
 * A consistent copy of a data directory's SQLite file, taken while a server may be running on it, through SQLite's
 * online backup API (better-sqlite3's `db.backup()`), not a file copy: copying `parlance.db` alone misses what is
 * still in its WAL, and a copy made while a checkpoint writes may not open at all. The running server holds the
 * directory's lock (`parlance.db.lock`, src/store/file-lock.ts); the backup neither takes nor needs it: it opens the
 * file read-only, as one more reader, and never writes there. The copy is written beside `out` and renamed into
 * place once complete and checked, so `out` is never a half-written file; it is readable by its owner only (0600).
 */
export async function backupSqlite(options: BackupOptions): Promise<BackupResult> {
  const src = join(options.dataDir, 'parlance.db')
  if (!existsSync(src)) throw new Error(`--data ${options.dataDir}: no parlance.db there (the SQLite store's file); is it a Parlance data directory?`)
  const out = resolve(options.out)
  if (existsSync(out)) throw new Error(`--out ${options.out} exists; a backup never overwrites a file: choose a new name`)
  if (!existsSync(dirname(out))) throw new Error(`--out ${options.out}: no directory ${dirname(out)}`)
  const { default: Database } = await import('better-sqlite3')
  const db = new Database(src, { readonly: true, fileMustExist: true })
  const partial = `${out}.partial-${process.pid}`
  let restarts = 0
  let lastRemaining = Number.POSITIVE_INFINITY
  const step = options.stepPages ?? 1024
  try {
    db.pragma('busy_timeout = 5000')
    // The copy holds every conversation: created 0600 first, whatever the umask, and SQLite writes into it (the
    // WAL it makes beside it takes the same mode; the rename keeps it).
    closeSync(openSync(partial, 'wx', 0o600))
    chmodSync(partial, 0o600)
    const done = await db.backup(partial, {
      progress: ({ totalPages, remainingPages }) => {
        if (remainingPages > lastRemaining) restarts++ // the source changed between steps: SQLite started over
        lastRemaining = remainingPages
        options.progress?.(totalPages - remainingPages, totalPages)
        return restarts >= MAX_RESTARTS ? 0x7fffffff : step
      },
    })
    db.close()
    const copy = new Database(partial)
    try {
      const check = copy.pragma('quick_check', { simple: true })
      if (check !== 'ok') throw new Error(`the copy failed SQLite's quick_check: ${String(check)}`)
      // One file, no WAL beside it: what a restore copies is complete by itself.
      copy.pragma('wal_checkpoint(TRUNCATE)')
    } finally {
      copy.close()
    }
    rmSync(`${partial}-wal`, { force: true })
    rmSync(`${partial}-shm`, { force: true })
    renameSync(partial, out)
    options.progress?.(done.totalPages, done.totalPages)
    return { pages: done.totalPages, bytes: statSync(out).size, restarts }
  } catch (err) {
    if (db.open) db.close()
    for (const f of [partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`]) rmSync(f, { force: true })
    throw err
  }
}

/** `parlance backup`: the copy, with its progress on stderr (every 5 % of a file of more than one step) and how to restore it. */
export async function backup(options: BackupOptions): Promise<void> {
  let shown = -1
  const started = Date.now()
  const result = await backupSqlite({
    ...options,
    progress(copied, total) {
      const pct = total === 0 ? 100 : Math.floor((copied / total) * 100)
      if (pct === shown || (pct < 100 && pct - shown < 5)) return
      shown = pct
      process.stderr.write(`backup: ${pct}% (${copied} of ${total} pages)\n`)
    },
  })
  const mb = (result.bytes / 1024 / 1024).toFixed(1)
  process.stderr.write(
    `backup: wrote ${options.out} (${mb} MB, ${result.pages} pages) in ${Date.now() - started} ms` +
      (result.restarts ? `; the server wrote meanwhile, ${result.restarts} restart(s)` : '') +
      `\nrestore: put it as parlance.db in a new data directory (with ${join(options.dataDir, 'secret')} beside it if signed exports must stay valid) and serve --data that directory\n`,
  )
}
