import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { HaiClient, textOf } from '../src/client/index.js'
import { cliArgs } from './support/node-args.js'

function run(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, cliArgs(...args), { env: { ...process.env, LOG_LEVEL: 'silent', ...env } })
}

/** Resolves with all output once `pattern` appears in stdout. */
function waitFor(child: ChildProcessWithoutNullStreams, pattern: RegExp, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (d: Buffer) => {
      out += d.toString()
      if (pattern.test(out)) {
        child.stdout.off('data', onData)
        resolve(out)
      }
    }
    child.stdout.on('data', onData)
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before ${pattern}: ${out}`)))
  })
}

test('parlance serve + parlance chat: streams a reply and asks for an approval', async (t) => {
  const server = run(['serve', '--port', '0', '--store', 'memory'])
  t.after(() => server.kill('SIGKILL'))
  const banner = await waitFor(server, /listening on (http:\/\/\S+)/, 'serve')
  const url = /listening on (http:\/\/\S+)/.exec(banner)![1]!

  const health = (await (await fetch(`${url}/healthz`)).json()) as { status: string }
  assert.equal(health.status, 'ok')
  const metrics = await (await fetch(`${url}/metrics`)).text()
  assert.match(metrics, /parlance_connections/)
  assert.match(metrics, /^parlance_process_cpu_user_seconds_total /m, 'process metrics named once (issue 22)')
  assert.doesNotMatch(metrics, /parlance_process_process_/)
  assert.match(banner, /inspector: http:\/\/\S+\/ \(open it in a browser\)/)

  const chat = run(['chat', '--url', url])
  t.after(() => chat.kill('SIGKILL'))
  await waitFor(chat, /you> /, 'chat')
  chat.stdin.write('hello cli\n')
  await waitFor(chat, /agent> Echo: hello cli/, 'chat')
  chat.stdin.write('delete the file\n')
  await waitFor(chat, /approve\? \[y\/N\]/, 'chat')
  chat.stdin.write('y\n')
  await waitFor(chat, /Done: deleted notes\/demo\.txt/, 'chat')
  chat.stdin.end()

  server.kill('SIGTERM')
  const code = await new Promise<number | null>((resolve) => server.once('exit', resolve))
  assert.equal(code, 0, 'serve exits cleanly on SIGTERM')
})

test('parlance rejects an unknown command with usage', async () => {
  const child = run(['frobnicate'])
  let err = ''
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  assert.equal(code, 2)
  assert.match(err, /unknown command "frobnicate"/)
  assert.match(err, /usage:/)
})

test('parlance serve --agent loads an agent module from a file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-agent-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'agent.mjs')
  writeFileSync(file, "export default { name: 'filed', description: '', tools: {}, async run(ctx) { await ctx.say('from ' + ctx.input.text) } }\n")
  const server = run(['serve', '--port', '0', '--store', 'memory', '--agent', file])
  t.after(() => server.kill('SIGKILL'))
  const banner = await waitFor(server, /listening on (http:\/\/\S+)/, 'serve')
  assert.match(banner, /agents: filed/)
  const c = await HaiClient.connect({ url: /listening on (http:\/\/\S+)/.exec(banner)![1]! })
  t.after(() => c.close())
  c.say('a file')
  assert.equal(textOf(await c.untilCompleted()), 'from a file')
})

test('parlance serve --agent with a module that exports no agent fails clearly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-agent-'))
  const file = join(dir, 'nothing.mjs')
  writeFileSync(file, 'export const x = 1\n')
  const child = run(['serve', '--port', '0', '--store', 'memory', '--agent', file])
  let err = ''
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  rmSync(dir, { recursive: true, force: true })
  assert.equal(code, 2)
  assert.match(err, /does not export an agent/)
})

test('PARLANCE_TOKEN turns auth on for serve; chat --token gets in, a request without it is 401', async (t) => {
  const server = run(['serve', '--port', '0', '--store', 'memory'], { PARLANCE_TOKEN: 'cli-secret' })
  t.after(() => server.kill('SIGKILL'))
  const banner = await waitFor(server, /listening on (http:\/\/\S+)/, 'serve')
  assert.match(banner, /bearer token required/)
  const url = /listening on (http:\/\/\S+)/.exec(banner)![1]!
  assert.equal((await fetch(`${url}/`)).status, 401)
  const chat = run(['chat', '--url', url, '--token', 'cli-secret'], { PARLANCE_TOKEN: '' })
  t.after(() => chat.kill('SIGKILL'))
  await waitFor(chat, /you> /, 'chat')
  chat.stdin.write('hello token\n')
  await waitFor(chat, /agent> Echo: hello token/, 'chat')
  chat.stdin.end()
})

test('parlance serve --agent openai --model NAME talks to OPENAI_BASE_URL; without --model it says what is missing', async (t) => {
  const { fakeOpenAI } = await import('./support/fake-openai.js')
  const llm = await fakeOpenAI()
  t.after(() => llm.close())
  const server = run(['serve', '--port', '0', '--store', 'memory', '--agent', 'openai', '--model', 'fake-1'], {
    OPENAI_BASE_URL: llm.url,
    OPENAI_API_KEY: 'k',
  })
  t.after(() => server.kill('SIGKILL'))
  const banner = await waitFor(server, /listening on (http:\/\/\S+)/, 'serve')
  assert.match(banner, /agents: openai/)
  const c = await HaiClient.connect({ url: /listening on (http:\/\/\S+)/.exec(banner)![1]! })
  t.after(() => c.close())
  c.say('from the cli')
  assert.equal(textOf(await c.untilCompleted()), 'You said: from the cli')
  assert.equal(llm.requests[0]!.messages.at(-1)!.content, 'from the cli')

  const bad = run(['serve', '--port', '0', '--store', 'memory', '--agent', 'openai'])
  let err = ''
  bad.stderr.on('data', (d: Buffer) => (err += d.toString()))
  assert.equal(await new Promise((r) => bad.once('exit', r)), 2)
  assert.match(err, /--agent openai needs --model NAME/)
})
