// `parlance chat` across a crash (issue 46): the server is killed (-9) mid-reply and started again on the same
// port; chat reconnects with resume instead of exiting on close 1006, shows the reply's interrupted end, sends
// what was typed next; `--session` then prints the conversation so far before going on.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createServer } from '../src/index.js'
import { demoAgent } from '../src/agents/demo/index.js'
import { spawnServe } from './support/serve-process.js'
import { cliChild, exited } from './support/cli-child.js'

const chat = (args: string[]) => cliChild('chat', args)

test('kill -9 mid-reply, restart on the same port: chat reconnects, shows the interrupted end, goes on; --session prints the history', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parlance-chat-crash-'))
  t.after(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await spawnServe(t, ['--store', 'sqlite', '--data', dataDir])
  const url = first.url
  const c = chat(['--url', url])
  t.after(() => c.kill('SIGKILL'))
  await c.until(/session (\S+) \(/)
  const sessionId = /session (\S+) \(/.exec(c.out())![1]!
  c.stdin.write('slow\n')
  await c.until(/agent> 1 2 3 /)
  await first.kill()
  await c.until(/connection lost \(1006\); reconnecting/)

  const second = await createServer({ agents: [demoAgent], store: 'sqlite', dataDir, logger: false, heartbeatIntervalMs: 0 })
  t.after(() => second.close())
  await second.listen(Number(new URL(url).port), '127.0.0.1')
  await c.until(/\[reconnected, resuming after seq \d+\]/)
  await c.until(/error interrupted: /)
  c.stdin.end('hello after the crash\n')
  assert.equal(await exited(c), 0, c.out())
  const out = c.out()
  assert.ok(out.indexOf('error interrupted') < out.indexOf('agent> Echo: hello after the crash'), out)
  assert.doesNotMatch(out, /connection closed/)

  // The same session again: what was said so far, then the new exchange.
  const again = chat(['--url', url, '--session', sessionId])
  t.after(() => again.kill('SIGKILL'))
  again.stdin.end('and now\n')
  assert.equal(await exited(again), 0, again.out())
  const history = again.out()
  const order = ['you> slow', 'agent> 1 2 3 ', 'you> hello after the crash', 'agent> Echo: hello after the crash', 'agent> Echo: and now'].map((x) =>
    history.indexOf(x),
  )
  assert.ok(
    order.every((i) => i >= 0),
    history,
  )
  assert.deepEqual(
    [...order].sort((a, b) => a - b),
    order,
    `the history, in order, before the new answer:\n${history}`,
  )
})
