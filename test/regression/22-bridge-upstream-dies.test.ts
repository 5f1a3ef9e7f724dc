// Issue 22, finding 1: `serve --agent agui:URL` exited with `TypeError: terminated … other side closed` when
// its upstream AG-UI server went away mid-stream, dropping every client. The run must fail and the bridge
// must keep serving. Both as a user runs it: two `parlance serve` processes, the upstream killed with
// SIGKILL (a crash) and stopped with SIGINT (a graceful stop).
import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { test } from 'node:test'
import { HaiClient } from '../../src/client/index.js'
import { cliArgs } from '../support/node-args.js'

function serve(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, cliArgs('serve', '--port', '0', '--store', 'memory', ...args), { env: { ...process.env, LOG_LEVEL: 'silent' } })
}

function listening(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m && /health:/.test(out)) resolve(m[1]!)
    })
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${out}`)))
  })
}

for (const signal of ['SIGKILL', 'SIGINT'] as const) {
  test(`the bridge keeps serving when its upstream dies mid-stream (${signal}); the run fails as unavailable`, async (t) => {
    const upstream = serve([])
    t.after(() => upstream.kill('SIGKILL'))
    const upstreamUrl = await listening(upstream)
    const bridge = serve(['--agent', `agui:${upstreamUrl}/agui`])
    let bridgeExit: string | null = null
    let stderr = ''
    bridge.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    bridge.once('exit', (code, sig) => (bridgeExit = `${code ?? sig}`))
    t.after(() => bridge.kill('SIGKILL'))
    const url = await listening(bridge)

    const hai = await HaiClient.connect({ url })
    t.after(() => hai.close())
    hai.say('slow')
    await hai.next('assistant_message_chunk', 20_000)
    upstream.kill(signal)
    const error = await hai.next('error', 20_000)
    assert.ok(['unavailable', 'interrupted', 'execution_error'].includes(error.error_code), `run error code: ${error.error_code} (${error.message})`)
    await hai.next((m) => m.type === 'status' && m.status === 'completed', 20_000)

    // Still serving: health answers and a new client gets a clear error for the unreachable upstream.
    const health = await fetch(`${url}/healthz`)
    assert.equal(health.status, 200)
    const again = await HaiClient.connect({ url })
    t.after(() => again.close())
    again.say('hello')
    const second = await again.next('error', 20_000)
    assert.equal(second.error_code, 'unavailable', second.message)
    assert.equal(bridgeExit, null, `the bridge process is still running (stderr: ${stderr.slice(0, 500)})`)
  })
}
