// `parlance serve --agent agui:URL`: the CLI, as a child process, turns a running AG-UI agent into a HAI and
// HUMA (and every other dialect's) agent.
import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { test } from 'node:test'
import { HaiClient, HumaClient, textOf } from '../src/client/index.js'
import { unreachable } from './agui-bridge-support.js'
import { startServer } from './harness.js'
import { cliArgs } from './support/node-args.js'

function serve(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, cliArgs('serve', '--port', '0', '--store', 'memory', ...args), { env: { ...process.env, LOG_LEVEL: 'silent' } })
}

/** Resolves with the server URL from the banner; rejects if the process exits first. */
function listening(child: ChildProcessWithoutNullStreams): Promise<{ url: string; banner: string }> {
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m && /health:/.test(out)) resolve({ url: m[1]!, banner: out })
    })
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${out}`)))
  })
}

/** Everything `stream` printed so far, and a wait for a pattern in it. */
function collect(stream: NodeJS.ReadableStream): { text(): string; until(pattern: RegExp): Promise<string> } {
  let out = ''
  const waiting = new Set<() => void>()
  stream.on('data', (d: Buffer) => {
    out += d.toString()
    for (const w of waiting) w()
  })
  return {
    text: () => out,
    until: (pattern) =>
      new Promise((resolve) => {
        const check = () => {
          if (!pattern.test(out)) return
          waiting.delete(check)
          resolve(out)
        }
        waiting.add(check)
        check()
      }),
  }
}

test('serve --agent agui:URL bridges a running AG-UI agent: HAI streams, approves and runs client tools; HUMA talks to it', async (t) => {
  const remote = await startServer()
  t.after(() => remote.close())
  const child = serve(['--agent', `agui:${remote.url}/agui`])
  t.after(() => child.kill('SIGKILL'))
  const { url, banner } = await listening(child)
  assert.match(banner, /agents: agui\n/)

  const hai = await HaiClient.connect({ url })
  t.after(() => hai.close())
  hai.say('hello through the cli')
  const echo = await hai.untilCompleted()
  assert.equal(textOf(echo), 'Echo: hello through the cli')
  assert.ok(echo.filter((m) => m.type === 'assistant_message_chunk' && !m.is_final).length >= 3, 'streamed')

  hai.say('delete it')
  const req = await hai.next('tool_approval_request')
  assert.deepEqual([req.tool_name, req.risk_level], ['delete_file', 'high'])
  hai.approve(req.approval_id, true)
  assert.equal(textOf(await hai.untilCompleted()), 'Done: deleted notes/demo.txt.')

  hai.say('client')
  const call = await hai.next('tool_call_start')
  assert.equal(call.tool_name, 'get_client_info')
  hai.toolResult(call.tool_call_id, { result: { via: 'cli' } })
  assert.equal(textOf(await hai.untilCompleted()), 'Client info: {"via":"cli"}')

  const huma = await HumaClient.connect({ url })
  t.after(() => huma.close())
  huma.contextUpdate('weather in Rome')
  assert.equal((await huma.nextMessaging('message_sent')).message, 'The weather in Rome is cloudy at 18 °C.')

  child.kill('SIGTERM')
  assert.equal(await new Promise((resolve) => child.once('exit', resolve)), 0)
})

test('serve --agent agui:URL with an invalid URL fails at start with a clear message', async () => {
  const child = serve(['--agent', 'agui:not-a-url'])
  const err = collect(child.stderr)
  const code = await new Promise((resolve) => child.once('exit', resolve))
  assert.equal(code, 2)
  assert.match(err.text(), /--agent agui:not-a-url: the AG-UI agent URL "not-a-url" is not a valid URL/)
})

test('serve --agent agui:URL with nothing listening: a warning at start, and each run says the agent could not be reached', async (t) => {
  const dead = await unreachable()
  t.after(() => dead.close())
  const remoteUrl = dead.url
  // --expose-errors: the run's message names the URL; without it clients get "the agent failed (ref …)".
  const child = serve(['--agent', `agui:${remoteUrl}`, '--expose-errors'])
  t.after(() => child.kill('SIGKILL'))
  const err = collect(child.stderr)
  const { url } = await listening(child)
  const hai = await HaiClient.connect({ url })
  t.after(() => hai.close())
  hai.say('anyone there?')
  const error = (await hai.untilCompleted()).find((m) => m.type === 'error')
  assert.ok(error?.type === 'error')
  assert.equal(error.error_code, 'unavailable')
  assert.match(error.message, /the remote AG-UI agent at http:\/\/127\.0\.0\.2:\d+\/agui could not be reached \(ECONNREFUSED\)/)
  // The start-up probe warned as well (after the banner: the remote may come up later).
  await err.until(/warning: the AG-UI agent at \S+ cannot be reached now/)
  assert.ok(err.text().includes(`warning: the AG-UI agent at ${remoteUrl} cannot be reached now`))
})
