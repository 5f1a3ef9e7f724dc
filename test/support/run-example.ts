// An example of examples/ started as its own process (as a user runs it), for the tests that drive it over a socket.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { TestContext } from 'node:test'

/**
 * Runs `examples/<file>` on a free port; resolves with its HAI URL once it listens. Killed when the test ends. Each
 * runs in a directory of its own, so its default data directory (./.parlance) is its own: two examples started at
 * once from the checkout shared one, and the second refused to start (EDATALOCKED).
 */
export function startExample(t: TestContext, file: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const cwd = mkdtempSync(join(tmpdir(), 'parlance-example-'))
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), resolve('examples', file)], {
    cwd,
    // tsx finds the checkout's tsconfig (its paths map parlance-gateway to src/) through this, not the directory.
    env: { ...process.env, TSX_TSCONFIG_PATH: resolve('tsconfig.json'), PORT: '0', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.after(() => {
    child.kill('SIGKILL')
    rmSync(cwd, { recursive: true, force: true })
  })
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
