// What the test suite needs besides node_modules, checked before it starts (`npm test` runs this as `pretest`;
// .ci/run runs it first too, so both share this one list): Chromium for the inspector's and the browser tests
// (driven through playwright-core, never a downloaded browser), nginx and Caddy for the deploy tests, Redis on
// 127.0.0.1:6379 for the store, cluster and Socket.IO tests. What is missing is installed the way .ci/run always
// did (Debian's packages through apt-get, as root or through passwordless sudo); otherwise each missing piece is
// named with its package and the exact command, and the run stops here instead of failing mid-suite.
// Usage: node scripts/pretest.mjs [--no-install] [--root DIR] [--redis HOST:PORT]
//   --no-install  only check and explain; --root DIR looks for the programs under DIR and installs nothing (tests
//   of this script);
//   --redis       where Redis should answer (default: the host:port of PARLANCE_TEST_REDIS_URL, which the tests use
//                 instead of 127.0.0.1:6379 when it is set — test/support/redis.ts — else 127.0.0.1:6379)
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Every program the tests need: where they look for it, Debian's package, and what needs it. */
export const PROGRAMS = [
  { name: 'Chromium', path: '/usr/bin/chromium', pkg: 'chromium', for: 'the inspector and browser tests (test/inspector.test.ts, test/browser/)' },
  { name: 'nginx', path: '/usr/sbin/nginx', pkg: 'nginx', for: 'test/deploy-nginx.test.ts (deploy/nginx.conf)' },
  { name: 'Caddy', path: '/usr/bin/caddy', pkg: 'caddy', for: 'test/deploy-caddy.test.ts (deploy/Caddyfile)' },
]
/** Redis: the package, and the server binary that starts it where no service manager does. */
export const REDIS = { name: 'Redis', pkg: 'redis-server', server: '/usr/bin/redis-server', for: 'the Redis store, cluster and Socket.IO tests' }

/** True once `host:port` answers PING with PONG (within `timeoutMs`). */
export function redisAnswers(address, timeoutMs = 2000) {
  const i = address.lastIndexOf(':')
  const host = address.slice(0, i)
  const port = Number(address.slice(i + 1))
  return new Promise((resolve) => {
    const socket = connect({ host, port })
    let got = ''
    const done = (ok) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(ok)
    }
    const timer = setTimeout(() => done(false), timeoutMs)
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.on('data', (d) => {
      got += d.toString()
      if (got.includes('\r\n')) done(got.startsWith('+PONG'))
    })
    socket.once('error', () => done(false))
    socket.once('close', () => done(false))
  })
}

/** What is missing: programs by their paths (under `root`), and whether Redis answers at `redis`. */
export async function missing({ root = '/', redis = '127.0.0.1:6379' } = {}) {
  const programs = PROGRAMS.filter((p) => !existsSync(join(root, p.path)))
  const redisDown = !(await redisAnswers(redis))
  return { programs, redis: redisDown ? { ...REDIS, address: redis, installed: existsSync(join(root, REDIS.server)) } : null }
}

/** How to run apt-get here: directly as root, through passwordless sudo, or not at all (null). */
function privileged() {
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get')) return null
  if (process.getuid?.() === 0) return []
  return spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0 ? ['sudo', '-n'] : null
}

function run(prefix, cmd, args) {
  const [bin, ...rest] = [...prefix, cmd, ...args]
  return spawnSync(bin, rest, { stdio: ['ignore', 'ignore', 'inherit'] }).status === 0
}

/** Installs `pkgs` with apt-get (updating the package lists once if the first try fails); true on success. */
function aptInstall(prefix, pkgs) {
  const env = ['env', 'DEBIAN_FRONTEND=noninteractive']
  const install = () => run(prefix, env[0], [env[1], 'apt-get', 'install', '-y', '-q', ...pkgs])
  return install() || (run(prefix, 'apt-get', ['update', '-q']) && install())
}

/** The message for what is still missing: each piece, its package, and the command that installs it. */
export function advice(left) {
  const lines = ['The test suite needs programs this machine lacks (npm test stops here rather than mid-suite):']
  for (const p of left.programs) lines.push(`  - ${p.name} at ${p.path}, for ${p.for}: Debian package "${p.pkg}"`)
  if (left.redis) lines.push(`  - ${left.redis.name} answering at ${left.redis.address}, for ${left.redis.for}: Debian package "${left.redis.pkg}"`)
  const pkgs = [...left.programs.map((p) => p.pkg), ...(left.redis && !left.redis.installed ? [left.redis.pkg] : [])]
  if (pkgs.length > 0) lines.push('', `Install with:  sudo apt-get update && sudo apt-get install -y ${pkgs.join(' ')}`)
  if (left.redis)
    lines.push(
      `${pkgs.length > 0 ? 'Then start' : 'Start'} Redis:  sudo systemctl start redis-server   (no systemd: redis-server --daemonize yes --bind 127.0.0.1)`,
      'or point the tests at a Redis of yours:  PARLANCE_TEST_REDIS_URL=redis://host:port npm test',
    )
  lines.push('Or run .ci/run, which installs them and then runs npm test.')
  return lines.join('\n')
}

async function main(argv) {
  const arg = (name) => {
    const i = argv.indexOf(name)
    return i >= 0 ? argv[i + 1] : undefined
  }
  const fromEnv = process.env.PARLANCE_TEST_REDIS_URL ? new URL(process.env.PARLANCE_TEST_REDIS_URL) : undefined
  const opts = { root: arg('--root') ?? '/', redis: arg('--redis') ?? (fromEnv ? `${fromEnv.hostname}:${fromEnv.port || 6379}` : '127.0.0.1:6379') }
  let left = await missing(opts)
  const prefix = argv.includes('--no-install') || opts.root !== '/' ? null : privileged()
  if (prefix && (left.programs.length > 0 || (left.redis && !left.redis.installed))) {
    const pkgs = [...left.programs.map((p) => p.pkg), ...(left.redis && !left.redis.installed ? [REDIS.pkg] : [])]
    console.error(`pretest: installing ${pkgs.join(', ')} (apt-get)`)
    aptInstall(prefix, pkgs)
    // The tests run their own nginx and Caddy on loopback; the packages' services (port 80 on every address) stay off.
    if (existsSync('/run/systemd/system')) run(prefix, 'systemctl', ['disable', '--now', 'nginx', 'caddy'])
    left = await missing(opts)
  }
  if (prefix && left.redis?.installed && opts.redis === '127.0.0.1:6379') {
    console.error('pretest: starting Redis on 127.0.0.1:6379')
    if (!(existsSync('/run/systemd/system') && run(prefix, 'systemctl', ['start', 'redis-server']))) {
      run(prefix, 'redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379'])
    }
    left = await missing(opts)
  }
  if (left.programs.length === 0 && !left.redis) return 0
  console.error(advice(left))
  return 1
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main(process.argv.slice(2))
