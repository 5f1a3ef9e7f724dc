// `npm test` on a fresh machine (issue 46): scripts/pretest.mjs, run as npm's pretest step and by .ci/run, stops
// before the suite with each missing program's package and the command to install it.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { freePort } from './deploy-support.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const script = (...args: string[]) => spawnSync(process.execPath, ['scripts/pretest.mjs', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 })

test('a machine without Chromium, nginx, Caddy or Redis: pretest fails at once, naming each package and the command', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'parlance-pretest-'))
  t.after(() => rmSync(empty, { recursive: true, force: true }))
  const closed = await freePort() // nothing listens there
  const r = script('--no-install', '--root', empty, '--redis', `127.0.0.1:${closed}`)
  assert.equal(r.status, 1, r.stderr)
  for (const [what, pkg] of [
    ['Chromium at /usr/bin/chromium', 'chromium'],
    ['nginx at /usr/sbin/nginx', 'nginx'],
    ['Caddy at /usr/bin/caddy', 'caddy'],
    [`Redis answering at 127.0.0.1:${closed}`, 'redis-server'],
  ] as const) {
    assert.ok(r.stderr.includes(what), `names ${what}:\n${r.stderr}`)
    assert.ok(r.stderr.includes(`Debian package "${pkg}"`), `names the package ${pkg}`)
  }
  assert.match(r.stderr, /sudo apt-get install -y chromium nginx caddy redis-server/)
  assert.match(r.stderr, /start Redis/)
})

test('this machine has what the suite needs: pretest passes, and npm test and .ci/run both run it', () => {
  const r = script('--no-install')
  assert.equal(r.status, 0, r.stderr)
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  assert.equal(pkg.scripts.pretest, 'node scripts/pretest.mjs')
  const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8')
  assert.match(ci, /^node scripts\/pretest\.mjs$/m)
  assert.doesNotMatch(ci, /^[^#]*apt-get/m, '.ci/run keeps no list of its own')
})
