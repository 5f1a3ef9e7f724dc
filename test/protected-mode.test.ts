// Issue 38, part 1: no open server by accident. With auth off, listen() refuses every address but loopback
// (before any socket is bound: these tests never listen anywhere but 127.0.0.1), unless the caller opts in; the
// inspector can be turned off; with auth on, its API needs the credentials like every endpoint.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { test } from 'node:test'
import { textOf } from '../src/client/index.js'
import { createServer, demoAgent } from '../src/index.js'
import { isLoopbackHost, protectedModeError, ProtectedModeError } from '../src/server/protected-mode.js'
import { startServer } from './harness.js'
import { cliArgs } from './support/node-args.js'

test('loopback or not: what protected mode lets through', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])
    assert.equal(isLoopbackHost(h), true, h)
  for (const h of [
    '0.0.0.0',
    '::',
    '',
    '10.0.0.1',
    '192.168.1.2',
    '::ffff:10.0.0.1',
    'fe80::1%eth0',
    'example.com',
    'localhost.example.com',
    '128.0.0.1',
  ]) {
    assert.equal(isLoopbackHost(h), false, h)
  }
  assert.ok(protectedModeError('0.0.0.0', false, false) instanceof ProtectedModeError)
  assert.equal(protectedModeError('0.0.0.0', true, false), null, 'auth on: any address')
  assert.equal(protectedModeError('0.0.0.0', false, true), null, 'opted in')
  assert.equal(protectedModeError('127.0.0.1', false, false), null)
})

test('listen() on a non-loopback address with auth off rejects before binding, naming the ways out', async (t) => {
  const server = await createServer({ agents: [demoAgent], store: 'memory', logger: false, heartbeatIntervalMs: 0 })
  t.after(() => server.close())
  for (const host of ['0.0.0.0', '::', '192.0.2.1']) {
    // 192.0.2.1 (TEST-NET-1) is never bound either: the check comes first, so nothing is sent or opened.
    await assert.rejects(server.listen(0, host), (err: Error & { code?: string }) => {
      assert.equal(err.name, 'ProtectedModeError')
      assert.equal(err.code, 'EPROTECTED')
      assert.match(err.message, new RegExp(`refusing to listen on ${host.replace(/\./g, '\\.')} without authentication`))
      for (const way of [/--token/, /PARLANCE_TOKEN/, /auth\.authenticate/, /--no-auth/, /allowUnauthenticated: true/, /127\.0\.0\.1/])
        assert.match(err.message, way)
      return true
    })
    assert.equal(server.http.listening, false, `${host}: nothing listens`)
    assert.equal(server.http.address(), null)
  }
  // The same server still listens on loopback.
  const url = await server.listen(0, '127.0.0.1')
  assert.equal((await fetch(`${url}/healthz`)).status, 200)
})

test('inspector: false serves no page and no API (404); the dialects are unaffected', async (t) => {
  const off = await startServer({ inspector: false, auth: { token: 't' } })
  t.after(() => off.close())
  const auth = { headers: { authorization: 'Bearer t' } }
  for (const path of ['/inspector/api/sessions', '/inspector/api/info', '/inspector/', '/inspector/index.html']) {
    assert.equal((await fetch(`${off.url}${path}`, auth)).status, 404, path)
  }
  const root = await fetch(`${off.url}/`, { headers: { ...auth.headers, accept: 'text/html' } })
  assert.match(root.headers.get('content-type') ?? '', /application\/json/, 'a browser gets the JSON index, not the page')
  const index = (await root.json()) as { endpoints: Record<string, string> }
  assert.equal(index.endpoints.inspector, undefined)
  const hai = await off.hai({ token: 't' })
  hai.say('hello')
  assert.equal(textOf(await hai.untilCompleted()), 'Echo: hello')

  // The default: served, and with auth on, its API needs the token like every endpoint.
  const on = await startServer({ auth: { token: 't' } })
  t.after(() => on.close())
  assert.equal((await fetch(`${on.url}/inspector/api/sessions`)).status, 401)
  assert.equal((await fetch(`${on.url}/inspector/api/sessions`, { headers: { authorization: 'Bearer wrong' } })).status, 401)
  assert.equal((await fetch(`${on.url}/inspector/api/sessions`, auth)).status, 200)
})

/** Runs `parlance serve …` until it exits or prints its banner (then it is left running for the caller). */
function serveCli(args: string[]): Promise<{ code: number | null; out: string; err: string; child: ChildProcess | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgs('serve', '--store', 'memory', '--port', '0', ...args), {
      env: { ...process.env, LOG_LEVEL: 'silent', PARLANCE_TOKEN: '' },
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (/health:/.test(out)) resolve({ code: null, out, err, child })
    })
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.once('exit', (code) => resolve({ code, out, err, child: null }))
  })
}

test('CLI: --host 0.0.0.0 without a token refuses to start, naming --token and --no-auth; contradictions are refused', async () => {
  const r = await serveCli(['--host', '0.0.0.0'])
  assert.equal(r.child, null, 'it must not start')
  assert.equal(r.code, 2, r.err)
  assert.match(r.err, /refusing to listen on 0\.0\.0\.0 without authentication/)
  assert.match(r.err, /--token T/)
  assert.match(r.err, /--no-auth/)
  const both = await serveCli(['--no-auth', '--token', 'x'])
  assert.equal(both.code, 2)
  assert.match(both.err, /--no-auth turns auth off, but a token is set/)
})

test('CLI: --no-inspector answers 404 for the inspector; --no-auth is accepted on loopback', async (t) => {
  const r = await serveCli(['--no-inspector', '--no-auth'])
  assert.ok(r.child, r.err)
  t.after(() => r.child?.kill('SIGKILL'))
  assert.doesNotMatch(r.out, /inspector:/)
  const url = /listening on (\S+)/.exec(r.out)![1]!
  assert.equal((await fetch(`${url}/inspector/api/sessions`)).status, 404)
  assert.equal((await fetch(`${url}/healthz`)).status, 200)
})
