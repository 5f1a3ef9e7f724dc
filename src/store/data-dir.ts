import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Files of a SQLite data directory that hold conversations: the database and the WAL and shared-memory files beside it. */
const DATABASE_FILES = ['parlance.db', 'parlance.db-wal', 'parlance.db-shm']

/**
 * Makes a SQLite data directory private to its owner, whatever the umask, before the store opens it: a missing
 * directory is created 0700 and a missing database file 0600 (set explicitly, as the umask may loosen what
 * `mkdir`/`open` ask for). SQLite creates `-wal` and `-shm` itself with the database file's permissions, so they
 * are 0600 too, whichever driver opens the file. An existing directory or file is left as it is (its owner may
 * have reasons, e.g. a group-readable backup volume); what is open to group or others is returned, for the
 * caller to warn about, as PostgreSQL does about its data directory.
 */
export function prepareDataDir(dir: string): { created: boolean; open: string[] } {
  let created = false
  try {
    statSync(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    chmodSync(dir, 0o700)
    created = true
  }
  const db = join(dir, DATABASE_FILES[0]!)
  try {
    createPrivateFile(db) // an empty file is an empty SQLite database
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  const open: string[] = []
  for (const path of [dir, ...DATABASE_FILES.map((f) => join(dir, f))]) {
    const mode = modeOf(path)
    if (mode !== null && (mode & 0o077) !== 0) open.push(`${path} (${mode.toString(8).padStart(4, '0')})`)
  }
  return { created, open }
}

/** Creates `path` empty with mode 0600 whatever the umask (fails if it exists): a file SQLite then writes into. */
export function createPrivateFile(path: string): void {
  closeSync(openSync(path, 'wx', 0o600))
  chmodSync(path, 0o600)
}

function modeOf(path: string): number | null {
  try {
    return statSync(path).mode & 0o777
  } catch {
    return null
  }
}
