// `parlance serve --allow-origin / --allow-host` (and their environment variables) set the origin policy every
// route and upgrade applies; the banner says which is in force. Requests go to 127.0.0.1 only: the foreign
// names are Host/Origin header values, never addresses.
import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { request } from 'node:http'
import { test } from 'node:test'
import { WebSocket } from 'ws'
import { cliArgs } from './support/node-args.js'

function serve(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, cliArgs('serve', '--port', '0', '--store', 'memory', ...args), {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
  })
}

/** The banner, once the server listens (or the process's output when it exits first). */
function banner(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (/browser: .*\n/.test(out)) resolve(out)
    })
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)))
  })
}

function get(
  url: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const u = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }))
    })
    req.on('error', reject)
    req.end()
  })
}

function upgradeStatus(url: string, origin: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { origin })
    ws.on('open', () => {
      ws.close()
      resolve(101)
    })
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.on('error', reject)
  })
}

test('--allow-origin: exactly the listed origins get CORS and WebSocket upgrades; loopback pages are no longer the default', async (t) => {
  const child = serve(['--allow-origin', 'http://app.test:3000', '--allow-origin', 'https://*.preview.test'])
  t.after(() => child.kill('SIGKILL'))
  const out = await banner(child)
  assert.match(out, /browser: origins: http:\/\/app\.test:3000, https:\/\/\*\.preview\.test and same-origin pages/)
  const url = /listening on (http:\/\/\S+)/.exec(out)![1]!
  const pre = await get(
    `${url}/api/chat`,
    { origin: 'http://app.test:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    'OPTIONS',
  )
  assert.equal(pre.status, 204)
  assert.equal(pre.headers['access-control-allow-origin'], 'http://app.test:3000')
  assert.equal(
    (await get(`${url}/healthz`, { origin: 'https://pr-7.preview.test' })).headers['access-control-allow-origin'],
    'https://pr-7.preview.test',
  )
  const local = await get(`${url}/healthz`, { origin: 'http://localhost:3000' })
  assert.equal(local.status, 403, 'only the listed origins')
  assert.equal(local.headers['access-control-allow-origin'], undefined)
  const ws = url.replace('http', 'ws')
  assert.equal(await upgradeStatus(`${ws}/ws`, 'http://app.test:3000'), 101)
  assert.equal(await upgradeStatus(`${ws}/myagent`, 'http://localhost:3000'), 403)
})

test('PARLANCE_ALLOW_ORIGIN and PARLANCE_ALLOW_HOST set the same policy; a foreign Host is refused unless allowed; --allow-origin * alone', async (t) => {
  const child = serve([], { PARLANCE_ALLOW_ORIGIN: 'http://app.test:3000, http://other.test', PARLANCE_ALLOW_HOST: 'parlance.test' })
  t.after(() => child.kill('SIGKILL'))
  const out = await banner(child)
  assert.match(out, /origins: http:\/\/app\.test:3000, http:\/\/other\.test and same-origin pages; Host: loopback names, parlance\.test/)
  const url = /listening on (http:\/\/\S+)/.exec(out)![1]!
  const port = new URL(url).port
  assert.equal((await get(`${url}/healthz`, { host: `parlance.test:${port}` })).status, 200)
  assert.equal((await get(`${url}/healthz`, { host: `evil.test:${port}` })).status, 403)
  assert.equal((await get(`${url}/healthz`, { origin: 'http://other.test' })).headers['access-control-allow-origin'], 'http://other.test')

  const bad = serve(['--allow-origin', '*', '--allow-origin', 'http://x.test'])
  const err = await banner(bad).then(
    () => assert.fail('serve started with * and a list'),
    (e: Error) => e.message,
  )
  assert.match(err, /--allow-origin \* allows every page already/)
  const invalid = serve(['--allow-origin', 'app.test:3000'])
  assert.match(
    await banner(invalid).then(
      () => '',
      (e: Error) => e.message,
    ),
    /invalid origin "app\.test:3000": an origin is scheme:\/\/host\[:port\]/,
  )
})
