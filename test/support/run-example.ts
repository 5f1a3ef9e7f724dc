// An example of examples/ started as its own process (as a user runs it), for the tests that drive it over a socket.
import { spawn } from 'node:child_process'
import type { TestContext } from 'node:test'

/** Runs `examples/<file>` on a free port; resolves with its HAI URL once it listens. Killed when the test ends. */
export function startExample(t: TestContext, file: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', `examples/${file}`], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.after(() => child.kill('SIGKILL'))
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /HAI: (ws:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.on('exit', (code) => reject(new Error(`${file} exited with ${code}: ${out}`)))
  })
}
