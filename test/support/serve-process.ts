// `parlance serve` in a child process, for tests that must kill -9 a server (restart and failover tests).
import type { ChildProcess } from 'node:child_process'
import { cliChild, exited } from './cli-child.js'

/** A served CLI process and its URL; killed (SIGKILL) when the test ends. */
export interface ServeProcess {
  url: string
  child: ChildProcess
  /** SIGKILL, resolved once the process is reaped: until then a zombie still holds its data directory's lock. */
  kill(): Promise<void>
}

/** How long a `parlance serve` child may take to listen (tsx compiles on a loaded 2-core machine: seconds). */
const START_TIMEOUT_MS = 60_000
/** What `parlance serve` prints once it listens. */
const LISTENING = /listening on (http:\/\/\S+)/

/**
 * Starts `parlance serve --port 0 …args` and resolves once it prints its URL. A start that hangs fails after
 * START_TIMEOUT_MS with what the child printed, rather than at the test's own timeout minutes later; one that exits
 * first fails at once.
 */
export async function spawnServe(t: { after(fn: () => unknown): void }, args: readonly string[], name = 'serve'): Promise<ServeProcess> {
  const child = cliChild('serve', ['--port', '0', ...args], START_TIMEOUT_MS, { LOG_LEVEL: 'silent' })
  t.after(() => child.kill('SIGKILL'))
  const code = exited(child)
  const died = code.then((c) => Promise.reject(new Error(`${name} exited (${c}) before listening: ${child.out()}`)))
  died.catch(() => {}) // only read if the child exits before it listens
  await Promise.race([child.until(LISTENING), died])
  return {
    url: LISTENING.exec(child.out())![1]!,
    child,
    async kill() {
      child.kill('SIGKILL')
      await code
    },
  }
}
