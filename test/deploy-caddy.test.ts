// Issue 38, part 5: the documented Caddyfile (deploy/Caddyfile) run for real in front of a Parlance server, with
// every kind of stream driven through it (test/deploy-support.ts). Only its site address (plain HTTP on a free
// loopback port instead of the public name, whose certificate Caddy would fetch) and the upstream's port change.
// Needs Debian's caddy (CI installs it: .ci/run); nothing is installed here.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { checkForwardedHeaders, driveEveryDialect, freePort, proxyReady, startParlance, tokenInUrlsAndProtocols, TOKEN } from './deploy-support.js'

const CADDY = '/usr/bin/caddy'

function swap(text: string, from: string, to: string): string {
  assert.equal(text.split(from).length, 2, `deploy/Caddyfile no longer has exactly one "${from}"; update this test with it`)
  return text.replace(from, to)
}

test('the documented Caddyfile in front of Parlance: every dialect streams through it, unbuffered', { timeout: 120_000 }, async (t) => {
  assert.ok(existsSync(CADDY), `${CADDY} is missing: install the distribution's caddy (apt-get install -y caddy), as .ci/run does`)
  const dir = mkdtempSync(join(tmpdir(), 'parlance-caddy-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const parlance = await startParlance(t)
  const port = await freePort()
  let site = readFileSync(new URL('../deploy/Caddyfile', import.meta.url), 'utf8')
  site = swap(site, 'chat.example.com {', `http://127.0.0.1:${port} {`)
  site = swap(site, 'reverse_proxy 127.0.0.1:8000 {', `reverse_proxy 127.0.0.1:${parlance.port} {`)
  site = swap(site, 'output file /var/log/caddy/parlance.access.log', `output file ${join(dir, 'access.log')}`)
  writeFileSync(join(dir, 'site.caddy'), site)
  // No admin endpoint, nothing saved outside the temp dir.
  writeFileSync(join(dir, 'Caddyfile'), `{\n\tadmin off\n}\nimport ${join(dir, 'site.caddy')}\n`)
  const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir }
  const check = spawnSync(CADDY, ['validate', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], { encoding: 'utf8', env, cwd: dir })
  assert.equal(check.status, 0, check.stderr)
  const child = spawn(CADDY, ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
    env,
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let log = ''
  child.stderr.on('data', (d: Buffer) => (log += d.toString()))
  t.after(() => child.kill('SIGTERM'))
  const url = `http://127.0.0.1:${port}`
  await proxyReady(url, child, () => log.slice(-3000))

  await driveEveryDialect(t, url)
  await checkForwardedHeaders(url, parlance.headers, { host: `127.0.0.1:${port}`, forwardedHost: `127.0.0.1:${port}`, proto: 'http' })
  await tokenInUrlsAndProtocols(url)

  // The Caddyfile's log filter: the token sent in queries, a Referer, a subprotocol or a header never lands in it.
  const access = readFileSync(join(dir, 'access.log'), 'utf8')
  assert.match(access, /"uri":"\/inspector\/api\/info"/, 'the request is logged, its query cut off')
  assert.match(access, /"uri":"\/ws"/)
  const leaks = access.split('\n').filter((l) => l.includes(TOKEN))
  assert.deepEqual(leaks, [], "the token reached Caddy's access log")
})
