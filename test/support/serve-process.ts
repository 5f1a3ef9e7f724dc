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

/** Starts `parlance serve --port 0 …args` and resolves once it prints its URL. */
export async function spawnServe(t: { after(fn: () => unknown): void }, args: readonly string[], name = 'serve'): Promise<ServeProcess> {
  const child = spawn(process.execPath, cliArgs('serve', '--port', '0', ...args), {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { ...process.env, LOG_LEVEL: 'silent' },
  })
  t.after(() => child.kill('SIGKILL'))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before listening: ${out}`)))
  })
  return {
    url,
    child,
    async kill() {
      child.kill('SIGKILL')
      await exited
    },
  }
}
