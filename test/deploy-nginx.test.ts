// Issue 38, part 5: the documented nginx site (deploy/nginx.conf) run for real in front of a Parlance server,
// with TLS (a certificate made here with openssl), and every kind of stream driven through it with the
// dialects' own clients: HAI over WebSocket, AG-UI's SSE with a resume, HUMA over Socket.IO polling and
// WebSocket, and the AI SDK's /api/chat. Streaming must not be buffered: a gated agent says its first token,
// then waits for the test to have received it before finishing the run.
// Needs nginx from the distribution (CI installs it: .ci/run); nothing is installed here.
import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import tls from 'node:tls'
import { Agent, setGlobalDispatcher } from 'undici'
import { checkForwardedHeaders, driveEveryDialect, freePort, proxyReady, startParlance, tokenInUrlsAndProtocols, TOKEN } from './deploy-support.js'

const NGINX = '/usr/sbin/nginx'
const SITE = new URL('../deploy/nginx.conf', import.meta.url)

/** Replaces `from` (which must occur exactly once) in the site file: the test changes ports and paths only. */
function swap(text: string, from: string, to: string): string {
  assert.equal(text.split(from).length, 2, `deploy/nginx.conf no longer has exactly one "${from}"; update this test with it`)
  return text.replace(from, to)
}

/** Runs the documented site under a non-daemon nginx with its own prefix, pid and temp dirs; resolves with its https URL. */
async function startNginx(dir: string, upstreamPort: number): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const [http, https] = [await freePort(), await freePort()]
  let site = readFileSync(SITE, 'utf8')
  site = swap(site, 'server 127.0.0.1:8000;', `server 127.0.0.1:${upstreamPort};`)
  site = swap(site, 'listen 80;', `listen 127.0.0.1:${http};`)
  site = swap(site, 'listen 443 ssl http2;', `listen 127.0.0.1:${https} ssl http2;`)
  // Only loopback here: the IPv6 wildcard listeners go.
  site = swap(site, '    listen [::]:80;\n', '')
  site = swap(site, '    listen [::]:443 ssl http2;\n', '')
  site = swap(site, '/etc/letsencrypt/live/chat.example.com/fullchain.pem', join(dir, 'cert.pem'))
  site = swap(site, '/etc/letsencrypt/live/chat.example.com/privkey.pem', join(dir, 'key.pem'))
  const accessLog = '/var/log/nginx/parlance.access.log'
  assert.equal(site.split(accessLog).length, 3, `deploy/nginx.conf no longer logs both servers to ${accessLog}; update this test with it`)
  site = site.split(accessLog).join(join(dir, 'logs/access.log'))
  writeFileSync(join(dir, 'parlance.conf'), site)
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi', 'logs']) mkdirSync(join(dir, d))
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log info;
events { worker_connections 256; }
http {
  access_log ${dir}/logs/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/parlance.conf;
}
`,
  )
  const check = spawnSync(NGINX, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')], { encoding: 'utf8' })
  assert.equal(check.status, 0, `nginx -t refused the site:\n${check.stderr}`)
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const log = () => `${stderr}${existsSync(join(dir, 'logs/error.log')) ? readFileSync(join(dir, 'logs/error.log'), 'utf8').slice(-3000) : ''}`
  const url = `https://127.0.0.1:${https}`
  await proxyReady(url, child, log)
  // The redirect server block answers too.
  const redirect = await fetch(`http://127.0.0.1:${http}/x`, { redirect: 'manual' })
  assert.equal(redirect.status, 301)
  assert.equal(redirect.headers.get('location'), 'https://127.0.0.1/x')
  return { url, child, log }
}

test('the documented nginx site in front of Parlance: every dialect streams through it, unbuffered', { timeout: 120_000 }, async (t) => {
  assert.ok(existsSync(NGINX), `${NGINX} is missing: install the distribution's nginx (apt-get install -y nginx), as .ci/run does`)
  const dir = mkdtempSync(join(tmpdir(), 'parlance-nginx-'))
  chmodSync(dir, 0o755) // nginx's workers may run as another user
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const cert = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { encoding: 'utf8' },
  )
  assert.equal(cert.status, 0, `openssl could not make a test certificate: ${cert.stderr}`)
  const ca = readFileSync(join(dir, 'cert.pem'))
  // fetch (AguiClient, the ai transport) trusts the test certificate: where Node can add to its default CAs (24+), so;
  // on Node 20 through the undici package's dispatcher. (On Node 26 the built-in fetch no longer takes undici 6's
  // Agent as its global dispatcher: every request through the proxy hung.)
  const tlsDefaults = tls as typeof tls & { setDefaultCACertificates?: (certs: string[]) => void; getCACertificates?: (kind: string) => string[] }
  if (tlsDefaults.setDefaultCACertificates && tlsDefaults.getCACertificates) {
    tlsDefaults.setDefaultCACertificates([...tlsDefaults.getCACertificates('default'), ca.toString()])
  } else setGlobalDispatcher(new Agent({ connect: { ca } }))

  const parlance = await startParlance(t)
  const nginx = await startNginx(dir, parlance.port)
  t.after(() => nginx.child.kill('SIGTERM'))
  const url = nginx.url

  await driveEveryDialect(t, url, ca)
  await checkForwardedHeaders(url, parlance.headers, { host: '127.0.0.1', forwardedHost: new URL(url).host, proto: 'https' })
  await tokenInUrlsAndProtocols(url, ca)

  // What nginx forwarded: its access log has every dialect's path, answered without a proxy error.
  const access = readFileSync(join(dir, 'logs/access.log'), 'utf8')
  for (const path of ['/ws', '/agui', '/agui/threads/', '/socket.io/', '/api/chat']) {
    assert.ok(access.includes(path), `${path} went through nginx`)
  }
  // Over HTTP/1.1 or HTTP/2: Node 26's fetch negotiates h2 with the site (it listens `ssl http2`).
  assert.match(access, /"GET \/inspector\/api\/info HTTP\/(?:1\.1|2\.0)" 200/, 'the inspector API went through nginx')
  // The site's log format keeps query strings (and the Referer's) out: the token sent in them never lands here.
  assert.ok(
    !access.includes(TOKEN),
    `the token reached nginx's access log:\n${access
      .split('\n')
      .filter((l) => l.includes(TOKEN))
      .join('\n')}`,
  )
  assert.ok(!access.includes('?'), 'no query string in the access log')
  assert.doesNotMatch(access, /" 50[234] /, `no 502/503/504 from nginx:\n${nginx.log()}`)
})
