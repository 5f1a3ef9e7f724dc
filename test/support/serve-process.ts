// `parlance serve` in a child process, for tests that must kill -9 a server (restart and failover tests).
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { cliArgs } from './node-args.js'

/** A served CLI process and its URL; killed (SIGKILL) when the test ends. */
export interface ServeProcess {
  url: string
  child: ChildProcess
  /** SIGKILL, resolved once the process is reaped: until then a zombie still holds its data directory's lock. */
  kill(): Promise<void>
}

/** How long a `parlance serve` child may take to listen (tsx compiles on a loaded 2-core machine: seconds). */
const START_TIMEOUT_MS = 60_000

/** Starts `parlance serve --port 0 …args` and resolves once it prints its URL. */
export async function spawnServe(t: { after(fn: () => unknown): void }, args: readonly string[], name = 'serve'): Promise<ServeProcess> {
  const child = spawn(process.execPath, cliArgs('serve', '--port', '0', ...args), {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { ...process.env, LOG_LEVEL: 'silent' },
  })
  t.after(() => child.kill('SIGKILL'))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let timer: NodeJS.Timeout | undefined
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000))) // read, so a chatty child never blocks on a full pipe
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before listening: ${out}${err}`)))
    // A start that hangs fails here, naming what it printed, rather than at the test's own timeout minutes later.
    timer = setTimeout(() => reject(new Error(`${name} did not listen within ${START_TIMEOUT_MS / 1000} s: ${out}${err}`)), START_TIMEOUT_MS)
  }).finally(() => clearTimeout(timer))
  return {
    url,
    child,
    async kill() {
      child.kill('SIGKILL')
      await exited
    },
  }
}
