/** Options of the SQLite backend. */
export interface SqliteStoreOptions {
  /** Database file; ':memory:' for a throwaway database. */
  file: string
  /**
   * SQLite `synchronous` pragma. 'normal' (with WAL) survives a process crash
   * and kill -9; 'full' also survives power loss, at a cost per commit.
   * @default 'normal'
   */
  synchronous?: 'normal' | 'full'
  /** A session's journaled events move into its blocks once this many wait… @default 128 */
  compactEvents?: number
  /** …or once the oldest has waited this long (ms). @default 2000 */
  compactAfterMs?: number
  /**
   * A session with this many events in one commit (a burst: a short answer whole) skips the journal: they are
   * written as a block at once, serialized once instead of twice. Its own place in the blocks costs a page
   * touched per commit, which the journal avoids for sessions writing a token or two per commit; a burst
   * this size fills most of that page anyway. @default 16
   */
  directEvents?: number
  /**
   * Where WAL checkpoints run: 'worker' (a thread of its own with its own connection copies pages every 250 ms;
   * the writer then copies the few committed meanwhile once the WAL holds 1,000 pages, so it can start over)
   * or 'inline' (SQLite's automatic checkpoint: the commit that crosses 1,000 WAL pages copies them all and
   * waits for the fsyncs, stalling the event loop for tens of ms). ':memory:' databases have no WAL file and
   * ignore this. @default 'worker'
   */
  checkpoint?: 'worker' | 'inline'
  /** Told when a background checkpoint fails or its worker stops (the store then checkpoints inline). */
  onCheckpointError?: (message: string) => void
  /** Told before and after opening the file upgrades its data (a migration that moves rows). */
  onMigration?: (message: string) => void
  /**
   * The SQLite binding: 'node' (Node's built-in node:sqlite) or 'better-sqlite3' (the optional peer package).
   * @default the `PARLANCE_SQLITE_DRIVER` environment variable, else node:sqlite on Node 24.15 and later,
   * else better-sqlite3 if installed, else node:sqlite where Node 22.16+ has it (with Node's ExperimentalWarning)
   */
  driver?: 'node' | 'better-sqlite3'
}
