// Issue 38, part 2: `parlance serve --config FILE`. The parsing is pure (src/cli/config.ts), tested here as a table;
// then the CLI proves the file is applied and what overrides it (environment, then flags) over real HTTP.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { mergeSettings, parseConfig, type FlagSpec } from '../src/cli/config.js'
import { cliArgs } from './support/node-args.js'

const FLAGS: Record<string, FlagSpec> = {
  config: { type: 'string' },
  agent: { type: 'string', multiple: true },
  port: { type: 'string' },
  token: { type: 'string' },
  limit: { type: 'string', multiple: true },
  'trust-proxy': { type: 'boolean' },
  'node-id': { type: 'string' },
}
const LIMITS = ['maxConcurrentRuns', 'maxFrameBytes']
const parse = (json: unknown) => parseConfig(typeof json === 'string' ? json : JSON.stringify(json), 'p.json', FLAGS, LIMITS)

test('parseConfig: values become what the flags would have given', () => {
  assert.deepEqual(parse({ port: 9000, agent: 'demo', token: 't', 'trust-proxy': true, limit: { maxConcurrentRuns: 5000, maxFrameBytes: 0 } }), {
    port: '9000',
    agent: ['demo'],
    token: 't',
    'trust-proxy': true,
    limit: ['maxConcurrentRuns=5000', 'maxFrameBytes=0'],
  })
  assert.deepEqual(parse({ agent: ['./a.js', 'demo'], limit: ['maxConcurrentRuns=7'] }), {
    agent: ['./a.js', 'demo'],
    limit: ['maxConcurrentRuns=7'],
  })
  assert.deepEqual(parse({}), {})
})

test('parseConfig: unknown keys and wrong types are errors naming the key and the file', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ prot: 9000 }, /p\.json: unknown key "prot"; the keys are serve's long flag names: agent, port, token, limit, trust-proxy, node-id$/],
    [{ config: 'other.json' }, /unknown key "config"/],
    [{ port: true }, /p\.json: "port" must be a string or a number \(like --port VALUE\), not boolean true$/],
    [{ port: null }, /"port" must be a string or a number .*not null/],
    [{ token: { a: 1 } }, /"token" must be a string or a number .*not an object/],
    [{ agent: ['demo', 5, false] }, /"agent" must be a string or a number .*not boolean false/],
    [{ 'trust-proxy': 'yes' }, /p\.json: "trust-proxy" must be true or false \(a switch, like --trust-proxy\), not string "yes"$/],
    [{ limit: { maxConcurentRuns: 5 } }, /p\.json: "limit\.maxConcurentRuns" is not a limit; one of: maxConcurrentRuns, maxFrameBytes$/],
    [{ limit: { maxConcurrentRuns: -1 } }, /"limit\.maxConcurrentRuns" must be a whole number ≥ 0, not number -1/],
    [{ limit: { maxConcurrentRuns: '5' } }, /"limit\.maxConcurrentRuns" must be a whole number ≥ 0, not string "5"/],
    [{ limit: 5 }, /"limit" must be an object of limits/],
    [[1, 2], /p\.json: must hold a JSON object of settings, not an array$/],
    ['{"port": 9000,}', /p\.json: not valid JSON/],
  ]
  for (const [json, pattern] of cases) assert.throws(() => parse(json), pattern, JSON.stringify(json))
})

test("mergeSettings: the file, then the environment, then the flags; --limit adds to the file's limits", () => {
  const file = { port: '1', token: 'file', agent: ['a'], limit: ['maxConcurrentRuns=1', 'maxFrameBytes=2'], 'node-id': 'file-node' }
  const merged = mergeSettings(
    file,
    { PORT: '2', PARLANCE_TOKEN: '', PARLANCE_NODE_ID: 'env-node' },
    { port: '3', agent: ['b'], limit: ['maxConcurrentRuns=9'], token: undefined },
  )
  assert.deepEqual(merged, {
    port: '3',
    token: 'file',
    agent: ['b'],
    limit: ['maxConcurrentRuns=1', 'maxFrameBytes=2', 'maxConcurrentRuns=9'],
    'node-id': 'env-node',
  })
  assert.equal(mergeSettings(file, { PORT: '2' }, {}).port, '2', 'the environment over the file')
  assert.deepEqual(mergeSettings({}, {}, { limit: ['maxFrameBytes=3'] }).limit, ['maxFrameBytes=3'])
})

/** Runs `parlance serve …` until it exits or prints its banner (then it keeps running for the caller). */
function serveCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string; err: string; child: ChildProcess | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgs('serve', ...args), {
      env: { ...process.env, LOG_LEVEL: 'silent', PARLANCE_TOKEN: '', PORT: '', ...env },
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

/** Which of `tokens` the server at `url` accepts on its inspector API. */
async function accepted(url: string, tokens: string[]): Promise<string[]> {
  const ok: string[] = []
  for (const t of tokens) if ((await fetch(`${url}/inspector/api/info`, { headers: { authorization: `Bearer ${t}` } })).status === 200) ok.push(t)
  return ok
}

test('CLI: the file is applied, the environment overrides it, a flag overrides both; bad files exit 2 naming the key', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-config-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'parlance.json')
  writeFileSync(
    file,
    JSON.stringify({ port: 0, host: '127.0.0.1', store: 'memory', agent: ['demo'], token: 'from-file', limit: { maxFrameBytes: 200 } }),
  )
  const tokens = ['from-file', 'from-env', 'from-flag']

  const a = await serveCli(['--config', file])
  assert.ok(a.child, a.err)
  t.after(() => a.child?.kill('SIGKILL'))
  const urlA = /listening on (\S+)/.exec(a.out)![1]!
  assert.deepEqual(await accepted(urlA, tokens), ['from-file'])
  // The file's limit is in force: a 300-byte AG-UI body is over maxFrameBytes=200 (the default is 1 MiB).
  const big = await fetch(`${urlA}/agui`, {
    method: 'POST',
    headers: { authorization: 'Bearer from-file', 'content-type': 'application/json' },
    body: JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'user', content: 'x'.repeat(300) }] }),
  })
  assert.equal(big.status, 413)
  a.child.kill('SIGKILL')

  const b = await serveCli(['--config', file], { PARLANCE_TOKEN: 'from-env' })
  assert.ok(b.child, b.err)
  t.after(() => b.child?.kill('SIGKILL'))
  assert.deepEqual(await accepted(/listening on (\S+)/.exec(b.out)![1]!, tokens), ['from-env'])
  b.child.kill('SIGKILL')

  const c = await serveCli(['--config', file, '--token', 'from-flag'], { PARLANCE_TOKEN: 'from-env' })
  assert.ok(c.child, c.err)
  t.after(() => c.child?.kill('SIGKILL'))
  assert.deepEqual(await accepted(/listening on (\S+)/.exec(c.out)![1]!, tokens), ['from-flag'])
  c.child.kill('SIGKILL')

  const bad = join(dir, 'bad.json')
  for (const [json, pattern] of [
    [{ store: 'memory', prot: 9000 }, /bad\.json: unknown key "prot"; the keys are serve's long flag names: agent, port/],
    [{ store: 'memory', 'trust-proxy': 'yes' }, /bad\.json: "trust-proxy" must be true or false/],
    [{ store: 'memory', limit: { maxConcurentRuns: 1 } }, /bad\.json: "limit\.maxConcurentRuns" is not a limit/],
  ] as const) {
    writeFileSync(bad, JSON.stringify(json))
    const r = await serveCli(['--config', bad, '--port', '0'])
    assert.equal(r.child, null, 'must not start')
    assert.equal(r.code, 2, r.err)
    assert.match(r.err, pattern)
  }
  const missing = await serveCli(['--config', join(dir, 'nope.json')])
  assert.equal(missing.code, 2)
  assert.match(missing.err, /--config .*nope\.json: no such file/)
})
