// Child processes of a benchmark: servers and load generators, always separate processes on 127.0.0.1,
// each bounded in time. Every child is killed when the runner exits, is interrupted or times out.
import { execSync, spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'

const children = new Set<ChildProcess>()

function killAll(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
}
process.once('exit', killAll)
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    killAll()
    process.exit(130)
  })
}

/** Registers a child so that it is killed when the runner exits. */
export function track(child: ChildProcess): ChildProcess {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

/**
 * Reads a load generator's stdout line by line: `expect(prefix)` resolves with the next line that starts with
 * `prefix` (skipping others), and rejects, naming `what` and the prefix, once the child's output has ended.
 */
export function lineReader(child: ChildProcess, what: string): (prefix: string) => Promise<string> {
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  return async (prefix) => {
    for (;;) {
      const l = await lines.next()
      if (l.done) throw new Error(`${what} ended before "${prefix}"`)
      if (l.value.startsWith(prefix)) return l.value
    }
  }
}

/** The event loop's delay over a stretch (ms), as a bench server started with `--loop-delay` reports it. */
export interface LoopDelay {
  p50: number
  p99: number
  max: number
  /** The most process CPU time spent between two turns of the loop (ms): the server's own longest block. */
  cpuMax: number
}

/** A server process listening on 127.0.0.1. */
export interface ServerProcess {
  readonly port: number
  readonly pid: number
  /**
   * Ends a stretch of event-loop delay sampling (bench/servers/parlance.ts `--loop-delay`) and starts the next: the
   * server reports the stretch since the previous call (or since it started) and starts over.
   */
  loopDelay(): Promise<LoopDelay>
  /** Resident set size of the server process now (bytes), from /proc. */
  rss(): number
  /** SIGTERM, then SIGKILL after 5 s. */
  close(): Promise<void>
}

/** Options of a child process. */
export interface ChildOptions {
  env?: NodeJS.ProcessEnv
  /** Kill the child (and fail) after this long (ms). */
  timeoutMs?: number
  /** Extra node flags (e.g. --expose-gc). */
  nodeFlags?: string[]
}

function nodeArgs(script: string, args: readonly string[], flags: readonly string[] = []): string[] {
  return [...flags, '--import', 'tsx', script, ...args]
}

const CLK_TCK = (() => {
  try {
    return Number(execSync('getconf CLK_TCK').toString().trim()) || 100
  } catch {
    return 100
  }
})()

/** CPU time (user + system) a process has used so far (ms), from /proc/<pid>/stat; 0 when it is gone. */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ') // f[0] is field 3 (state)
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK
  } catch {
    return 0
  }
}

/** Reads VmRSS of a process (bytes); 0 when it is gone. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : 0
  } catch {
    return 0
  }
}

/**
 * Starts a server script (run under tsx) and resolves once it prints `listening PORT`.
 * The server lives until `close()` or until the runner exits.
 */
export function startServer(script: string, args: readonly string[] = [], options: ChildOptions = {}): Promise<ServerProcess> {
  const child = track(
    spawn(process.execPath, nodeArgs(script, args, options.nodeFlags), {
      env: { ...process.env, LOG_LEVEL: 'silent', ...options.env },
      // An IPC channel too: `loopDelay` asks through it (ordered, never merged like signals).
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    }),
  )
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${script} did not start within 30 s: ${out}`))
    }, 30_000)
    const onExit = (code: number | null) => {
      clearTimeout(timer)
      reject(new Error(`${script} ${args.join(' ')} exited with ${code}: ${out}`))
    }
    child.once('exit', onExit)
    // Loop-delay reports, answered in order to the callers waiting for them.
    const delays: Array<(d: LoopDelay) => void> = []
    child.on('message', (m) => delays.shift()?.(m as LoopDelay))
    child.stdout!.on('data', (d: Buffer) => {
      if (out === '\0') return
      if (out.length < 10_000) out += d.toString()
      const m = /listening (?:on http:\/\/127\.0\.0\.1:)?(\d+)/.exec(out)
      if (!m) return
      clearTimeout(timer)
      child.off('exit', onExit)
      out = '\0' // matched once; later output is ignored
      const port = Number(m[1])
      resolve({
        port,
        pid: child.pid!,
        loopDelay: () =>
          new Promise<LoopDelay>((done, fail) => {
            const waiter = (d: LoopDelay) => {
              clearTimeout(t)
              done(d)
            }
            const t = setTimeout(() => {
              delays.splice(delays.indexOf(waiter), 1)
              fail(new Error(`${script} did not report its loop delay (was it started with --loop-delay?)`))
            }, 10_000)
            delays.push(waiter)
            child.send('loop-delay')
          }),
        rss: () => rssOf(child.pid!),
        close: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done()
            const kill = setTimeout(() => child.kill('SIGKILL'), 5_000)
            child.once('exit', () => {
              clearTimeout(kill)
              done()
            })
            child.kill('SIGTERM')
          }),
      })
    })
  })
}

/** Runs a load generator script to completion and parses the JSON it prints last on stdout. */
export function runLoad<T>(script: string, args: readonly string[], options: ChildOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 120_000
  const child = track(
    spawn(process.execPath, nodeArgs(script, args, options.nodeFlags), {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  )
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${script} ${args.join(' ')} timed out after ${timeoutMs} ms`))
    }, timeoutMs)
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      if (code !== 0) return reject(new Error(`${script} ${args.join(' ')} failed (${code ?? signal})`))
      const last = out.trim().split('\n').pop() ?? ''
      try {
        resolve(JSON.parse(last) as T)
      } catch {
        reject(new Error(`${script} printed no JSON: ${out.slice(-500)}`))
      }
    })
  })
}

/** Runs `fn` with a server, closing the server afterwards whatever happens. */
export async function withServer<T>(
  script: string,
  args: readonly string[],
  fn: (s: ServerProcess) => Promise<T>,
  options: ChildOptions = {},
): Promise<T> {
  const server = await startServer(script, args, options)
  try {
    return await fn(server)
  } finally {
    await server.close()
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
