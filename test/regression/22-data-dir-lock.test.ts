// Issue 22, finding 2: two servers started from one directory shared ./.parlance; both wrote the same sessions,
// one logged "seq gap … retrying" forever and froze. A second process now refuses the directory at start,
// naming it and the process that holds it; a lock left by a killed process is taken over.
import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { cliArgs } from '../support/node-args.js'

function serve(dataDir: string): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, cliArgs('serve', '--port', '0', '--data', dataDir), { env: { ...process.env, LOG_LEVEL: 'silent' } })
}

/** Resolves when the server listens, or with its exit code and stderr when it exits first. */
function outcome(child: ChildProcessWithoutNullStreams): Promise<{ listening: true } | { listening: false; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (/health:/.test(out)) resolve({ listening: true })
    })
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.once('exit', (code) => resolve({ listening: false, code, stderr: err }))
  })
}

test('a second server refuses a data directory in use, naming it and the holder; a killed holder does not lock it forever', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-lock-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const first = serve(dir)
  t.after(() => first.kill('SIGKILL'))
  assert.deepEqual(await outcome(first), { listening: true })

  const second = serve(dir)
  t.after(() => second.kill('SIGKILL'))
  const refused = await outcome(second)
  assert.equal(refused.listening, false, 'the second server must not start')
  if (refused.listening) return
  assert.notEqual(refused.code, 0, 'it exits with an error code')
  assert.ok(refused.stderr.includes(dir), `the message names the directory: ${refused.stderr}`)
  assert.ok(refused.stderr.includes(`process ${first.pid}`), `the message names the holder: ${refused.stderr}`)

  first.kill('SIGKILL')
  await new Promise((r) => first.once('exit', r))
  const third = serve(dir)
  t.after(() => third.kill('SIGKILL'))
  assert.deepEqual(await outcome(third), { listening: true }, 'the lock of a killed process is taken over')
})
