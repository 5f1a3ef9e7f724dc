import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

/**
 * "The same client tests pass whether they talk to one node or three": these suites, unchanged, against three
 * nodes sharing Redis behind a round-robin TCP balancer (PARLANCE_TEST_NODES=3 in test/harness.ts), so any
 * connection or HTTP request of a test may land on any node. Left out, by design: suites that assert
 * per-node state — rate-limit buckets and the run cap (per node) and MyAgent's in-memory reconnect buffer (a
 * reconnect to another node replays from the log instead). HugAI's hub (registry, tasks, checkpoints, early
 * decisions) and HUMA's delivery confirmations work across nodes, so their suites are here too.
 *
 * The suites never read node 1 by assumption: on a cluster the harness's `server` throws, and the balancer sends a
 * test's first connection to node 2. They read the store every node shares (`s.log`, `s.stored`) or the wire.
 */
const SUITES = [
  'test/hai-streaming.test.ts',
  'test/hai-approval.test.ts',
  'test/hai-tools.test.ts',
  'test/hai-interrupt.test.ts',
  'test/hai-lifecycle.test.ts',
  'test/hai-reconnect.test.ts',
  'test/huma-tools.test.ts',
  'test/huma-reconnect.test.ts',
  'test/huma-messaging.test.ts',
  'test/hugai-rpc.test.ts',
  'test/hugai-routing.test.ts',
  'test/hugai-governance.test.ts',
  'test/hugai-audit.test.ts',
  'test/agui-demo.test.ts',
  'test/agui-interactive.test.ts',
  'test/aisdk.test.ts',
  // A2A tasks are read from the log, and SubscribeToTask and CancelTask follow it, on whichever node a request lands.
  'test/a2a.test.ts',
  'test/conversation-a2a.test.ts',
  // Conversation control: queues, rejections and rollbacks are decided by the writer, whichever node a request
  // lands on (every conversation suite but MCP's passes with PARLANCE_TEST_NODES=3 — an MCP session lives on the
  // node that initialized it, so its client needs a sticky balancer; one here keeps this file's run short).
  'test/conversation-hai.test.ts',
]

// Two suites at a time when the machine has two cores: most of their time is spent waiting on sockets and timers.
const CONCURRENCY = Math.min(2, availableParallelism())

test('the client suites pass unchanged against a 3-node cluster behind a round-robin balancer', { timeout: 480_000 }, async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, PARLANCE_TEST_NODES: '3' }
  delete env.NODE_TEST_CONTEXT // a runner of its own, not a subtest of this one
  // From the tree scripts/run-tests.mjs compiled when there is one (no tsx start-up in each suite's process).
  const build = process.env.PARLANCE_TEST_BUILD
  const load = build ? ['--enable-source-maps'] : ['--import', 'tsx']
  const suites = build ? SUITES.map((f) => join(build, f.replace(/\.ts$/, '.js'))) : SUITES
  const child = spawn(process.execPath, [...load, '--test', `--test-concurrency=${CONCURRENCY}`, '--test-reporter=tap', ...suites], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env,
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  assert.equal(code, 0, `cluster run of the client suites failed:\n${out.slice(-6000)}`)
  const passed = Number(/^# pass (\d+)$/m.exec(out)?.[1] ?? 0)
  assert.ok(passed >= 60, `expected the suites' tests to run and pass, saw ${passed}:\n${out.slice(-2000)}`)
  assert.match(out, /^# fail 0$/m)
})
