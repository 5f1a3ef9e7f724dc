// Issue 37, item 2: the operator's allow list through the CLI. `parlance serve --allow-webhook-host 127.0.0.1`
// accepts a local receiver's webhook and delivers to it; the env variable does the same; without either, the same
// URL is refused. Loopback only.
import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { connectA2a } from '../src/client/index.js'
import { cliArgs } from './support/node-args.js'
import { a2aMessage } from './support/a2a.js'

function serve(t: TestContext, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, cliArgs('serve', '--port', '0', '--store', 'memory', ...args), {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
  })
  t.after(() => child.kill('SIGKILL'))
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)))
  })
}

async function tryWebhook(url: string, hook: string): Promise<string> {
  const c = await connectA2a({ url })
  return c
    .sendMessage({
      tenant: '',
      message: a2aMessage('count 2'),
      configuration: {
        acceptedOutputModes: [],
        historyLength: undefined,
        returnImmediately: false,
        taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url: hook, token: '', authentication: undefined },
      },
      metadata: undefined,
    })
    .then(
      () => 'accepted',
      (err: unknown) => (err as Error).message,
    )
}

test('--allow-webhook-host and PARLANCE_ALLOW_WEBHOOK_HOST let a local receiver in; without them it is refused', async (t) => {
  let delivered!: () => void
  const firstDelivery = new Promise<void>((r) => (delivered = r))
  const hook = createHttpServer((req, res) => {
    req.resume()
    req.on('end', () => {
      delivered()
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r))
  t.after(() => hook.close())
  const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`
  const [flag, env, none] = await Promise.all([
    serve(t, ['--allow-webhook-host', '127.0.0.1']),
    serve(t, [], { PARLANCE_ALLOW_WEBHOOK_HOST: 'example.invalid, 127.0.0.1' }),
    serve(t, []),
  ])
  assert.equal(await tryWebhook(flag, hookUrl), 'accepted')
  assert.equal(await tryWebhook(env, hookUrl), 'accepted')
  assert.match(await tryWebhook(none, hookUrl), /loopback address.*--allow-webhook-host 127\.0\.0\.1/)
  // The allowed receiver gets the updates (bounded wait).
  let timer: NodeJS.Timeout | undefined
  await Promise.race([firstDelivery, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no delivery within 10 s')), 10_000)))])
  clearTimeout(timer)
})
