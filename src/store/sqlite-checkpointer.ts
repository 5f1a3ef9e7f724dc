import { Worker } from 'node:worker_threads'
import { driverModule, type SqliteDatabase, type SqliteDriverName } from './sqlite-driver.js'

/** Options of the WAL checkpointer. */
export interface CheckpointerOptions {
  /** The database file (not ':memory:'). */
  file: string
  /** The driver the worker opens it with (the writer's). */
  driver: SqliteDriverName
  /** How often the worker checkpoints (ms). @default 250 */
  everyMs?: number
  /** Told when a checkpoint fails (the next one retries; the WAL only grows meanwhile). */
  onError?: (message: string) => void
  /** The worker stopped without being asked to (it could not start, or crashed): the writer must checkpoint again. */
  onLost: (reason: string) => void
  /** After each of the worker's checkpoints: how many WAL pages it saw, all of them now copied. */
  onCheckpointed?: (walPages: number) => void
}

/** A running checkpointer; `stop` resolves once its connection is closed. */
export interface Checkpointer {
  stop(): Promise<void>
}

// The worker, as CommonJS source evaluated in its own thread (no file of its own to resolve, compiled or not).
// It uses only what both drivers share: a constructor taking the file, exec, prepare and get.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const driver = require(workerData.module)
const db = workerData.module === 'node:sqlite' ? new driver.DatabaseSync(workerData.file) : new driver(workerData.file)
db.exec('PRAGMA busy_timeout = 5000')
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
const timer = setInterval(() => {
  try {
    const r = checkpoint.get()
    if (r && r.checkpointed === r.log) parentPort.postMessage({ pages: r.log })
  } catch (err) {
    parentPort.postMessage({ error: err && err.message ? err.message : String(err) })
  }
}, workerData.everyMs)
parentPort.on('message', (m) => {
  if (m !== 'stop') return
  clearInterval(timer)
  db.close()
  parentPort.close()
})
`

/**
 * Checkpoints a WAL database from a worker thread with its own connection, so that the writer's thread does
 * not copy WAL pages into the database and wait on their fsync itself (SQLite's automatic checkpoint runs
 * inside the commit that crosses 1,000 WAL pages, stalling every stream on that event loop for tens of ms).
 * PASSIVE checkpoints never block the writer. They copy what the WAL held when they started, though, and the
 * WAL starts over only after a checkpoint that caught up with the writer, which one on another thread never
 * does while commits keep coming every few ms: the writer finishes the job (`onCheckpointed`, see sqlite.ts).
 */
export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { file: options.file, module: driverModule(options.driver), everyMs: options.everyMs ?? 250 },
  })
  worker.unref()
  worker.on('message', (m: { error?: string; pages?: number }) => {
    if (m.error) options.onError?.(m.error)
    else if (m.pages !== undefined) options.onCheckpointed?.(m.pages)
  })
  let stopping = false
  let lost = ''
  worker.on('error', (err) => (lost = err.message))
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      if (!stopping) options.onLost(lost || `exited with code ${code}`)
      resolve()
    }),
  )
  return {
    stop() {
      stopping = true
      worker.ref() // the loop waits for the worker's exit (it is unref'd while it runs)
      worker.postMessage('stop')
      return exited
    },
  }
}

/**
 * Checkpoints `db`'s WAL in the background (the writer connection of `file`): SQLite's automatic checkpoint is
 * turned off, and once the WAL holds `restartPages` the writer finishes each of the worker's rounds itself
 * (copying only what it committed since), so that its next commit starts the WAL over. If the worker stops,
 * the writer goes back to SQLite's default.
 */
export function checkpointInBackground(db: SqliteDatabase, file: string, restartPages: number, onError?: (message: string) => void): Checkpointer {
  db.pragma('wal_autocheckpoint = 0')
  return startCheckpointer({
    file,
    driver: db.driver,
    onError,
    onCheckpointed: (pages) => {
      if (pages < restartPages || !db.open) return
      try {
        db.pragma('wal_checkpoint(PASSIVE)')
      } catch (err) {
        onError?.(err instanceof Error ? err.message : String(err))
      }
    },
    onLost: (reason) => {
      if (db.open) db.pragma('wal_autocheckpoint = 1000') // SQLite's default
      onError?.(`the checkpoint worker stopped (${reason}); checkpoints run inline again`)
    },
  })
}
