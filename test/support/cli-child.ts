import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { cliArgs } from './node-args.js'

/** A `parlance` CLI child whose output (stdout and stderr, as one text) tests read and wait on. */
export type CliChild = ChildProcessWithoutNullStreams & {
  /** Everything the child has written so far. */
  out(): string
  /** Resolves once the output matches `pattern`; rejects with the output after `ms`. */
  until(pattern: RegExp, ms?: number): Promise<void>
}

/** Spawns `parlance <command> …args` from the compiled tree with colours off (and `env` added to the environment). */
export function cliChild(command: string, args: string[], defaultWaitMs = 60_000, env: NodeJS.ProcessEnv = {}): CliChild {
  const child = spawn(process.execPath, cliArgs(command, ...args), { env: { ...process.env, NO_COLOR: '1', ...env } })
  let out = ''
  const waiters = new Set<() => void>()
  const wake = (d: Buffer) => {
    out += d.toString()
    for (const w of waiters) w()
  }
  child.stdout.on('data', wake)
  child.stderr.on('data', wake)
  return Object.assign(child, {
    out: () => out,
    until: (pattern: RegExp, ms = defaultWaitMs) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(out)) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no ${pattern} within ${ms} ms in:\n${out}`))
        }, ms)
        waiters.add(check)
        check()
      }),
  })
}

/** The child's exit code, once it has exited. */
export const exited = (c: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => (c.exitCode !== null ? resolve(c.exitCode) : c.once('exit', resolve)))
