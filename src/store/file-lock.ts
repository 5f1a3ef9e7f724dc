import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'

/** Who holds a lock file. */
interface Holder {
  pid: number
  host: string
  since: string
  command: string
}

/** A database file is in use by another live process. */
export class FileInUseError extends Error {
  override readonly name = 'FileInUseError'
  readonly code = 'EDATALOCKED'
}

/** Is `pid` a running process? A zombie (killed, not yet reaped by its parent) is not. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    // Linux: the state after the command name in /proc/<pid>/stat; Z is a zombie.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true // no /proc: the signal check is all there is
  }
}

function readHolder(path: string): Holder | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Holder
  } catch {
    return null
  }
}

/**
 * Takes an advisory lock on `file` (a `<file>.lock` beside it holding the owner's pid, host and start time), so
 * two processes never write one database — two servers started from the same directory used to interleave
 * their seqs and freeze each other. A lock whose process is gone (kill -9, a crash) is taken over; one held by a
 * live process, or by another host (a shared disk: its pid cannot be checked here), refuses with a message
 * naming the file and the holder. Returns the release function.
 */
export function lockFile(file: string, what: string): () => void {
  const path = `${file}.lock`
  const me: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command: process.argv.slice(1).join(' ').slice(0, 200) }
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o644)
      writeSync(fd, JSON.stringify(me))
      closeSync(fd)
      return () => {
        if (readHolder(path)?.pid === me.pid) rmSync(path, { force: true })
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const holder = readHolder(path)
    const sameHost = holder?.host === me.host
    if (holder && sameHost && holder.pid === process.pid) {
      // This process already holds it (a second store on the same file in one process): the caller's business.
      return () => {}
    }
    if (holder && (!sameHost || alive(holder.pid))) {
      throw new FileInUseError(
        `${what} is in use by process ${holder.pid} on ${holder.host} (since ${holder.since}: ${holder.command || 'unknown command'}). ` +
          `Two servers must not share one data directory: stop that process, or give this one its own (--data DIR). ` +
          (sameHost ? '' : `If that host is gone, delete ${path}.`),
      )
    }
    rmSync(path, { force: true }) // stale: its process is gone
  }
  throw new FileInUseError(`${what}: could not take the lock ${path}`)
}
