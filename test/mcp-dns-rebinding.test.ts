// The official MCP conformance suite's `dns-rebinding-protection` scenario against /mcp: an `initialize` with a
// foreign Host and Origin is refused (4xx), one with the server's own loopback Host and Origin is accepted (2xx).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { startServer } from './harness.js'

const require = createRequire(import.meta.url)
const cli = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js')

test('MCP conformance: dns-rebinding-protection passes on a loopback server with the default origin policy', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const args = ['--import', './test/support/node20-fs-glob.mjs', cli, 'server', '--url', `${s.url}/mcp`, '--scenario', 'dns-rebinding-protection']
  const { code, out } = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile(process.execPath, args, { timeout: 60_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    )
  })
  assert.equal(code, 0, out)
  assert.match(out, /localhost-host-rebinding-rejected\W+.*SUCCESS/)
  assert.match(out, /localhost-host-valid-accepted\W+.*SUCCESS/)
  assert.match(out, /Passed: 2\/2, 0 failed/)
})
