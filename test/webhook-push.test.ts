// Issue 37, item 2, end to end with loopback addresses only: an allowed local receiver still gets its updates;
// a loopback webhook nobody allowed is refused with a JSON-RPC error that says why (official @a2a-js/sdk client);
// delivery connects to the address that was checked, and checks it again. The connect step is injected where a
// guard bug could aim elsewhere: `loopbackOnly` fails the test before any non-loopback connection is attempted.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { TaskState, type StreamResponse, type TaskPushNotificationConfig } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { InMemoryPushNotificationStore, ServerCallContext } from '@a2a-js/sdk/server'
import { connectA2a } from '../src/client/index.js'
import { guardedPushStore, pinnedPost, RetryingPushSender, type PushPost } from '../src/dialects/a2a/push.js'
import { WebhookGuard, type Resolve } from '../src/dialects/a2a/webhook-guard.js'
import { startServer } from './harness.js'
import { a2aMessage } from './support/a2a.js'

interface Delivery {
  headers: IncomingHttpHeaders
  body: { statusUpdate?: { status?: { state?: string } } }
}

/** A webhook receiver on 127.0.0.1: what it got, and a wait for a delivery matching `pred` (bounded). */
async function receiver(t: TestContext) {
  const got: Delivery[] = []
  const waiters: Array<() => void> = []
  const hook = createHttpServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => {
      got.push({ headers: req.headers, body: JSON.parse(body) as Delivery['body'] })
      res.writeHead(200).end()
      for (const w of waiters.splice(0)) w()
    })
  })
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r))
  t.after(() => hook.close())
  const port = (hook.address() as AddressInfo).port
  const until = (pred: (d: Delivery) => boolean, ms = 10_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no such delivery within ${ms} ms; got ${JSON.stringify(got.map((d) => d.body))}`)), ms)
      const check = () => {
        if (got.some(pred)) {
          clearTimeout(timer)
          resolve()
        } else waiters.push(check)
      }
      check()
    })
  return { got, port, url: `http://127.0.0.1:${port}/hook`, until }
}

const pushConfig = (url: string, taskId = ''): TaskPushNotificationConfig => ({
  tenant: '',
  id: '',
  taskId,
  url,
  token: 'hook-token',
  authentication: undefined,
})
const sendWithHook = (c: Client, text: string, url: string) =>
  c.sendMessage({
    tenant: '',
    message: a2aMessage(text),
    configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately: false, taskPushNotificationConfig: pushConfig(url) },
    metadata: undefined,
  })
const completed = (d: Delivery) => d.body.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED'

test('an allowed local receiver (allowWebhookHosts: 127.0.0.1) gets every update, the last one the end', async (t) => {
  const hook = await receiver(t)
  const s = await startServer({ allowWebhookHosts: ['127.0.0.1'] })
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url })
  const task = await sendWithHook(c, 'count 3', hook.url)
  assert.equal('status' in task ? task.status?.state : undefined, TaskState.TASK_STATE_COMPLETED)
  await hook.until(completed)
  assert.ok(hook.got.length >= 2, `updates delivered: ${hook.got.length}`)
  assert.ok(hook.got.every((d) => d.headers['x-a2a-notification-token'] === 'hook-token'))
  assert.ok(completed(hook.got.at(-1)!), 'the end comes last')
})

test('a loopback webhook nobody allowed is refused with a JSON-RPC error saying why; nothing reaches it', async (t) => {
  const hook = await receiver(t)
  const s = await startServer()
  t.after(() => s.close())
  const c = await connectA2a({ url: s.url })
  // CreateTaskPushNotificationConfig on an existing task.
  const task = await c.sendMessage({ tenant: '', message: a2aMessage('count 2'), configuration: undefined, metadata: undefined })
  const taskId = 'id' in task ? task.id : assert.fail('a task')
  const created = await c.createTaskPushNotificationConfig(pushConfig(hook.url, taskId)).then(
    () => null,
    (err: unknown) => err as Error & { envelopeCode?: number },
  )
  assert.ok(created, 'refused')
  assert.equal(created.envelopeCode, -32602, 'invalid params')
  assert.match(created.message, /webhook host 127\.0\.0\.1 is a loopback address: push notifications may not reach the server's own network/)
  assert.deepEqual((await c.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' })).configs, [], 'nothing was saved')
  // A config inside SendMessage: refused before the task runs. Numeric spellings are the same host.
  for (const url of [
    hook.url,
    `http://2130706433:${hook.port}/hook`,
    `http://0177.0.0.1:${hook.port}/hook`,
    `http://[::ffff:127.0.0.1]:${hook.port}/hook`,
    `http://localhost:${hook.port}/hook`,
  ]) {
    const sent = await sendWithHook(c, 'count 2', url).then(
      () => null,
      (err: unknown) => err as Error & { envelopeCode?: number },
    )
    assert.ok(sent, `refused: ${url}`)
    assert.equal(sent.envelopeCode, -32602)
    assert.match(sent.message, /loopback address/, url)
  }
  // An A2A 0.3 client's message/send with a pushNotificationConfig: the same refusal.
  const legacy = (await (
    await fetch(`${s.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'count 2' }] },
          configuration: { pushNotificationConfig: { url: hook.url } },
        },
      }),
    })
  ).json()) as { error?: { code: number; message: string } }
  assert.equal(legacy.error?.code, -32602, JSON.stringify(legacy))
  assert.match(legacy.error.message, /loopback address/)
  assert.equal(hook.got.length, 0, 'the receiver heard nothing')
})

/** The connect step the tests inject: refuses (and fails the test) before connecting anywhere but loopback. */
function loopbackOnly(calls: string[]): PushPost {
  return (target, headers, body, timeoutMs) => {
    calls.push(target.address)
    if (target.address !== '127.0.0.1' && target.address !== '::1')
      return Promise.reject(new Error(`test refused to connect to ${target.address}: a guard bug`))
    return pinnedPost(target, headers, body, timeoutMs)
  }
}

const statusUpdate = (taskId: string): StreamResponse => ({
  payload: {
    $case: 'statusUpdate',
    value: {
      taskId,
      contextId: 'ctx',
      status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date().toISOString() },
      metadata: undefined,
    },
  },
})
const quietLog = (warnings: unknown[]) =>
  ({ warn: (o: unknown) => void warnings.push(o) }) as unknown as ConstructorParameters<typeof RetryingPushSender>[1]

test('delivery connects to the checked address: a name that only the injected resolver knows reaches the local receiver', async (t) => {
  const hook = await receiver(t)
  const lookups: string[] = []
  const resolve: Resolve = async (host) => {
    lookups.push(host)
    return host === 'hook.test' ? [{ address: '127.0.0.1', family: 4 }] : assert.fail(`looked up ${host}`)
  }
  const guard = new WebhookGuard({ allowHosts: ['127.0.0.1'], resolve })
  const store = guardedPushStore(new InMemoryPushNotificationStore(), guard)
  const context = new ServerCallContext()
  await store.save('t1', context, pushConfig(`http://hook.test:${hook.port}/hook`, 't1'))
  const calls: string[] = []
  const warnings: unknown[] = []
  await new RetryingPushSender(store, quietLog(warnings), guard, { attempts: 1, firstDelayMs: 1, timeoutMs: 5_000 }, loopbackOnly(calls)).send(
    statusUpdate('t1'),
    context,
  )
  assert.deepEqual(warnings, [])
  assert.deepEqual(calls, ['127.0.0.1'])
  assert.equal(hook.got.length, 1)
  assert.equal(hook.got[0]!.headers.host, `hook.test:${hook.port}`, 'the URL host is kept in Host; the connection went to the checked address')
  assert.deepEqual(lookups, ['hook.test', 'hook.test'], 'checked at save and again at delivery, by the guard only')
})

test('a name that resolves elsewhere after its config was saved is refused at delivery; no connection is attempted', async (t) => {
  const hook = await receiver(t)
  let answers = [['127.0.0.1'], ['10.0.0.1'], ['::ffff:169.254.169.254']]
  const resolve: Resolve = async () => (answers.shift() ?? ['10.0.0.1']).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  const guard = new WebhookGuard({ allowHosts: ['127.0.0.1'], resolve })
  const store = guardedPushStore(new InMemoryPushNotificationStore(), guard)
  const context = new ServerCallContext()
  await store.save('t2', context, pushConfig(`http://flip.test:${hook.port}/hook`, 't2'))
  const calls: string[] = []
  const warnings: Array<{ error?: string }> = []
  const sender = new RetryingPushSender(store, quietLog(warnings), guard, { attempts: 3, firstDelayMs: 1, timeoutMs: 1_000 }, loopbackOnly(calls))
  await sender.send(statusUpdate('t2'), context)
  await sender.send(statusUpdate('t2'), context)
  assert.deepEqual(calls, [], 'never connected')
  assert.equal(hook.got.length, 0)
  assert.equal(warnings.length, 2)
  assert.match(warnings[0]!.error ?? '', /resolves to 10\.0\.0\.1, which is a private address/)
  assert.match(warnings[1]!.error ?? '', /resolves to ::ffff:169\.254\.169\.254, which is a link-local address/)
  answers = []
})

test("a task's webhooks are read once for its many updates, and again as soon as they change through this node", async (t) => {
  const hook = await receiver(t)
  const guard = new WebhookGuard({ allowHosts: ['127.0.0.1'] })
  const inner = new InMemoryPushNotificationStore()
  let reads = 0
  const counting = Object.assign(Object.create(inner) as InMemoryPushNotificationStore, {
    load: (taskId: string, context: ServerCallContext) => (reads++, inner.load(taskId, context)),
  })
  const store = guardedPushStore(counting, guard, (taskId) => sender.forget(taskId))
  const calls: string[] = []
  // An hour of freshness: only a change through the store can make the sender read the webhooks again.
  const sender = new RetryingPushSender(
    store,
    quietLog([]),
    guard,
    { attempts: 1, firstDelayMs: 1, timeoutMs: 5_000 },
    loopbackOnly(calls),
    3_600_000,
  )
  const context = new ServerCallContext()
  for (let i = 0; i < 100; i++) await sender.send(statusUpdate('t3'), context)
  assert.equal(reads, 1, 'one read for 100 updates of a task with no webhook')
  assert.equal(hook.got.length, 0)
  await store.save('t3', context, pushConfig(hook.url, 't3'))
  await sender.send(statusUpdate('t3'), context)
  assert.equal(reads, 2, 'read again after the save')
  assert.equal(hook.got.length, 1, 'the new webhook got the next update')
  await store.delete('t3', context, (await inner.load('t3', context))[0]!.id)
  await sender.send(statusUpdate('t3'), context)
  assert.equal(reads, 3, 'read again after the delete')
  assert.equal(hook.got.length, 1, 'the deleted webhook got nothing more')
})
