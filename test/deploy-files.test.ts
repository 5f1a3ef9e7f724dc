// Issue 38, part 5: the deploy files say what docs/deploy.md says they do. No Docker daemon here: the Dockerfile
// and compose file are parsed and checked for their invariants, not built or started; the systemd unit goes
// through `systemd-analyze verify` and the Caddyfile through `caddy adapt` where those are installed; the
// example config file starts a real server.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import { parse as parseYaml } from 'yaml'
import { cliArgs } from './support/node-args.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8')

/** `parlance serve --help`, once: every flag a deploy file passes must be one the CLI knows. */
let help: string | undefined
function serveHelp(): string {
  help ??= spawnSync(process.execPath, cliArgs('serve', '--help'), { cwd: ROOT, encoding: 'utf8' }).stdout
  return help
}
function assertKnownFlags(args: readonly string[], where: string): void {
  for (const a of args) if (a.startsWith('--')) assert.match(serveHelp(), new RegExp(`^  ${a}\\b`, 'm'), `${where}: ${a} is not a serve flag`)
}

/** Dockerfile instructions (continuations joined), split into stages. */
function dockerStages(text: string): Array<Array<{ op: string; args: string }>> {
  const stages: Array<Array<{ op: string; args: string }>> = []
  for (const line of text.replace(/\\\n\s*/g, ' ').split('\n')) {
    const m = /^([A-Z]+)\s+(.*)$/.exec(line.trim())
    if (!m || line.trim().startsWith('#')) continue
    if (m[1] === 'FROM') stages.push([])
    stages.at(-1)?.push({ op: m[1]!, args: m[2]! })
  }
  return stages
}

test('Dockerfile: multi-stage, non-root, a data volume, a health check on /healthz, node the direct child of tini', () => {
  const stages = dockerStages(read('deploy/Dockerfile'))
  assert.ok(stages.length >= 2, 'multi-stage')
  // Node 24: the SQLite store on node:sqlite, so the image compiles nothing (issue 45).
  assert.match(stages[0]![0]!.args, /^node:24\S* AS build$/)
  const build = stages[0]!
  assert.ok(!build.some((i) => i.op === 'RUN' && /rebuild|node-gyp|g\+\+/.test(i.args)), 'no native build in the image')
  for (const { args } of build.filter((i) => i.op === 'COPY')) {
    for (const src of args.split(/\s+/).slice(0, -1))
      assert.ok(existsSync(join(ROOT, src)), `the build stage copies ${src}, which is in the repository`)
  }
  assert.ok(build.some((i) => i.op === 'RUN' && /npm run build/.test(i.args) && /npm prune --omit=dev/.test(i.args)))
  assert.ok(
    (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.build,
    'package.json has the build script the image runs',
  )
  const final = stages.at(-1)!
  const one = (op: string) => {
    const found = final.filter((i) => i.op === op)
    assert.equal(found.length, 1, `one ${op} in the runtime stage`)
    return found[0]!.args
  }
  assert.match(one('FROM'), /^node:24/)
  assert.doesNotMatch(one('USER'), /^(root|0)$/)
  assert.deepEqual(JSON.parse(one('VOLUME')), ['/data'])
  assert.match(one('HEALTHCHECK'), /CMD .*\/healthz/)
  assert.equal(one('STOPSIGNAL'), 'SIGTERM')
  const entry = JSON.parse(one('ENTRYPOINT')) as string[]
  assert.deepEqual(entry.slice(0, 3), ['/usr/bin/tini', '--', 'node'], 'exec form: tini is PID 1, node its direct child')
  assert.match(entry[3]!, /dist\/cli\/main\.js$/)
  assert.equal(entry[4], 'serve')
  const cmd = JSON.parse(one('CMD')) as string[]
  assert.ok(![...entry, ...cmd].some((a) => /\bnp[mx]\b/.test(a)), 'no npm or npx between the signal and the server')
  assertKnownFlags(cmd, 'Dockerfile CMD')
  assert.equal(cmd[cmd.indexOf('--data') + 1], '/data', 'the data directory is the volume')
  for (const { args } of final.filter((i) => i.op === 'COPY')) assert.match(args, /^--from=build /, 'the runtime copies only the build output')
  assert.ok(final.some((i) => i.op === 'RUN' && /apt-get install .*\btini\b/.test(i.args)))
})

test('compose.yaml: Redis with persistence and two nodes, each a cluster node of its own with a required token', () => {
  const doc = parseYaml(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, Record<string, unknown>> }
  const { redis, 'parlance-a': a, 'parlance-b': b } = doc.services
  assert.ok(redis && a && b, 'services redis, parlance-a, parlance-b')
  assert.deepEqual((redis.command as string[]).slice(0, 3), ['redis-server', '--appendonly', 'yes'])
  assert.ok(redis.healthcheck)
  const ids = new Set<string>()
  const ports = new Set<string>()
  for (const node of [a, b]) {
    const build = node.build as { context: string; dockerfile: string }
    assert.ok(existsSync(join(ROOT, 'deploy', build.context, build.dockerfile)), 'the build points at deploy/Dockerfile from the root')
    const command = node.command as string[]
    assertKnownFlags(command, 'compose command')
    assert.equal(command[command.indexOf('--store') + 1], 'redis://redis:6379')
    assert.equal(command[command.indexOf('--host') + 1], '0.0.0.0')
    const env = node.environment as Record<string, string>
    assert.match(env.PARLANCE_TOKEN!, /^\$\{PARLANCE_TOKEN:\?/, 'compose refuses to start without a token')
    ids.add(env.PARLANCE_NODE_ID!)
    for (const p of node.ports as string[]) {
      assert.match(p, /^127\.0\.0\.1:\d+:8000$/, 'published on loopback only')
      ports.add(p)
    }
    assert.ok(Number.parseInt(String(node.stop_grace_period), 10) > 40, 'longer than the 30 s drain and the 10 s stop')
    assert.deepEqual(node.depends_on, { redis: { condition: 'service_healthy' } })
  }
  assert.equal(ids.size, 2, 'each node its own id')
  assert.equal(ports.size, 2)
})

test('systemd unit: node itself with the config file, drain time, the data directory; systemd-analyze verify accepts it', () => {
  const unit = read('deploy/parlance.service')
  const exec = /^ExecStart=(.*)$/m.exec(unit)![1]!.split(/\s+/)
  assert.equal(exec[0], '/usr/bin/node')
  assert.match(exec[1]!, /\/dist\/cli\/main\.js$/)
  assert.equal(exec[2], 'serve')
  assertKnownFlags(exec.slice(3), 'ExecStart')
  assert.doesNotMatch(unit, /^ExecStart=.*\bnp[mx]\b/m)
  assert.match(unit, /^KillSignal=SIGTERM$/m)
  assert.ok(Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)![1]) > 40, 'longer than the 30 s drain and the 10 s stop')
  assert.match(unit, /^StateDirectory=parlance$/m)
  assert.match(unit, /^User=parlance$/m)
  const config = JSON.parse(read('deploy/parlance.json')) as Record<string, unknown>
  assert.equal(config.data, '/var/lib/parlance', 'the config puts the data in the StateDirectory')
  assert.ok(existsSync('/usr/bin/systemd-analyze'), 'systemd-analyze (systemd) is needed to check the unit')
  const r = spawnSync('systemd-analyze', ['verify', join(ROOT, 'deploy/parlance.service')], { encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stderr.trim(), '', 'no warnings (unknown keys, missing executables)')
})

test('deploy/parlance.json is a config file the CLI accepts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-deploy-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  // The file's agent, data directory and port are the deployment's; the flags override just those.
  const child = spawn(process.execPath, cliArgs('serve', '--config', 'deploy/parlance.json', '--agent', 'demo', '--data', dir, '--port', '0'), {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', PARLANCE_TOKEN: 'x' },
  })
  t.after(() => child.kill('SIGKILL'))
  let out = ''
  let err = ''
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  const started = await new Promise<boolean>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (/health:/.test(out)) resolve(true)
    })
    child.once('exit', () => resolve(false))
  })
  assert.ok(started, err)
  assert.match(out, /listening on http:\/\/127\.0\.0\.1:\d+/)
})

test('Caddyfile: caddy adapt accepts it; one site proxied to Parlance with flushing on', () => {
  assert.ok(existsSync('/usr/bin/caddy'), 'caddy is missing: apt-get install -y caddy, as .ci/run does')
  const r = spawnSync('/usr/bin/caddy', ['adapt', '--config', join(ROOT, 'deploy/Caddyfile'), '--adapter', 'caddyfile'], {
    encoding: 'utf8',
    cwd: tmpdir(),
  })
  assert.equal(r.status, 0, r.stderr)
  const json = r.stdout
  assert.match(json, /"handler":"reverse_proxy"/)
  assert.match(json, /"flush_interval":-1/)
  assert.match(json, /"dial":"127\.0\.0\.1:8000"/)
})

test('docs/deploy.md names every deploy file, and the README links it', () => {
  const guide = read('docs/deploy.md')
  for (const f of ['Dockerfile', 'compose.yaml', 'parlance.service', 'parlance.json', 'nginx.conf', 'Caddyfile']) {
    assert.ok(existsSync(join(ROOT, 'deploy', f)))
    assert.ok(guide.includes(`(../deploy/${f})`), `docs/deploy.md links deploy/${f}`)
  }
  assert.match(read('README.md'), /\]\(docs\/deploy\.md\)/)
  assert.match(read('deploy/nginx.conf'), /server 127\.0\.0\.1:8000;/, 'the upstream is the port the guide starts Parlance on')
})
