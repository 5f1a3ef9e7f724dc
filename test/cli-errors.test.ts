// Issue 22, finding 4: the CLI behaves like the tools people know — --help for every command with examples,
// --version, and errors that name what failed and what is accepted, each exiting non-zero.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { DIALECTS } from '../src/dialects/registry.js'
import { startServer } from './harness.js'
import { cliArgs } from './support/node-args.js'

/** Runs the CLI to its end (or until it prints its banner, then stops it): exit code and output. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string; started: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgs(...args), { env: { ...process.env, LOG_LEVEL: 'silent', ...env } })
    let out = ''
    let err = ''
    let started = false
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (!started && /health:/.test(out)) {
        started = true
        child.kill('SIGKILL')
      }
    })
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.once('exit', (code) => resolve({ code, out, err, started }))
  })
}

test('--help for each command, with examples; --version', async () => {
  const help: Record<string, string> = {}
  for (const args of [['serve', '--help'], ['chat', '--help'], ['--help']]) {
    const r = await cli(args)
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`)
    assert.match(r.out, /^usage: parlance/, args.join(' '))
    help[args.join(' ')] = r.out
  }
  assert.match(help['serve --help']!, /examples:[\s\S]*parlance serve --agent agui:http/)
  assert.match(help['chat --help']!, /--session ID/)
  const v = await cli(['--version'])
  assert.equal(v.code, 0)
  assert.match(v.out, /^parlance \d+\.\d+\.\d+ \(parlance-gateway\)\n$/)
  assert.match((await cli(['serve', '--version'])).out, /^parlance \d+\.\d+\.\d+/)
})

test('errors name what failed and what is accepted, and exit non-zero', async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'parlance-cli-'))
  t.after(() => rmSync(tmp, { recursive: true, force: true }))
  const notADirectory = join(tmp, 'a-file')
  writeFileSync(notADirectory, '')
  const cases: Array<[string[], RegExp]> = [
    [['serve', '--agent', 'dmeo'], /unknown agent "dmeo": use demo, openai \(with --model NAME\), agui:URL .*, or the path of an agent module/],
    [['serve', '--agent', './no-such-agent.js'], /no such file .*no-such-agent\.js/],
    [['serve', '--model', 'gpt-x'], /--model applies to --agent openai only/],
    [['serve', '--data', ''], /--data needs a directory/],
    [['serve', '--store', 'redis://127.0.0.1:1'], /cannot reach Redis at redis:\/\/127\.0\.0\.1:1.*ECONNREFUSED/],
    [['serve', '--port', '0', '--data', join(notADirectory, 'data')], new RegExp(`${notADirectory.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/data`)],
    [['serve', '--on-busy', 'later'], /--on-busy must be one of interrupt, enqueue, reject, rollback, not later/],
    [['serve', '--bogus'], /Unknown option '--bogus'[\s\S]*see: parlance serve --help/],
  ]
  for (const [args, pattern] of cases) {
    const r = await cli(args)
    assert.equal(r.started, false, `${args.join(' ')} must not start`)
    assert.equal(r.code, 2, `${args.join(' ')} exits 2 (stderr: ${r.err})`)
    assert.match(r.err, pattern, args.join(' '))
  }
})

test('an agent module that throws while loading: the error with its file and line (issue 46)', async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'parlance-cli-'))
  t.after(() => rmSync(tmp, { recursive: true, force: true }))
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const throwing = join(tmp, 'throwing-agent.mjs')
  writeFileSync(throwing, "const config = undefined\nexport default { name: 'x', model: config.model }\n")
  const broken = join(tmp, 'broken-agent.mjs')
  writeFileSync(broken, "export default {\n  name: 'x',,\n}\n")
  const cases: Array<[string, RegExp]> = [
    [throwing, new RegExp(`TypeError: Cannot read properties of undefined \\(reading 'model'\\)\\n\\s+at .*${escape(throwing)}:2:\\d+`)],
    [broken, new RegExp(`${escape(broken)}:2\\n  name: 'x',,\\n\\s+\\^[\\s\\S]*SyntaxError: Unexpected token ','`)],
  ]
  for (const [file, pattern] of cases) {
    const r = await cli(['serve', '--port', '0', '--store', 'memory', '--agent', file])
    assert.equal(r.code, 2, r.err)
    assert.match(r.err, new RegExp(`^parlance: --agent ${escape(file)}: the module threw while loading:\\n`))
    assert.match(r.err, pattern)
    assert.doesNotMatch(r.err, /node:internal/, "the loader's own frames are left out")
  }
})

test('serve --help names every dialect of the registry', async () => {
  const r = await cli(['serve', '--help'])
  for (const d of DIALECTS) assert.match(r.out, new RegExp(`over every dialect \\([^)]*\\b${d.name}\\b`), d.name)
  assert.match(r.out, /--expose-errors/)
})

test('two bridged AG-UI agents get two names, so the first stays the default', async (t) => {
  const remote = await startServer()
  t.after(() => remote.close())
  const r = await cli(['serve', '--port', '0', '--store', 'memory', '--agent', `agui:${remote.url}/agui`, '--agent', `agui:${remote.url}/agui/demo`])
  assert.ok(r.started, r.err)
  assert.match(r.out, /agents: agui, agui-2\n/)
})

test('chat with a wrong token says so and exits non-zero', async (t) => {
  const s = await startServer({ auth: { token: 'right' } })
  t.after(() => s.close())
  const r = await cli(['chat', '--url', s.url, '--token', 'wrong'])
  assert.equal(r.code, 2)
  assert.match(r.err, /refused the token/)
  assert.doesNotMatch(r.out, /connected/)
})
