// A port in use is said in the CLI's words: the port, and how to pick another (issue 39), not a bare
// `listen EADDRINUSE`. The data directory is released: a second try on a free port starts.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'
import { test } from 'node:test'
import { cliArgs } from './support/node-args.js'

test('parlance serve on a port in use names the port and --port / PORT, and exits 2', async (t) => {
  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.after(() => blocker.close())
  const { port } = blocker.address() as AddressInfo
  const child = spawn(process.execPath, cliArgs('serve', '--port', String(port), '--store', 'memory'), {
    env: { ...process.env, LOG_LEVEL: 'silent' },
  })
  let err = ''
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  assert.equal(code, 2, err)
  assert.match(err, new RegExp(`parlance: port ${port} is already in use on 127\\.0\\.0\\.1 .*--port N \\(or PORT=N; --port 0 picks a free one\\)`))
  assert.doesNotMatch(err, /^listen EADDRINUSE/m)
})
