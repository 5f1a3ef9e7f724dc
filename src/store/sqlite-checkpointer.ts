import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/** Options of the WAL checkpointer. */
export interface CheckpointerOptions {
  /** The database file (not ':memory:'). */
  file: string
  /** How often the worker checkpoints (ms). @default 250 */
  everyMs?: number
  /** Told when a checkpoint fails (the next one retries; the WAL only grows meanwhile). */
  onError?: (message: string) => void
  /** The worker stopped without being asked to (it could not start, or crashed): the writer must checkpoint again. */
  onLost: (reason: string) => void
}

/** A running checkpointer; `stop` resolves once its connection is closed. */
export interface Checkpointer {
  stop(): Promise<void>
}

// The worker, as CommonJS source evaluated in its own thread (no file of its own to resolve, compiled or not).
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.module)
const db = new Database(workerData.file)
db.pragma('busy_timeout = 5000')
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
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
 * Checkpoints a WAL database from a worker thread with its own connection, so that the writer's thread seldom
 * copies WAL pages into the database or waits on their fsync (SQLite's automatic checkpoint runs inside the
 * commit that crosses 1,000 WAL pages, stalling every stream on that event loop for up to tens of ms). PASSIVE
 * checkpoints never block the writer. The writer keeps a (rarer) automatic checkpoint of its own: see
 * `INLINE_CHECKPOINT_PAGES` in sqlite.ts for why.
 */
export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { file: options.file, module: createRequire(import.meta.url).resolve('better-sqlite3'), everyMs: options.everyMs ?? 250 },
  })
  worker.unref()
  worker.on('message', (m: { error?: string }) => {
    if (m.error) options.onError?.(m.error)
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
